// The calendar (UC19) on the baby diary's page: a month grid (weeks from Monday) with each day's
// records by type (`calendar-month`) and this device's reminders due that day (`reminders-list`);
// previous and next month; choosing a day lists its items (`calendar-day`). The month is named in
// the person's language ("březen 2026"); `#calendar-month` keeps it as data-month="2026-03".

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t, has } from "/console/i18n.js";
import { month as monthName, longDate, time } from "/console/format.js";
import { PLUGIN, $, clock, describe, safely } from "./common.js";

let month = null;  // "YYYY-MM"

function shift(value, by) {
  const [year, number] = value.split("-").map(Number);
  const date = new Date(Date.UTC(year, number - 1 + by, 1));
  return date.toISOString().slice(0, 7);
}

/** "2 měření", "1 připomínka": how many of a type a day has. */
function count(type, n) {
  const key = `calendar.types.${type}`;
  return has(key) ? t(key, { count: n }) : `${type} ${n}`;
}

/** Shows `month` (or the current one on the host's clock) for the chosen children. */
export async function showCalendar(childIds, wanted) {
  month = wanted || month || clock.now.toISOString().slice(0, 7);
  const scope = childIds.length ? { childIds } : {};
  const [{ days }, { reminders }] = await Promise.all([
    callOperation(PLUGIN, "calendar-month", { month, ...scope }), callOperation(PLUGIN, "reminders-list", {}),
  ]);
  const byDay = new Map(days.map((day) => [day.date, day.types]));
  const due = new Map();
  for (const reminder of reminders) {
    const day = (reminder.next || "").slice(0, 10);
    if (day.startsWith(month)) due.set(day, (due.get(day) || 0) + 1);
  }
  $("calendar-month").textContent = monthName(month);
  $("calendar-month").dataset.month = month;
  const grid = $("calendar-grid");
  clear(grid);
  const [year, number] = month.split("-").map(Number);
  const first = new Date(Date.UTC(year, number - 1, 1));
  const daysInMonth = new Date(Date.UTC(year, number, 0)).getUTCDate();
  const lead = (first.getUTCDay() + 6) % 7;  // Monday first
  let week = el("tr");
  for (let i = 0; i < lead; i++) week.append(el("td"));
  for (let day = 1; day <= daysInMonth; day++) {
    const date = `${month}-${String(day).padStart(2, "0")}`;
    const types = byDay.get(date) || {};
    const lines = Object.entries(types).map(([type, n]) => el("div", { class: "calendar-type" }, count(type, n)));
    if (due.get(date)) lines.push(el("div", { class: "calendar-reminder" }, t("calendar.reminders", { count: due.get(date) })));
    const button = el("button", { type: "button", "data-date": date, "aria-label": t("calendar.showDay", { date: longDate(date) }) }, String(day));
    button.addEventListener("click", safely(() => showDay(childIds, date)));
    week.append(el("td", { "data-date": date }, button, ...lines));
    if ((lead + day) % 7 === 0) { grid.append(week); week = el("tr"); }
  }
  if (week.childNodes.length) {
    while (week.childNodes.length < 7) week.append(el("td"));
    grid.append(week);
  }
}

async function showDay(childIds, date) {
  const { items } = await callOperation(PLUGIN, "calendar-day", { date, ...(childIds.length ? { childIds } : {}) });
  const list = $("calendar-day");
  clear(list);
  $("calendar-day-heading").textContent = longDate(date);
  for (const item of items) {
    const at = item.date.length > 10 ? time(item.date) : null;
    list.append(el("li", {}, at ? t("calendar.itemAt", { time: at, what: describe(item) }) : describe(item)));
  }
  if (!items.length) list.append(el("li", {}, t("calendar.nothing")));
}

/** Binds the previous and next month buttons. */
export function bindCalendar(childIds) {
  $("calendar-previous").addEventListener("click", safely(() => showCalendar(childIds(), shift(month, -1))));
  $("calendar-next").addEventListener("click", safely(() => showCalendar(childIds(), shift(month, 1))));
}
