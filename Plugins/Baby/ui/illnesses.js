// Illnesses and injuries on the baby diary's page (UC24–UC28): the chosen child's problems, each
// with its whole course from `problem-get` (a chart of its temperatures against the fever
// thresholds (fever-chart.js), the temperatures with their fever class, symptoms (with a photo, if
// one was taken), doctor visits, medications with a button that turns their dosing reminders on or off on this device), and forms
// to open one, end (or reopen) it, add a symptom (its photo uploaded first), a visit (to a saved doctor, with an optional
// reminder on this device) or a medication (a dose at a time of day, reminders optional), and
// assign a symptom, temperature or visit to a problem (or none) afterwards (`record-assign`).
// The temperature form (forms.js) may name a problem too: the selects are filled from here.

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { date, list as listOf } from "/console/format.js";
import { PLUGIN, $, when, celsius, named, timeOfDay, doctorNames } from "./common.js";
import { temperatureChart } from "./fever-chart.js";
import { photoImage, uploadPhoto } from "./photos.js";

const PROBLEM_SELECTS = ["temperature-problem", "symptom-problem", "visit-problem", "medication-problem", "problem-end-which", "assign-problem"];
const ASSIGNABLE = ["symptom", "temperature", "doctor_visit"];
const REQUIRED = ["medication-problem", "problem-end-which"];  // selects with no "none" choice

/** Lists `childId`'s illnesses and injuries, newest first, with their course. */
export async function showProblems(childId, done) {
  clear($("problems"));
  for (const id of PROBLEM_SELECTS) {
    clear($(id));
    if (!REQUIRED.includes(id)) $(id).append(el("option", { value: "" }, t("problems.noProblem")));
  }
  const chosen = $("assign-record").value;
  clear($("assign-record"));
  if (!childId) return;
  const { items } = await callOperation(PLUGIN, "timeline", { childIds: [childId], types: ["health_problem"], includeFuture: true, limit: 200 });
  const names = new Map(items.map((item) => [item.id, item.name]));
  for (const item of items) {
    const course = await callOperation(PLUGIN, "problem-get", { id: item.id });
    $("problems").append(problemItem(course, done));
    for (const id of PROBLEM_SELECTS) $(id).append(el("option", { value: item.id }, t("problems.option", { name: item.name, date: when(item.date) })));
  }
  if (!items.length) $("problems").append(el("li", { class: "muted" }, t("problems.none")));
  const records = await callOperation(PLUGIN, "timeline", { childIds: [childId], types: ASSIGNABLE, includeFuture: true, limit: 200 });
  for (const record of records.items) {
    const what = record.type === "temperature" ? celsius(record.value) : record.type === "symptom" ? record.name : named("types", "doctor_visit");
    const text = record.problemId
      ? t("problems.assignOptionIn", { date: when(record.date), what, problem: names.get(record.problemId) || t("problems.someProblem") })
      : t("problems.assignOption", { date: when(record.date), what });
    $("assign-record").append(el("option", { value: record.id, selected: record.id === chosen }, text));
  }
}

function problemItem(course, done) {
  const p = course.problem;
  const kind = p.kind === "injury" ? "injury" : "illness";
  const heading = p.endDate
    ? t(`problems.${kind}Ended`, { name: p.name, start: when(p.date), end: when(p.endDate) })
    : t(`problems.${kind}Open`, { name: p.name, start: when(p.date) });
  const section = (label, entries, text) => (entries.length ? el("li", {}, t(label, { entries: entries.map(text).join("; ") })) : null);
  return el("li", { "data-id": p.id },
    el("strong", {}, heading),
    course.temperatures.length ? temperatureChart(p.name, course.temperatures) : null,
    el("ul", {},
      section("problems.temperatures", course.temperatures,
              (r) => t("problems.temperature", { at: when(r.date), value: celsius(r.value), fever: named("fever", r.fever) })),
      section("problems.symptoms", course.symptoms,
              (s) => t(s.note ? "problems.symptomWithNote" : "problems.symptomAt", { at: when(s.date), name: s.name, note: s.note || "" })),
      symptomPhotos(course.symptoms),
      section("problems.visits", course.doctorVisits,
              (v) => (doctorNames.has(v.contactId) ? t("problems.visitTo", { at: when(v.date), doctor: doctorNames.get(v.contactId) }) : when(v.date))),
      course.medications.map((m) => medicationItem(m, done))));
}

/** The photos taken of the symptoms (a rash, a bite), each described by its symptom's name. */
function symptomPhotos(symptoms) {
  const photos = symptoms.flatMap((s) => (s.photos || []).map((address) => photoImage(address, t("problems.symptomPhotoAlt", { name: s.name }))));
  return photos.length ? el("li", { class: "symptom-photos" }, ...photos) : null;
}

/** A medication with its plan and a button that turns its reminders on this device on or off. */
function medicationItem(m, done) {
  const plan = listOf((m.doses || []).map((d) => t("problems.dosePlan", { dose: d.dose, time: timeOfDay(d.time) })));
  const toggle = el("button", { type: "button", class: "medication-notify secondary", "data-id": m.id,
                                "aria-label": t(m.notify ? "problems.turnOffFor" : "problems.turnOnFor", { name: m.name }) },
                    t(m.notify ? "problems.remindersOff" : "problems.remindMe"));
  toggle.addEventListener("click", () => done(callOperation(PLUGIN, "medication-notify", { id: m.id, notify: !m.notify }),
                                              t(m.notify ? "problems.remindersTurnedOff" : "problems.remindersTurnedOn")));
  const text = m.endDate ? t("problems.medicationUntil", { name: m.name, plan, until: date(m.endDate.slice(0, 10)) })
                         : t("problems.medication", { name: m.name, plan });
  return el("li", { class: "medication" }, text, m.notify ? [" ", t("problems.remindersOn")] : null, " ", toggle);
}

const optional = (input, field, value) => { if (value) input[field] = value; return input; };

/** Binds the forms that open a problem, add a symptom, a visit or a medication, and assign a record. */
export function bindProblemForms(childId, done) {
  $("problem-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await done(callOperation(PLUGIN, "problem-open", {
      childId: childId(), kind: $("problem-kind").value, name: $("problem-name").value, startDate: $("problem-start").value,
    }), t("problems.added"), event.currentTarget);
  });
  // Ends the chosen problem on the day given; with no day it is open again.
  $("problem-end-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await done(callOperation(PLUGIN, "problem-close", optional({ id: $("problem-end-which").value }, "endDate", $("problem-end").value)),
               t($("problem-end").value ? "problems.ended" : "problems.reopened"), event.currentTarget);
  });
  $("symptom-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = { childId: childId(), name: $("symptom-name").value, at: $("symptom-at").value.slice(0, 16) };
    optional(input, "problemId", $("symptom-problem").value);
    optional(input, "note", $("symptom-note").value);
    const photo = $("symptom-photo").files[0];
    const change = (async () => {
      if (photo) input.photo = await uploadPhoto(photo);
      return callOperation(PLUGIN, "symptom-add", input);
    })();
    await done(change, t("problems.symptomAdded"), event.currentTarget);
  });
  // A record to a problem afterwards (UC25, UC26: "also retroactively"), or to none.
  $("assign-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await done(callOperation(PLUGIN, "record-assign", optional({ id: $("assign-record").value }, "problemId", $("assign-problem").value)),
               t($("assign-problem").value ? "problems.assigned" : "problems.unassigned"), event.currentTarget);
  });
  $("visit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = { childId: childId(), doctorId: $("visit-doctor").value, at: $("visit-at").value.slice(0, 16) };
    optional(input, "problemId", $("visit-problem").value);
    optional(input, "remindAt", $("visit-remind").value.slice(0, 16));
    await done(callOperation(PLUGIN, "visit-add", input), t("problems.visitAdded"), event.currentTarget);
  });
  $("medication-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = { problemId: $("medication-problem").value, name: $("medication-name").value,
                    doses: [{ time: $("medication-time").value.slice(0, 5), dose: $("medication-dose").value }],
                    notify: $("medication-notify").checked };
    optional(input, "until", $("medication-until").value);
    await done(callOperation(PLUGIN, "medication-add", input), t("problems.medicationAdded"), event.currentTarget);
  });
}
