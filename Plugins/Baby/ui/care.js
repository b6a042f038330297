// Daily care on the baby diary's page (the "Daily care" tab, docs/baby.md "The page"): the chosen
// child's feeds, sleep, nappies, pumping and tummy time, as a parent keeps them through the day.
//
// - At a glance: the last feed, sleep and nappy as sentences ("Last feed 2 h 10 min ago:
//   breastfeed, left side, 12 min"), from `care-list`'s `last` and `now`. A feed and a nappy are
//   counted from their start, a sleep from when the child woke. A timer running says so instead.
// - Timers: a start button for a breastfeed on the left or right, a bottle, sleep, pumping and
//   tummy time (`care-start`); each running timer with its time ticking and Stop (`care-stop`; a
//   bottle or pumping asks for the amount first). The buttons of a kind that runs are hidden.
// - Quick add: a nappy in one tap (wet, dirty, both; the stool's colour optional), at the host's
//   time read just before; and a form for an earlier feed, sleep, pumping, tummy time or nappy
//   with its times (`care-add`), which also edits an entry of today's log (`care-update`).
// - Today's log, newest first, with Edit and Delete (`care-delete`), and the last 7 days
//   (`care-summary`) as two small SVG bar charts (feeds, hours of sleep) drawn in baby.css's
//   classes, with the same numbers as text for screen readers.
//
// Times are the child's local times "YYYY-MM-DDTHH:MM" as the module writes them; the page shows
// them as written (never converted to another zone), and measures "how long ago" and a timer's
// time from the host's `now` plus the time the page itself has counted since it read it (display
// only: what is recorded is always the host's time). While the tab is open the page reads the
// log again every 30 seconds (a timer started on another device then appears), and the sentences'
// "ago" follow. A refusal is a sentence from the catalogue, under the form or buttons it concerns.

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t, language } from "/console/i18n.js";
import { time, dateTime, duration, number, dayMonth } from "/console/format.js";
import { errorText } from "/console/errors.js";
import { PLUGIN, $, named, numberIn, clearFormError } from "./common.js";

const SVG = "http://www.w3.org/2000/svg";
const KINDS = ["feed", "sleep", "nappy"];  // what the glance tells of, in this order
const AGAIN = 30000;  // how often the open tab reads the log again (and the glance's "ago" follows), ms

let childId = () => "";
let done = null;

/** The host's time as `care-list` last said it (a local Date), and when the page heard it. */
const host = { now: null, text: "", heardAt: 0 };
let care = { running: [], entries: [], last: {}, now: "" };
let shownChild = null;
let reading = 0;  // the latest read's number: an older answer arriving late is dropped
let lastRead = -Infinity;
let lastGlance = -Infinity;
let readSinceOpened = false;  // whether the tab read the log since it was last opened

/** A local moment "2026-03-02T09:05" as a Date in the browser's zone (shown as written, as common.js does). */
function local(text) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(String(text || ""));
  return m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5])) : null;
}

/** The host's time now, as far as the page knows: its last `now` and the time counted since. */
function hostNow() {
  return host.now ? new Date(host.now.getTime() + (performance.now() - host.heardAt)) : new Date();
}

/** Whole minutes from the local moment `text` to the host's time now (never negative). */
function minutesSince(text) {
  const at = local(text);
  return at ? Math.max(0, Math.floor((hostNow() - at) / 60000)) : 0;
}

/** "12 min", "1 h 30 min": minutes as the person reads a duration. */
const span = (minutes) => duration(Math.max(0, Math.round(Number(minutes) || 0)) * 60);

/** A timer's time so far: "under a minute", "12 min". */
const soFar = (minutes) => (minutes < 1 ? t("care.underMinute") : span(minutes));

/** "just now", "12 min ago", and a day and time once it is a day or more ago. */
function ago(text) {
  const minutes = minutesSince(text);
  if (minutes < 1) return t("care.justNow");
  if (minutes >= 24 * 60) return t("care.longAgo", { moment: dateTime(local(text)) });
  return t("care.ago", { duration: span(minutes) });
}

/** A time of day "9:05" of a local moment, or the day and time when it is not the host's today. */
function clockTime(text) {
  const at = local(text);
  if (!at) return "";
  return host.text && String(text).slice(0, 10) !== host.text.slice(0, 10) ? dateTime(at) : time(at);
}

const isBreast = (entry) => entry.kind === "feed" && (entry.method || "breast") === "breast";
const takesAmount = (entry) => entry.kind === "pumping" || (entry.kind === "feed" && entry.method === "bottle");

/** "wet", "dirty (yellow)". */
function nappyText(entry) {
  const what = named("care.nappy", entry.nappy);
  return entry.colour ? t("care.nappyColour", { what, colour: named("care.colours", entry.colour) }) : what;
}

/**
 * An entry in a few words: "Breastfeed, left side, 12 min", "Bottle, 120 ml, 10 min", "Sleep,
 * 1 h 30 min", "Nappy — dirty (yellow)"; `lower` starts with a small letter (after a colon in a
 * sentence), `note` adds the parent's note.
 */
export function describeEntry(entry, { lower = false, note = true } = {}) {
  let head;
  if (entry.kind === "nappy") head = t("care.entryNappy", { what: nappyText(entry) });
  else if (entry.kind === "feed" && entry.method === "solids" && entry.food) head = t("care.entrySolids", { food: entry.food });
  else head = entry.kind === "feed" ? named("care.methods", entry.method || "breast") : named("care.kinds", entry.kind);
  if (lower) head = head.charAt(0).toLocaleLowerCase(language()) + head.slice(1);
  const details = [];
  if (entry.side && (isBreast(entry) || entry.kind === "pumping")) details.push(named("care.sides", entry.side));
  if (entry.amountMl !== null && entry.amountMl !== undefined) details.push(t("care.ml", { value: number(entry.amountMl, 0) }));
  // An entry added without its end has no length worth saying (the module answers 0).
  if (entry.durationMinutes > 0 && entry.kind !== "nappy" && entry.method !== "solids") details.push(span(entry.durationMinutes));
  const what = [head, ...details].join(", ");
  return note && entry.note ? t("record.withNote", { what, note: entry.note }) : what;
}

/** The running timer of `kind`, if one runs. */
const runningOf = (kind) => care.running.find((entry) => entry.kind === kind) || null;

/** The glance: the last feed, sleep and nappy in sentences, each "ago" against the host's time. */
function showGlance() {
  lastGlance = performance.now();
  const list = $("care-glance");
  clear(list);
  if (!host.now) return;
  for (const kind of KINDS) list.append(el("li", { "data-kind": kind }, glanceSentence(kind)));
}

function glanceSentence(kind) {
  const running = kind === "nappy" ? null : runningOf(kind);
  const last = care.last && care.last[kind];
  if (kind === "feed") {
    if (running) return t("care.glance.feedRunning", { what: describeEntry(running, { lower: true, note: false }), duration: soFar(minutesSince(running.startedAt)) });
    return last ? t("care.glance.feed", { when: ago(last.startedAt), what: describeEntry(last, { lower: true, note: false }) }) : t("care.glance.noFeed");
  }
  if (kind === "sleep") {
    if (running) return t("care.glance.sleepRunning", { duration: soFar(minutesSince(running.startedAt)), time: clockTime(running.startedAt) });
    if (!last) return t("care.glance.noSleep");
    if (last.endedAt && last.durationMinutes > 0) {
      return t("care.glance.sleep", { duration: span(last.durationMinutes), when: ago(last.endedAt) });
    }
    return t("care.glance.sleepStarted", { when: ago(last.startedAt) });
  }
  return last ? t("care.glance.nappy", { when: ago(last.startedAt), what: nappyText(last) }) : t("care.glance.noNappy");
}

/** A running timer: what it is, its time ticking, an amount for a bottle or pumping, and Stop. */
function timerItem(entry) {
  const amountId = `care-timer-amount-${entry.id}`;
  const amount = takesAmount(entry)
    ? el("div", { class: "field" }, el("label", { for: amountId }, t("care.amount")), " ",
         el("input", { id: amountId, name: "amountMl", type: "number", min: 1, max: 1000, step: 1, inputmode: "numeric" }))
    : null;
  const stop = el("button", { type: "submit", "aria-label": t("care.stopLabel", { what: describeEntry(entry, { note: false }) }) }, t("care.stop"));
  const form = el("form", { id: `care-timer-${entry.id}`, class: "care-timer", novalidate: true },
                  el("p", { class: "care-elapsed" }), amount, el("p", { class: "actions" }, stop));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = { id: entry.id };
    const ml = amount ? numberIn(form.querySelector("input[name=amountMl]")) : null;
    if (ml !== null) input.amountMl = ml;
    const change = callOperation(PLUGIN, "care-stop", input);
    const message = (stopped) => t("care.recorded", { what: describeEntry(stopped && stopped.kind ? stopped : entry, { lower: true, note: false }) });
    if (await done(change, message, form)) {
      // The timer's card is gone: the keyboard goes on from the start button that is back.
      const again = document.querySelector(`#care-start-form [data-kind="${entry.kind}"]:not([hidden])`);
      if (again && !form.isConnected) again.focus();
      return;
    }
    // Stopped or removed elsewhere meanwhile: the log read again shows how things are, and the
    // sentence goes to the status line when the timer's form has gone with it.
    await showCare();
    if (!form.isConnected) change.catch((error) => { $("status").textContent = errorText(error); });
  });
  const item = el("li", { "data-id": entry.id, "data-kind": entry.kind }, form);
  item.entry = entry;
  return item;
}

/** The running timers (a form being filled in is kept as it is), and the start buttons of the kinds not running. */
function showRunning() {
  const list = $("care-running");
  const ids = new Set(care.running.map((entry) => entry.id));
  for (const item of [...list.children]) if (!ids.has(item.dataset.id)) item.remove();
  for (const entry of care.running) {
    const item = [...list.children].find((node) => node.dataset.id === entry.id);
    if (item) item.entry = entry; else list.append(timerItem(entry));
  }
  $("care-no-running").hidden = care.running.length > 0;
  const kinds = new Set(care.running.map((entry) => entry.kind));
  for (const button of document.querySelectorAll("#care-start-form [data-kind]")) button.hidden = kinds.has(button.dataset.kind);
  tick();
}

/** Each running timer's time so far. */
function tick() {
  for (const item of $("care-running").children) {
    const entry = item.entry;
    if (!entry) continue;
    const text = t("care.running", { what: describeEntry(entry, { note: false }), duration: soFar(minutesSince(entry.startedAt)), time: clockTime(entry.startedAt) });
    const line = item.querySelector(".care-elapsed");
    if (line.textContent !== text) line.textContent = text;
  }
}

/** Today's entries, newest first (the running ones are the timers above), each with Edit and Delete. */
function showLog() {
  const list = $("care-log");
  clear(list);
  const running = new Set(care.running.map((entry) => entry.id));
  const entries = (care.entries || []).filter((entry) => !running.has(entry.id));
  // Who added an entry is said only where the day has more than one author (a shared child).
  const authors = new Set(entries.map((entry) => entry.authorName || ""));
  for (const entry of entries) list.append(logItem(entry, authors.size > 1));
  if (!entries.length) list.append(el("li", { class: "muted" }, t("care.logEmpty")));
}

function logItem(entry, withAuthor) {
  const from = clockTime(entry.startedAt);
  const when = entry.endedAt && entry.endedAt !== entry.startedAt ? t("care.span", { from, to: clockTime(entry.endedAt) }) : from;
  const what = describeEntry(entry);
  const label = { what: describeEntry(entry, { note: false }), time: when };
  const edit = el("button", { type: "button", class: "secondary", "aria-label": t("care.editLabel", label) }, t("diary.edit"));
  edit.addEventListener("click", () => openEdit(entry));
  const remove = el("button", { type: "button", class: "secondary", "aria-label": t("care.deleteLabel", label) }, t("diary.delete"));
  remove.addEventListener("click", async () => {
    if ($("care-entry-form").dataset.id === entry.id) closeEdit();
    await done(callOperation(PLUGIN, "care-delete", { id: entry.id }), t("care.deleted"));
  });
  const author = withAuthor && entry.authorName ? [" ", el("span", { class: "muted care-author" }, t("care.by", { name: entry.authorName }))] : [];
  return el("li", { "data-id": entry.id, "data-kind": entry.kind }, t("care.logItem", { when, what }), ...author, " ",
            el("span", { class: "record-actions" }, edit, remove));
}

/** "po", "dnes": a chart's day label. */
function weekday(day, isToday) {
  if (isToday) return t("care.today");
  return new Intl.DateTimeFormat(language(), { weekday: "short" }).format(new Date(`${day}T12:00`));
}

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A bar for each day (oldest first, today last), its value above it and its day below. */
function barChart(chart, days, value, label) {
  clear(chart);
  const width = 350, top = 24, base = 128;
  const slot = width / Math.max(days.length, 1);
  const values = days.map(value);
  const most = Math.max(1, ...values);
  chart.append(svg("line", { x1: 0, y1: base, x2: width, y2: base, class: "care-chart-axis" }));
  days.forEach((day, i) => {
    const height = (values[i] / most) * (base - top);
    const x = i * slot + slot * 0.2, middle = i * slot + slot / 2;
    const today = i === days.length - 1;
    if (height > 0) chart.append(svg("rect", { x, y: base - height, width: slot * 0.6, height, rx: 2, class: today ? "care-bar care-bar-today" : "care-bar" }));
    chart.append(svg("text", { x: middle, y: base - height - 6, "text-anchor": "middle", class: "care-chart-value" }, label(values[i])),
                 svg("text", { x: middle, y: base + 18, "text-anchor": "middle", class: today ? "care-chart-day care-chart-today" : "care-chart-day" }, weekday(day.day, today)),
                 svg("text", { x: middle, y: base + 35, "text-anchor": "middle", class: "care-chart-day" }, dayMonth(day.day)));
  });
}

/** The last 7 days: today's counts in a line, the two charts, and every day's numbers as text. */
function showWeek(days) {
  const today = days[days.length - 1];
  const counts = (day) => ({ feeds: t("care.feedCount", { count: day.feeds || 0 }), sleep: span(day.sleepMinutes || 0),
                             nappies: t("care.nappyCount", { count: day.nappies || 0 }) });
  $("care-today-totals").textContent = today ? t("care.todayTotals", counts(today)) : "";
  barChart($("care-feeds-chart"), days, (day) => day.feeds || 0, (v) => number(v, 0));
  barChart($("care-sleep-chart"), days, (day) => (day.sleepMinutes || 0) / 60, (v) => number(v, 1));
  const list = $("care-week-text");
  clear(list);
  const long = new Intl.DateTimeFormat(language(), { weekday: "long", day: "numeric", month: "numeric" });
  for (const day of days) list.append(el("li", {}, t("care.weekDay", { day: long.format(new Date(`${day.day}T12:00`)), ...counts(day) })));
}

/**
 * Reads the chosen child's care log and week (`care-list`, `care-summary`) and shows them. A
 * failure is said in the tab itself, so that the diary's other parts still show.
 */
export async function showCare() {
  const child = childId();
  const mine = ++reading;
  lastRead = performance.now();
  if (child !== shownChild) {
    shownChild = child;
    closeEdit();
    clear($("care-running"));
  }
  if (!child) return;
  try {
    const [list, summary] = await Promise.all([callOperation(PLUGIN, "care-list", { childId: child }),
                                               callOperation(PLUGIN, "care-summary", { childId: child, days: 7 })]);
    if (mine !== reading) return;
    host.now = local(list.now);
    host.text = String(list.now || "");
    host.heardAt = performance.now();
    care = { running: list.running || [], entries: list.entries || [], last: list.last || {}, now: list.now };
    $("care-problem").textContent = "";
    showGlance();
    showRunning();
    showLog();
    showWeek(summary.days || []);
    if (!$("care-entry-form").dataset.id && !$("care-at").value) $("care-at").value = host.text.slice(0, 16);
  } catch (error) {
    if (mine === reading) $("care-problem").textContent = errorText(error);
  }
}

/** The fields of the entry form each kind (and a feed's method) has. */
function fieldsFor(kind, method) {
  switch (kind) {
    case "feed": return ["method", ...(method === "solids" ? ["food"] : method === "bottle" ? ["amountMl", "endAt"] : ["side", "endAt"])];
    case "pumping": return ["side", "amountMl", "endAt"];
    case "nappy": return ["nappy", "colour"];
    default: return ["endAt"];  // sleep, tummy time
  }
}
const FIELDS = { method: "care-method-field", side: "care-side-field", endAt: "care-end-field", amountMl: "care-amount-field",
                 food: "care-food-field", nappy: "care-nappy-field", colour: "care-colour-field" };

function showEntryFields() {
  const wanted = fieldsFor($("care-kind").value, $("care-method").value);
  for (const [name, id] of Object.entries(FIELDS)) $(id).hidden = !wanted.includes(name);
  $("care-at-label").textContent = t(wanted.includes("endAt") ? "care.startAt" : "care.atTime");
}

/** The form's input for `care-add` or `care-update`: only the fields its kind has, and only those filled in. */
function entryInput() {
  const wanted = fieldsFor($("care-kind").value, $("care-method").value);
  const input = { at: $("care-at").value.slice(0, 16) };
  const text = (id) => $(id).value.trim();
  if (wanted.includes("method")) input.method = $("care-method").value;
  if (wanted.includes("side") && $("care-side").value) input.side = $("care-side").value;
  if (wanted.includes("endAt") && $("care-end").value) input.endAt = $("care-end").value.slice(0, 16);
  if (wanted.includes("amountMl") && numberIn($("care-amount")) !== null) input.amountMl = numberIn($("care-amount"));
  if (wanted.includes("food") && text("care-food")) input.food = text("care-food");
  if (wanted.includes("nappy")) input.nappy = $("care-nappy").value;
  if (wanted.includes("colour") && $("care-colour").value) input.colour = $("care-colour").value;
  if (text("care-note")) input.note = text("care-note");
  return input;
}

let formHome = null;  // where the entry form lives while it adds: [parent, the node after it]

/** Loads `entry` into the entry form, which opens right below today's log. */
function openEdit(entry) {
  const form = $("care-entry-form");
  clearFormError(form);
  form.reset();
  form.dataset.id = entry.id;
  $("care-entry-heading").textContent = t("care.editHeading");
  $("care-entry-help").hidden = true;
  $("care-kind").value = entry.kind;
  $("care-kind").disabled = true;  // an entry keeps its kind
  $("care-method").value = entry.method || "breast";
  $("care-side").value = entry.side || "";
  $("care-at").value = String(entry.startedAt || "").slice(0, 16);
  $("care-end").value = String(entry.endedAt || "").slice(0, 16);
  $("care-amount").value = entry.amountMl ?? "";
  $("care-food").value = entry.food || "";
  $("care-nappy").value = entry.nappy || "wet";
  $("care-colour").value = entry.colour || "";
  $("care-note").value = entry.note || "";
  showEntryFields();
  $("care-entry-submit").textContent = t("care.save");
  $("care-entry-cancel").hidden = false;
  $("care-log").after(form);
  $("care-at").focus();
}

/** Back to adding: the form empty, in its place under the quick add. */
function closeEdit() {
  const form = $("care-entry-form");
  if (!form.dataset.id) return;
  delete form.dataset.id;
  form.reset();
  clearFormError(form);
  $("care-kind").disabled = false;
  $("care-entry-heading").textContent = t("care.entryHeading");
  $("care-entry-help").hidden = false;
  $("care-entry-submit").textContent = t("care.add");
  $("care-entry-cancel").hidden = true;
  formHome[0].insertBefore(form, formHome[1]);
  showEntryFields();
  $("care-at").value = host.text.slice(0, 16);
}

/**
 * Binds the tab to the chosen child (`chosenChild()`); `report(change, message, form)` is the
 * page's: it waits for a change, shows the page again (this tab with it) and says how it went.
 * Starts the tab's own clock: the timers tick every second, and while the tab is open the log is
 * read again every 30 seconds.
 */
export function bindCare(chosenChild, report) {
  childId = chosenChild;
  done = report;
  const entryForm = $("care-entry-form");
  formHome = [entryForm.parentNode, entryForm.nextSibling];

  for (const button of document.querySelectorAll("#care-start-form [data-kind]")) {
    button.addEventListener("click", async () => {
      const input = { childId: childId(), kind: button.dataset.kind };
      if (button.dataset.method) input.method = button.dataset.method;
      if (button.dataset.side) input.side = button.dataset.side;
      const started = t("care.started", { what: describeEntry(input, { lower: true, note: false }) });
      // Refused (a timer of that kind already runs, perhaps started on another device): the log
      // read again shows it.
      if (await done(callOperation(PLUGIN, "care-start", input), started, $("care-start-form"))) {
        // The button gave way to the running timer: the keyboard goes on from its Stop.
        const stop = $("care-running").querySelector(`li[data-kind="${input.kind}"] button[type=submit]`);
        if (stop && button.hidden) stop.focus();
      } else {
        await showCare();
      }
    });
  }

  for (const button of document.querySelectorAll("#care-nappy-form [data-nappy]")) {
    button.addEventListener("click", async () => {
      const form = $("care-nappy-form");
      const input = { childId: childId(), kind: "nappy", nappy: button.dataset.nappy };
      if ($("care-nappy-colour").value && input.nappy !== "wet") input.colour = $("care-nappy-colour").value;
      // At the host's time, read just before: the page's own clock may not be the host's.
      const change = callOperation(PLUGIN, "care-list", { childId: input.childId })
        .then(({ now }) => callOperation(PLUGIN, "care-add", { ...input, at: now }));
      if (await done(change, t("care.nappyAdded", { what: nappyText(input) }), form)) $("care-nappy-colour").value = "";
    });
  }

  $("care-kind").addEventListener("change", showEntryFields);
  $("care-method").addEventListener("change", showEntryFields);
  showEntryFields();
  entryForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const input = entryInput();
    if (form.dataset.id) {
      if (await done(callOperation(PLUGIN, "care-update", { id: form.dataset.id, note: "", ...input }), t("care.saved"), form)) {
        closeEdit();
        $("care-log").focus();
      }
      return;
    }
    const kind = $("care-kind").value;
    const change = callOperation(PLUGIN, "care-add", { childId: childId(), kind, ...input });
    const message = (entry) => t("care.recorded", { what: describeEntry(entry && entry.kind ? entry : { kind, ...input }, { lower: true, note: false }) });
    // (An Edit pressed meanwhile has the form now: it is left as it is.)
    if (await done(change, message, form) && !form.dataset.id) {
      form.reset();
      showEntryFields();
      $("care-at").value = host.text.slice(0, 16);
    }
  });
  $("care-entry-cancel").addEventListener("click", () => {
    closeEdit();
    $("care-log").focus();
  });

  document.addEventListener("diary-part-shown", (event) => { if (event.detail === "care") readSinceOpened = false; });
  setInterval(() => {
    const open = document.body.dataset.tab === "care" && !document.hidden;
    if (!open) readSinceOpened = false;
    // Opened (or back on the screen): the log is read again once the last read is 2 seconds old
    // (another phone's timer shows), then every 30 seconds while the tab stays open.
    if (open && performance.now() - lastRead >= (readSinceOpened ? AGAIN : 2000)) {
      readSinceOpened = true;
      showCare();
    }
    if (open && performance.now() - lastGlance >= AGAIN) showGlance();
    tick();
  }, 1000);
}
