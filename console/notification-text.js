// A notification's title and body in the reader's language and time zone (docs/console.md,
// "Notifications"). A plugin that schedules a notification with a message (SDK 1.8) names a key
// of its page's catalogue and typed values; here the key's ".title" and ".body" are looked up in
// the plugin's catalogue (/ui/<plugin>/messages/<lang>.json) and the values formatted for the
// reader: an instant as a time (and the date when it is not today), a distance in m or km, a
// number with the language's separators. Without a message, or where the catalogue lacks the key,
// the text the plugin wrote is shown, as webhooks and e-mails show it.

import { language } from "./i18n.js";
import { date, dateTime, time, number, distance, duration } from "./format.js";

const catalogues = new Map();

/** The catalogue of `plugin`'s page in the reader's language, or null (fetched once per page). */
function catalogue(plugin, pages) {
  if (!pages.has(plugin)) return Promise.resolve(null);
  if (!catalogues.has(plugin)) {
    const url = new URL(`messages/${language()}.json`, new URL(pages.get(plugin), location.href));
    catalogues.set(plugin, fetch(url, { cache: "no-cache" })
      .then((response) => (response.ok ? response.json() : null))
      .catch(() => null));
  }
  return catalogues.get(plugin);
}

/** One typed value as the reader reads it. */
function formatValue(value, now) {
  if ("text" in value) return value.text;
  if ("number" in value) return number(value.number);
  if ("instant" in value) {
    const at = new Date(value.instant);
    return at.toDateString() === now.toDateString() ? time(at) : dateTime(at);
  }
  if ("day" in value) return date(value.day);
  if ("meters" in value) return distance(value.meters);
  if ("seconds" in value) return duration(value.seconds);
  return "";
}

/** A catalogue message with its {placeholders} filled; plural forms chosen by `count`. */
function fill(message, values, raw) {
  if (typeof message === "object" && message !== null) {
    const count = Number(raw.count?.number ?? 0);
    message = message[new Intl.PluralRules(language()).select(count)] ?? message.other;
  }
  return String(message).replace(/\{(\w+)\}/g, (whole, name) => (name in values ? values[name] : whole));
}

/**
 * {title, body} of an inbox entry for the reader. `pages` maps a plugin's id to its page's URL
 * (GET /v1/plugins, ui.url): only a plugin with a page has a catalogue.
 */
export async function notificationText(entry, pages, now = new Date()) {
  const fallback = { title: entry.title, body: entry.body };
  const message = entry.message;
  if (!message) return fallback;
  const messages = await catalogue(entry.plugin, pages);
  const title = messages?.[`${message.key}.title`];
  if (title === undefined) return fallback;
  const values = {};
  for (const [name, value] of Object.entries(message.values || {})) values[name] = formatValue(value, now);
  const body = messages[`${message.key}.body`];
  return { title: fill(title, values, message.values || {}), body: body === undefined ? entry.body : fill(body, values, message.values || {}) };
}
