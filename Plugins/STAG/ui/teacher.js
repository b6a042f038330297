// The teacher's part of the IS/STAG page (spec §5.3): the exam terms they examine, each with the
// students registered for it (`teacher-exams`), and the students of one of their subjects
// (`subject-students`), the subjects offered being those of their timetable and their terms. Shown
// only to a person whose login has the teacher role.

import { callOperation } from "/console/api.js";
import { clear, el } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { clearError } from "/console/errors.js";
import { $, PLUGIN, clock, failure, refuse, staleNote, subjectLabel, termKind, when } from "./common.js";

/** "A20B0100P, Informatika, 2. ročník": who a student is, beyond the name. */
function studentDetails(student) {
  return [student.studentNumber, student.programme, student.year ? t("teaching.year", { year: student.year }) : null].filter(Boolean).join(", ");
}

/** The students, each with who they are beyond the name. */
export function studentList(students) {
  return el("ul", { class: "plain students" }, students.map((student) =>
    el("li", {}, el("strong", {}, student.name), el("br"), el("span", { class: "muted" }, studentDetails(student)))));
}

function termItem(term, names) {
  const name = term.subjectName !== term.subject ? term.subjectName : names.get(term.subject);
  const place = term.room ? "exams.whenInRoom" : "exams.when";
  const students = term.students ?? [];
  return el("li", { class: "term", "data-term": term.termId },
    el("h4", {}, subjectLabel(name, term.subject)),
    el("p", {}, t(place, { kind: termKind(term), at: when(term.start), room: term.room })),
    term.capacity != null ? el("p", {}, t("exams.seats", { occupied: term.occupied ?? 0, capacity: term.capacity })) : null,
    students.length
      ? el("details", {}, el("summary", {}, t("teaching.registered", { count: students.length })), studentList(students))
      : el("p", { class: "muted" }, t("teaching.nobodyRegistered")));
}

/**
 * Subject names by code from the teacher's classes: IS/STAG's list of terms carries no names, and
 * the module takes them from the student's subjects, which a teacher does not have.
 */
function subjectNames(events) {
  return new Map(events.filter((event) => event.subjectName).map((event) => [event.subject, event.subjectName]));
}

/** Offers the subjects of the teacher's classes and terms (by name) for the list of a subject's students. */
function offerSubjects(names, terms) {
  for (const term of terms) if (!names.has(term.subject)) names.set(term.subject, term.subject);
  const select = $("students-subject");
  clear(select);
  select.append(...[...names].sort((a, b) => a[1].localeCompare(b[1]))
    .map(([code, name]) => el("option", { value: code }, t("notes.subjectOption", { name, code }))));
}

/** Reads and draws the terms the teacher examines still ahead, and offers their subjects. */
export async function showTeaching(today) {
  const box = $("teacher-exams");
  try {
    const [exams, week] = await Promise.all([callOperation(PLUGIN, "teacher-exams", {}), callOperation(PLUGIN, "teacher-timetable", { date: today })]);
    clear(box);
    const names = subjectNames(week.data.events);
    const terms = exams.data.filter((term) => new Date(term.start) >= clock.now).sort((a, b) => new Date(a.start) - new Date(b.start));
    box.append(...[staleNote(exams)].filter(Boolean),
      terms.length ? el("ul", { class: "plain terms" }, terms.map((term) => termItem(term, names))) : el("p", { class: "muted" }, t("teaching.noTerms")));
    offerSubjects(names, exams.data);
  } catch (error) {
    clear(box);
    box.append(failure(error));
  }
}

/** Binds the form for a subject's students (once). */
export function bindTeaching() {
  $("students-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const box = $("subject-students");
    clearError({ form, output: $("students-error") });
    const input = { subject: $("students-subject").value };
    if ($("students-semester").value) input.semester = $("students-semester").value;
    try {
      const read = await callOperation(PLUGIN, "subject-students", input);
      clear(box);
      box.append(...[staleNote(read)].filter(Boolean),
        read.data.length ? el("p", {}, t("teaching.studentCount", { count: read.data.length })) : el("p", { class: "muted" }, t("teaching.noStudents")),
        read.data.length ? studentList(read.data) : "");
    } catch (error) {
      clear(box);
      refuse(form, $("students-error"), error);
    }
  });
}
