// Illnesses and injuries on the baby diary's page (UC24–UC28): the chosen child's problems, each
// with its whole course from `problem-get` (temperatures with their fever class, symptoms, doctor
// visits, medications), and forms to open one, end (or reopen) it, and add a visit (to a saved doctor, with an
// optional reminder on this device) or a medication (a dose at a time of day, reminders optional).
// The temperature form (forms.js) may name a problem too: the selects are filled from here.

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";

const PLUGIN = "cz.tessera.baby";
const $ = (id) => document.getElementById(id);
const PROBLEM_SELECTS = ["temperature-problem", "visit-problem", "medication-problem", "problem-end-which"];
const REQUIRED = ["medication-problem", "problem-end-which"];  // selects with no "none" choice

/** Lists `childId`'s illnesses and injuries, newest first, with their course. */
export async function showProblems(childId) {
  clear($("problems"));
  for (const id of PROBLEM_SELECTS) {
    clear($(id));
    if (!REQUIRED.includes(id)) $(id).append(el("option", { value: "" }, "—"));
  }
  if (!childId) return;
  const { items } = await callOperation(PLUGIN, "timeline", { childIds: [childId], types: ["health_problem"], includeFuture: true, limit: 200 });
  for (const item of items) {
    const course = await callOperation(PLUGIN, "problem-get", { id: item.id });
    $("problems").append(problemItem(course));
    for (const id of PROBLEM_SELECTS) $(id).append(el("option", { value: item.id }, `${item.name} (${item.date})`));
  }
}

function problemItem(course) {
  const p = course.problem;
  const list = (label, entries, text) => (entries.length ? el("li", {}, `${label}: `, entries.map(text).join("; ")) : null);
  return el("li", { "data-id": p.id },
    `${p.kind === "injury" ? "Injury" : "Illness"}: ${p.name}, from ${p.date}${p.endDate ? " to " + p.endDate : ""}`,
    el("ul", {},
      list("Temperatures", course.temperatures, (t) => `${t.date} ${t.value} °C (${t.fever})`),
      list("Symptoms", course.symptoms, (s) => `${s.date} ${s.name}`),
      list("Doctor visits", course.doctorVisits, (v) => `${v.date}${v.doctorName ? " " + v.doctorName : ""}`),
      list("Medications", course.medications, (m) => `${m.name} ${m.doses.map((d) => `${d.dose} at ${d.time}`).join(", ")}${m.notify ? " (reminders on)" : ""}`)));
}

const optional = (input, field, value) => { if (value) input[field] = value; return input; };

/** Binds the forms that open a problem and add a visit or a medication. */
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
