// Illnesses and injuries on the baby diary's page (UC24–UC28): the chosen child's problems, each
// with its whole course from `problem-get` (a chart of its temperatures against the fever
// thresholds (fever-chart.js), the temperatures with their fever class, symptoms, doctor visits,
// medications with a button that turns their dosing reminders on or off on this device), and forms
// to open one, end (or reopen) it, add a symptom, a visit (to a saved doctor, with an optional
// reminder on this device) or a medication (a dose at a time of day, reminders optional), and
// assign a symptom, temperature or visit to a problem (or none) afterwards (`record-assign`).
// The temperature form (forms.js) may name a problem too: the selects are filled from here.

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { temperatureChart } from "./fever-chart.js";

const PLUGIN = "cz.tessera.baby";
const $ = (id) => document.getElementById(id);
const PROBLEM_SELECTS = ["temperature-problem", "symptom-problem", "visit-problem", "medication-problem", "problem-end-which", "assign-problem"];
const ASSIGNABLE = ["symptom", "temperature", "doctor_visit"];
const REQUIRED = ["medication-problem", "problem-end-which"];  // selects with no "none" choice

/** Lists `childId`'s illnesses and injuries, newest first, with their course. */
export async function showProblems(childId, done) {
  clear($("problems"));
  for (const id of PROBLEM_SELECTS) {
    clear($(id));
    if (!REQUIRED.includes(id)) $(id).append(el("option", { value: "" }, "—"));
  }
  const chosen = $("assign-record").value;
  clear($("assign-record"));
  if (!childId) return;
  const { items } = await callOperation(PLUGIN, "timeline", { childIds: [childId], types: ["health_problem"], includeFuture: true, limit: 200 });
  const names = new Map(items.map((item) => [item.id, item.name]));
  for (const item of items) {
    const course = await callOperation(PLUGIN, "problem-get", { id: item.id });
    $("problems").append(problemItem(course, done));
    for (const id of PROBLEM_SELECTS) $(id).append(el("option", { value: item.id }, `${item.name} (${item.date})`));
  }
  const records = await callOperation(PLUGIN, "timeline", { childIds: [childId], types: ASSIGNABLE, includeFuture: true, limit: 200 });
  for (const record of records.items) {
    const what = record.type === "temperature" ? `${record.value} °C` : record.type === "symptom" ? record.name : "doctor visit";
    const where = record.problemId ? ` — in ${names.get(record.problemId) || "an illness"}` : "";
    $("assign-record").append(el("option", { value: record.id, selected: record.id === chosen }, `${record.date} ${what}${where}`));
  }
}

function problemItem(course, done) {
  const p = course.problem;
  const list = (label, entries, text) => (entries.length ? el("li", {}, `${label}: `, entries.map(text).join("; ")) : null);
  return el("li", { "data-id": p.id },
    `${p.kind === "injury" ? "Injury" : "Illness"}: ${p.name}, from ${p.date}${p.endDate ? " to " + p.endDate : ""}`,
    course.temperatures.length ? temperatureChart(p.name, course.temperatures) : null,
    el("ul", {},
      list("Temperatures", course.temperatures, (t) => `${t.date} ${t.value} °C (${t.fever})`),
      list("Symptoms", course.symptoms, (s) => `${s.date} ${s.name}${s.note ? " — " + s.note : ""}`),
      list("Doctor visits", course.doctorVisits, (v) => `${v.date}${v.doctorName ? " " + v.doctorName : ""}`),
      course.medications.map((m) => medicationItem(m, done))));
}

/** A medication with its plan and a button that turns its reminders on this device on or off. */
function medicationItem(m, done) {
  const plan = m.doses.map((d) => `${d.dose} at ${d.time}`).join(", ");
  const toggle = el("button", { type: "button", class: "medication-notify", "data-id": m.id,
                                "aria-label": `${m.notify ? "Turn off" : "Turn on"} reminders for ${m.name}` },
                    m.notify ? "Reminders off" : "Remind me");
  toggle.addEventListener("click", () => done(callOperation(PLUGIN, "medication-notify", { id: m.id, notify: !m.notify }),
                                              m.notify ? "Reminders off." : "Reminders on."));
  return el("li", { class: "medication" }, `Medication: ${m.name} ${plan}${m.endDate ? " until " + m.endDate : ""}${m.notify ? " (reminders on)" : ""} `, toggle);
}

const optional = (input, field, value) => { if (value) input[field] = value; return input; };

/** Binds the forms that open a problem, add a symptom, a visit or a medication, and assign a record. */
export function bindProblemForms(childId, done) {
  $("problem-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await done(callOperation(PLUGIN, "problem-open", {
      childId: childId(), kind: $("problem-kind").value, name: $("problem-name").value, startDate: $("problem-start").value,
    }), "Illness or injury added.");
  });
  // Ends the chosen problem on the day given; with no day it is open again.
  $("problem-end-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await done(callOperation(PLUGIN, "problem-close", optional({ id: $("problem-end-which").value }, "endDate", $("problem-end").value)),
               $("problem-end").value ? "Ended." : "Reopened.");
  });
  $("symptom-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = { childId: childId(), name: $("symptom-name").value, at: $("symptom-at").value.slice(0, 16) };
    optional(input, "problemId", $("symptom-problem").value);
    optional(input, "note", $("symptom-note").value);
    await done(callOperation(PLUGIN, "symptom-add", input), "Symptom added.");
  });
  // A record to a problem afterwards (UC25, UC26: "also retroactively"), or to none.
  $("assign-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await done(callOperation(PLUGIN, "record-assign", optional({ id: $("assign-record").value }, "problemId", $("assign-problem").value)),
               $("assign-problem").value ? "Assigned." : "Unassigned.");
  });
  $("visit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = { childId: childId(), doctorId: $("visit-doctor").value, at: $("visit-at").value.slice(0, 16) };
    optional(input, "problemId", $("visit-problem").value);
    optional(input, "remindAt", $("visit-remind").value.slice(0, 16));
    await done(callOperation(PLUGIN, "visit-add", input), "Doctor visit added.");
  });
  $("medication-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = { problemId: $("medication-problem").value, name: $("medication-name").value,
                    doses: [{ time: $("medication-time").value.slice(0, 5), dose: $("medication-dose").value }],
                    notify: $("medication-notify").checked };
    optional(input, "until", $("medication-until").value);
    await done(callOperation(PLUGIN, "medication-add", input), "Medication added.");
  });
}
