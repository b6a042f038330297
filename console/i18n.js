// The person's language on every page: Czech, Slovak or English (docs/console.md, "Languages").
//
// A page's text lives in message catalogues, one JSON file per language: the console's own
// (/console/messages/<lang>.json: words every page shares, such as the generic error sentences)
// and the page's (a module ships ui/messages/<lang>.json beside its index.html). The HTML names
// its text by key (data-i18n="key", data-i18n-attr="placeholder:key aria-label:key"), scripts
// call t("key", {name: value}). A message may be plural: {"one": "…", "few": "…", "other": "…"},
// chosen by the parameter `count` with the language's plural rules.
//
// The language is the person's setting (kept in this browser; the console's header sets it), and
// otherwise the first of the browser's languages (its Accept-Language) that we have, else English.
// A key missing from the catalogue is shown as the key and reported as a console error, which
// every browser test fails on.

export const LANGUAGES = ["cs", "sk", "en"];
const SETTING = "tessera.language";
let current = null;
let messages = {};
let plurals = null;

/** The person's language: their setting, else the browser's first language we have, else English. */
export function language() {
  if (current) return current;
  const setting = localStorage.getItem(SETTING);
  if (LANGUAGES.includes(setting)) return setting;
  for (const tag of navigator.languages || [navigator.language]) {
    const base = String(tag || "").toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

/** Keeps `lang` as the person's setting (every page of this host reads it). */
export function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) throw new Error(`unknown language ${lang}`);
  localStorage.setItem(SETTING, lang);
  current = null;
}

/**
 * Loads the catalogues for the person's language, sets <html lang>, and translates the page.
 * `catalogues` are folder URLs holding <lang>.json; the console's own always comes first, so a
 * page's key of the same name wins. Returns t.
 */
export async function startLanguage(catalogues = []) {
  current = language();
  document.documentElement.lang = current;
  plurals = new Intl.PluralRules(current);
  messages = {};
  for (const folder of ["/console/messages", ...catalogues]) {
    const response = await fetch(`${folder}/${current}.json`, { cache: "no-cache" });
    if (!response.ok) throw new Error(`no ${current} catalogue at ${folder}`);
    Object.assign(messages, await response.json());
  }
  translate(document);
  return t;
}

/** Whether the catalogues have `key` (for optional messages, such as a plugin's error codes). */
export function has(key) {
  return Object.hasOwn(messages, key);
}

/** The message `key` in the person's language, with {name} replaced by params.name. */
export function t(key, params = {}) {
  let message = messages[key];
  if (message === undefined) {
    console.error(`missing message "${key}" in the ${current} catalogue`);
    return key;
  }
  if (typeof message === "object") message = message[plurals.select(Number(params.count ?? 0))] ?? message.other;
  return message.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/**
 * Puts the messages into the elements under `root` that name them: data-i18n sets the text,
 * data-i18n-attr sets attributes ("placeholder:key aria-label:key").
 */
export function translate(root) {
  for (const node of root.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of node.dataset.i18nAttr.split(/\s+/).filter(Boolean)) {
      const [attribute, key] = pair.split(":");
      node.setAttribute(attribute, t(key));
    }
  }
}
