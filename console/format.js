// Dates, times, numbers, money, distances and coordinates as the person reads them: in their
// language's conventions (the browser's Intl, no library) and their time zone (the browser's).
// Pages show nothing in ISO form or with a float's full precision (docs/console.md, "Formatting").

import { language, t } from "./i18n.js";

const cache = new Map();
function formatter(kind, options) {
  const key = `${language()}|${kind}|${JSON.stringify(options)}`;
  if (!cache.has(key)) {
    const make = { date: Intl.DateTimeFormat, number: Intl.NumberFormat, relative: Intl.RelativeTimeFormat, list: Intl.ListFormat }[kind];
    cache.set(key, new make(language(), options));
  }
  return cache.get(key);
}

/**
 * A Date from what the API answers: an instant ("2026-11-28T14:42:20Z", or milliseconds), or a
 * calendar day ("2026-11-28"), which is that day in the person's zone, not UTC midnight.
 */
export function toDate(value) {
  if (value instanceof Date) return value;
  if (typeof value === "number") return new Date(value);
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(value));
  if (day) return new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
  return new Date(value);
}

/** "28. 11. 2026" / "11/28/2026": a calendar day. */
export function date(value) {
  return formatter("date", { dateStyle: "medium" }).format(toDate(value));
}

/** "sobota 28. listopadu 2026": a day spelled out, for headings. */
export function longDate(value) {
  return formatter("date", { dateStyle: "full" }).format(toDate(value));
}

/** "2. 3." / "3/2": a day of the year, short (chart axes). */
export function dayMonth(value) {
  return formatter("date", { day: "numeric", month: "numeric" }).format(toDate(value));
}

/** "2.–8. 3. 2026" / "Mar 2 – 8, 2026": a span of days. */
export function dateRange(from, to) {
  return formatter("date", { dateStyle: "medium" }).formatRange(toDate(from), toDate(to));
}

/** "15:42": a time of day. */
export function time(value) {
  return formatter("date", { timeStyle: "short" }).format(toDate(value));
}

/** "28. 11. 2026 15:42": a day and its time. */
export function dateTime(value) {
  return formatter("date", { dateStyle: "medium", timeStyle: "short" }).format(toDate(value));
}

/** "listopad 2026": a month ("2026-11" or any day in it). */
export function month(value) {
  const text = String(value);
  const d = /^\d{4}-\d{2}$/.test(text) ? toDate(`${text}-01`) : toDate(value);
  return formatter("date", { month: "long", year: "numeric" }).format(d);
}

const UNITS = [["year", 365 * 86400], ["month", 30 * 86400], ["week", 7 * 86400], ["day", 86400], ["hour", 3600], ["minute", 60]];

/**
 * "in 25 minutes", "před 3 dny", "now": how far `value` is from `now` (the host's clock on a
 * virtual deployment), in the largest unit that fits.
 */
export function relative(value, now = new Date()) {
  const seconds = (toDate(value).getTime() - toDate(now).getTime()) / 1000;
  const rtf = formatter("relative", { numeric: "auto" });
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return rtf.format(Math.round(seconds / size), unit);
  }
  return rtf.format(0, "minute");
}

/** A number with the language's separators, at most `digits` decimals. */
export function number(value, digits = 2) {
  return formatter("number", { maximumFractionDigits: digits }).format(Number(value));
}

/**
 * "1 234,50 Kč" / "CZK 1,234.50": an amount (a decimal string or a number) in its currency;
 * `sign: true` shows "+" before income as well as "−" before spending.
 */
export function money(amount, currency, { sign = false } = {}) {
  const value = Number(amount);
  try {
    return formatter("number", { style: "currency", currency, signDisplay: sign ? "exceptZero" : "auto" }).format(value);
  } catch {
    return `${number(value, 2)} ${currency}`;  // not an ISO 4217 code
  }
}

/** "850 m", "12,3 km": a distance in metres, rounded to what a person can use. */
export function distance(metres) {
  const m = Number(metres);
  const metresFormat = formatter("number", { style: "unit", unit: "meter", maximumFractionDigits: 0 });
  if (Math.abs(m) < 100) return metresFormat.format(Math.round(m));
  if (Math.abs(m) < 1000) return metresFormat.format(Math.round(m / 10) * 10);
  return formatter("number", { style: "unit", unit: "kilometer", maximumFractionDigits: Math.abs(m) < 100000 ? 1 : 0 }).format(m / 1000);
}

/** "25 min", "2 h 5 min": a span of seconds. */
export function duration(seconds) {
  const total = Math.max(0, Math.round(Number(seconds) / 60));
  const hours = Math.floor(total / 60), minutes = total % 60;
  const unit = (value, name) => formatter("number", { style: "unit", unit: name, unitDisplay: "short" }).format(value);
  if (hours === 0) return unit(minutes, "minute");
  return minutes === 0 ? unit(hours, "hour") : `${unit(hours, "hour")} ${unit(minutes, "minute")}`;
}

/** "49,96330° s. š., 14,07500° v. d.": a position to five decimals (about a metre). */
export function coordinates(latitude, longitude) {
  const fixed = formatter("number", { minimumFractionDigits: 5, maximumFractionDigits: 5 });
  const part = (value, positive, negative) => `${fixed.format(Math.abs(value))}° ${t(value >= 0 ? positive : negative)}`;
  return `${part(Number(latitude), "format.north", "format.south")}, ${part(Number(longitude), "format.east", "format.west")}`;
}

/** "Anna, Petr a Eva": a list joined as the language joins one. */
export function list(items) {
  return formatter("list", { style: "long", type: "conjunction" }).format(items.map(String));
}
