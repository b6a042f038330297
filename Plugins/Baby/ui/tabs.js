// The parts of the baby diary's page as tabs (docs/baby.md, "The page"): a row of buttons
// (role="tab", aria-selected) above the parts (role="tabpanel"), one part shown at a time. The
// part chosen is kept in the address's hash ("#/growth"), so a reload opens it again and the
// browser's Back returns to the part before; a hash that names no part (the skip link's "#main")
// leaves the part shown as it is. The arrow keys, Home and End move along the row, as in every
// tab row. On a phone the row scrolls sideways (baby.css) and the chosen tab is scrolled into view.
// A part that needs a child (all but the overview and sharing) is offered only when there is one.

import { $ } from "./common.js";

export const TABS = ["overview", "care", "growth", "milestones", "posts", "health", "illnesses", "calendar", "contacts", "export", "sharing"];
const WITHOUT_A_CHILD = ["overview", "sharing"];

let shown = null;
let offered = new Set(TABS);

const button = (name) => $(`tab-${name}`);
const panel = (name) => $(`panel-${name}`);

/** The part the hash names ("#/growth" → "growth"), or null. */
function fromHash() {
  const name = location.hash.replace(/^#\/?/, "");
  return TABS.includes(name) ? name : null;
}

/** Shows the part `name` (or the overview, if it is not offered now), without touching the hash. */
function show(name) {
  const chosen = offered.has(name) ? name : "overview";
  for (const tab of TABS) {
    const selected = tab === chosen;
    button(tab).setAttribute("aria-selected", String(selected));
    button(tab).tabIndex = selected ? 0 : -1;
    panel(tab).hidden = !selected;
  }
  const row = $("tablist");
  const active = button(chosen);
  // The chosen tab in the middle of a row that scrolls sideways, the page itself left where it is.
  row.scrollLeft = Math.max(0, active.offsetLeft - (row.clientWidth - active.offsetWidth) / 2);
  // A part opened from a row that stuck to the top while the last part was read far down starts
  // at its beginning, just below the row.
  const top = $("parts").getBoundingClientRect().top;
  if (shown !== null && shown !== chosen && top < row.offsetHeight) window.scrollBy(0, top - row.offsetHeight);
  const opened = shown !== chosen;
  shown = chosen;
  document.body.dataset.tab = chosen;
  // A part that reads its data while open (care.js) hears that it was opened again.
  if (opened) document.dispatchEvent(new CustomEvent("diary-part-shown", { detail: chosen }));
}

/** Opens the part `name` as a tab press does: the hash changes (a history entry), the part shows. */
export function openTab(name) {
  if (location.hash === `#/${name}`) show(name);
  else location.hash = `/${name}`;
}

/** Offers only the parts that make sense with or without a child; the part shown falls back to the overview. */
export function offerTabs(hasChild) {
  offered = new Set(hasChild ? TABS : WITHOUT_A_CHILD);
  for (const tab of TABS) button(tab).hidden = !offered.has(tab);
  show(fromHash() || shown || "overview");
}

/** Binds the tab row and the hash; shows the part the address names, else the overview. */
export function bindTabs() {
  for (const tab of TABS) {
    button(tab).addEventListener("click", () => openTab(tab));
  }
  $("tablist").addEventListener("keydown", (event) => {
    const visible = TABS.filter((tab) => offered.has(tab));
    const at = visible.indexOf(shown);
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: visible.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const name = visible[(next + visible.length) % visible.length];
    openTab(name);
    button(name).focus();
  });
  window.addEventListener("hashchange", () => {
    const name = fromHash();
    if (name) show(name);
  });
  show(fromHash() || "overview");
}
