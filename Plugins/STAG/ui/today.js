// "Today" on the IS/STAG page, from `overview` (spec §5.1.3, the screen the thesis's app opens on):
// the date and the week's parity, the next classes of the day (at most two whose end is ahead) or
// that the day is done, the exams one is registered for, the deadlines of the next seven days, and
// the notes due within a week.

import { clear, el } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { longDate } from "/console/format.js";
import { $, staleNote, when } from "./common.js";
import { classList } from "./timetable.js";
import { dueText } from "./notes.js";

/** The sentence on today's classes: none, done, or how many, and the next ones. */
function classesPart(data, bothRoles) {
  if (data.todayCount === 0) return [el("p", {}, t("today.noClasses"))];
  if (data.doneForToday) return [el("p", {}, t("today.done"))];
  return [el("p", {}, t("today.classes", { count: data.todayCount }), " ", t("today.next")), classList(data.classes, bothRoles)];
}

/** A heading and a list, or nothing when there is nothing to list. */
function listPart(headingKey, items) {
  if (items.length === 0) return [];
  return [el("h3", {}, t(headingKey)), el("ul", { class: "plain" }, items)];
}

function examItem(term) {
  const key = term.room ? "today.examInRoom" : "today.exam";
  return el("li", {}, t(key, { name: term.subjectName, at: when(term.start), room: term.room }));
}

/** "Registration for Programování closes 24. 2. 2026 9:00." and the like. */
function deadlineItem(deadline) {
  return el("li", {}, t(`today.deadlines.${deadline.kind}`, { name: deadline.subjectName, at: when(deadline.at), start: when(deadline.start) }));
}

function noteItem(note) {
  return el("li", {}, el("strong", {}, note.title), " ", dueText(note));
}

/** Draws the overview's answer. */
export function showToday(overview, roles) {
  const box = $("today");
  const data = overview.data;
  clear(box);
  box.append(...[staleNote(overview)].filter(Boolean),
    el("p", { class: "when" }, t("today.date", { date: longDate(data.date), week: data.week, parity: t(`parity.${data.parity}`) })),
    ...classesPart(data, roles.student && roles.teacher),
    ...listPart("today.examsHeading", data.exams.map(examItem)),
    ...listPart("today.deadlinesHeading", data.deadlines.map(deadlineItem)),
    ...listPart("today.notesHeading", data.notes.map(noteItem)));
}
