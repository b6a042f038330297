// A module page's parts as tabs (docs/console.md, "Tabs"): a row of buttons (role="tab",
// aria-selected) with the ids tab-<name> above the parts (role="tabpanel", panel-<name>), one part
// shown at a time, inside an element with the id "parts". The part chosen is kept in the address's
// hash ("#/budgets"), so a reload opens it again and the browser's Back returns to the part before;
// a hash that names no part (the skip link's "#main") leaves the part shown as it is. The arrow
// keys, Home and End move along the row, as in every tab row; on a phone the row scrolls sideways
// (console.css) and the chosen tab is scrolled into view.

const $ = (id) => document.getElementById(id);

/**
 * Binds the tab row of `names` (the first is shown when the address names none) and returns
 * `open(name)`, which opens a part as a tab press does. `onShow(name)` runs each time a part is shown.
 */
export function bindTabs(names, { onShow = () => {} } = {}) {
  let shown = null;
  const fromHash = () => {
    const name = location.hash.replace(/^#\/?/, "");
    return names.includes(name) ? name : null;
  };
  const show = (name) => {
    for (const tab of names) {
      const selected = tab === name;
      $(`tab-${tab}`).setAttribute("aria-selected", String(selected));
      $(`tab-${tab}`).tabIndex = selected ? 0 : -1;
      $(`panel-${tab}`).hidden = !selected;
    }
    const row = $("tablist"), active = $(`tab-${name}`);
    row.scrollLeft = Math.max(0, active.offsetLeft - (row.clientWidth - active.offsetWidth) / 2);
    // A part opened from a row that stuck to the top while the last part was read far down starts
    // at its beginning, just below the row.
    const top = $("parts").getBoundingClientRect().top;
    if (shown !== null && shown !== name && top < row.offsetHeight) window.scrollBy(0, top - row.offsetHeight);
    shown = name;
    document.body.dataset.tab = name;
    onShow(name);
  };
  const open = (name) => {
    if (location.hash === `#/${name}`) show(name);
    else location.hash = `/${name}`;
  };
  for (const tab of names) $(`tab-${tab}`).addEventListener("click", () => open(tab));
  $("tablist").addEventListener("keydown", (event) => {
    const at = names.indexOf(shown);
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: names.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const name = names[(next + names.length) % names.length];
    open(name);
    $(`tab-${name}`).focus();
  });
  window.addEventListener("hashchange", () => {
    const name = fromHash();
    if (name) show(name);
  });
  show(fromHash() || names[0]);
  return open;
}
