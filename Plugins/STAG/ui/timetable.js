// The timetable on the IS/STAG page: this week's classes (or, as the person chooses, one day's),
// with the previous and next week (or day) a button away; "Today" above shows today's. A person who both studies and teaches (a doctoral
// student) sees one timetable: the classes they attend (`timetable`) and those they teach
// (`teacher-timetable`) together, each saying which. Each class is coloured by its kind (lecture,
// practical class, seminar; a class of the page's stylesheet, never an inline style) and says its
// kind in the reader's words. Times are the university's wall clock ("9:20–11:00").

import { callOperation } from "/console/api.js";
import { clear, el } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { dateRange, longDate } from "/console/format.js";
import { $, PLUGIN, addDays, classKind, classKindName, failure, staleNote, subjectLabel, timeSpan, weekdayDate } from "./common.js";
import { openSubject } from "./catalogue.js";

const VIEW_SETTING = "stag.timetableView";  // day or week, this browser's choice

const view = { mode: "week", day: null, today: null, roles: { student: true, teacher: false } };
let drawing = 0;  // the latest read: an earlier one that answers later is not drawn over it

/** One class: its time, subject, kind, room and teacher; with both roles, whether one attends or teaches it. */
function classItem(event, bothRoles) {
  const room = (event.room || "").trim();
  const details = [classKindName(event), room ? t("timetable.room", { room }) : null, event.teacher].filter(Boolean);
  const about = el("button", { type: "button", class: "secondary class-about" }, t("timetable.about"));
  about.setAttribute("aria-label", t("timetable.aboutLabel", { subject: subjectLabel(event.subjectName, event.subject) }));
  about.addEventListener("click", () => openSubject(event.subject, { action: event.id, teaching: event.role === "teacher" }));
  return el("li", { class: `class kind-${classKind(event)}`, "data-subject": event.subject, "data-date": event.date },
    el("p", { class: "class-time" }, timeSpan(event.date, event.start, event.end)),
    el("p", { class: "class-name" }, subjectLabel(event.subjectName, event.subject)),
    el("p", { class: "class-details" }, details.join(" · ")),
    bothRoles && event.role ? el("p", { class: `class-role role-${event.role}` }, t(`timetable.roles.${event.role}`)) : null, about);
}

/** A list of classes, or the sentence that there are none. */
export function classList(events, bothRoles) {
  if (events.length === 0) return el("p", { class: "muted" }, t("timetable.noClasses"));
  return el("ul", { class: "classes" }, events.map((event) => classItem(event, bothRoles)));
}

/** Whether the person holds both roles (their classes then say which is which). */
function bothRoles() {
  return view.roles.student && view.roles.teacher;
}

/** The week holding `day`: the answers of the person's roles, their classes merged in order. */
async function readWeek(day) {
  const parts = [];
  if (view.roles.student) parts.push(["timetable", "student"]);
  if (view.roles.teacher || parts.length === 0) parts.push(["teacher-timetable", "teacher"]);
  const reads = await Promise.all(parts.map(([operation]) => callOperation(PLUGIN, operation, { date: day })));
  const events = reads.flatMap((read, index) => read.data.events.map((event) => ({ ...event, role: parts[index][1] })));
  events.sort((a, b) => `${a.date} ${a.start} ${a.subjectName}`.localeCompare(`${b.date} ${b.start} ${b.subjectName}`));
  return { ...reads[0].data, events, reads };
}

/** "Today, Monday 16 February 2026" or "Week 8 (even), 16–22 Feb 2026". */
function heading(week) {
  if (view.mode === "day") {
    const date = longDate(view.day);
    return view.day === view.today ? t("timetable.todayIs", { date }) : date;
  }
  return t("timetable.weekOf", { number: week.week, parity: t(`parity.${week.parity}`), range: dateRange(week.from, addDays(week.from, 6)) });
}

/** The week's days, Monday to Friday always and the weekend when it has classes, each with its classes. */
function weekDays(week) {
  const days = [];
  for (let offset = 0; offset < 7; offset++) {
    const day = addDays(week.from, offset);
    const events = week.events.filter((event) => event.date === day);
    if (offset >= 5 && events.length === 0) continue;
    const title = weekdayDate(day);
    days.push(el("section", { class: day === view.today ? "day today" : "day", "data-date": day },
      el("h3", {}, day === view.today ? t("timetable.todayMark", { date: title }) : title),
      classList(events, bothRoles())));
  }
  return days;
}

/** The buttons' words follow the view: "previous day" or "previous week". */
function labelButtons() {
  const unit = view.mode === "day" ? "Day" : "Week";
  $("timetable-previous").textContent = t("timetable.previous");
  $("timetable-previous").setAttribute("aria-label", t(`timetable.previous${unit}`));
  $("timetable-next").textContent = t("timetable.next");
  $("timetable-next").setAttribute("aria-label", t(`timetable.next${unit}`));
  $("timetable-today").textContent = t(view.mode === "day" ? "timetable.today" : "timetable.thisWeek");
  $("view-day").setAttribute("aria-pressed", String(view.mode === "day"));
  $("view-week").setAttribute("aria-pressed", String(view.mode === "week"));
}

/** Reads and draws the chosen day or week. */
export async function showTimetable() {
  labelButtons();
  const box = $("timetable");
  const mine = ++drawing;
  try {
    const week = await readWeek(view.day);
    if (mine !== drawing) return;
    clear(box);
    $("timetable-when").textContent = heading(week);
    box.append(...week.reads.map(staleNote).filter(Boolean));
    if (view.mode === "day") box.append(classList(week.events.filter((event) => event.date === view.day), bothRoles()));
    else box.append(...weekDays(week));
  } catch (error) {
    if (mine !== drawing) return;
    clear(box);
    box.append(failure(error));
  }
}

/** Moves by a day or a week (`direction` −1 or +1), or back to today (0). */
function move(direction) {
  view.day = direction === 0 ? view.today : addDays(view.day, direction * (view.mode === "day" ? 1 : 7));
  return showTimetable();
}

function choose(mode) {
  view.mode = mode;
  localStorage.setItem(VIEW_SETTING, mode);
  return showTimetable();
}

/** Starts the timetable at `today` (the host's day, from `overview`) for the person's `roles`. */
export async function startTimetable(today, roles) {
  view.today = view.day = today;
  view.roles = roles;
  view.mode = localStorage.getItem(VIEW_SETTING) === "day" ? "day" : "week";  // the week by default: "Today" above shows the day
  await showTimetable();
}

/** Binds the timetable's buttons (once). */
export function bindTimetable() {
  $("timetable-previous").addEventListener("click", () => move(-1));
  $("timetable-next").addEventListener("click", () => move(1));
  $("timetable-today").addEventListener("click", () => move(0));
  $("view-day").addEventListener("click", () => choose("day"));
  $("view-week").addEventListener("click", () => choose("week"));
}
