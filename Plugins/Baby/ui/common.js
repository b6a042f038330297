// What every script of the baby diary's page shares: the module's id, dates and moments as the
// person reads them (a record's date is a day "2026-03-01" or a local moment "2026-03-01T19:30" in
// the host's zone, shown as it is written), measurements with their units, a record described in
// one sentence of the person's language, the host's clock (for "in 3 days"), and the sentence
// of a form whose input was refused, right below the field at fault (docs/baby.md, "The page").

import { request } from "/console/api.js";
import { el } from "/console/dom.js";
import { t, has } from "/console/i18n.js";
import { date, dateTime, time, number, list } from "/console/format.js";
import { errorText, showError, clearError } from "/console/errors.js";

export const PLUGIN = "cz.tessera.baby";
export const $ = (id) => document.getElementById(id);

/** The host's time, as last read by `readClock` (a virtual deployment's clock is not the browser's). */
export const clock = { now: new Date() };

/** Reads the host's clock (GET /v1/clock); a person who may not read it gets the browser's. */
export async function readClock() {
  try {
    const answer = await request("GET", "/v1/clock");
    clock.now = new Date(answer.now);
  } catch {
    clock.now = new Date();
  }
  return clock.now;
}

/** A day ("1. 3. 2026") or a local moment ("1. 3. 2026 19:30") as the person reads it. */
export function when(value) {
  const text = String(value || "");
  if (!text) return "";
  return text.length > 10 ? dateTime(text) : date(text);
}

/** A time of day "20:00" as the person reads it ("20:00", "8:00 PM"). */
export function timeOfDay(hhmm) {
  return time(`2000-01-01T${hhmm}`);
}

/** The message `prefix.value` (an enum value the API answers), or the value itself if there is none. */
export function named(prefix, value) {
  const key = `${prefix}.${value}`;
  return has(key) ? t(key) : String(value ?? "");
}

/** The unit of a measurement kind. */
export const unitOf = (kind) => (kind === "weight" ? "kg" : "cm");

/** "8,35 kg", "72,5 cm": kilograms to 10 g (as parents read scales), centimetres to a millimetre. */
export function measure(value, unit) {
  return unit === "kg" ? t("units.kg", { value: number(value, 2) }) : t("units.cm", { value: number(value, 1) });
}

/** "38,6 °C". */
export function celsius(value) {
  return t("units.celsius", { value: number(value, 1) });
}

/** "1 rok, 8 měsíců a 15 dní": an age {years, months, days} in words. */
export function ageText(age) {
  if (!age) return "";
  const parts = [["age.years", age.years], ["age.months", age.months], ["age.days", age.days]]
    .filter(([, count]) => count > 0).map(([key, count]) => t(key, { count }));
  return parts.length ? list(parts) : t("age.newborn");
}

/** The doctors of the chosen child by contact id (contacts.js fills it), for visits. */
export const doctorNames = new Map();

/** A milestone's name: a preset's in the person's language, or the one its author gave. */
export function milestoneName(item) {
  return item.kind === "custom" || !item.kind ? item.name || "" : named("milestones", item.kind);
}

/** One record of the timeline or the calendar in a sentence: "Váha: 8,35 kg", "Milník: První úsměv". */
export function describe(item) {
  let what;
  switch (item.type) {
    case "measurement": what = t("record.measurement", { kind: named("kinds", item.kind), value: measure(item.value, unitOf(item.kind)) }); break;
    case "milestone": what = t("record.milestone", { name: milestoneName(item) }); break;
    case "post": return t("record.post", { text: item.note || "" });
    case "health_problem": what = t(item.kind === "injury" ? "record.injury" : "record.illness", { name: item.name || "" }); break;
    case "symptom": what = t("record.symptom", { name: item.name || "" }); break;
    case "temperature": what = t("record.temperature", { value: celsius(item.value), fever: named("fever", item.fever) }); break;
    case "doctor_visit":
      what = doctorNames.has(item.contactId) ? t("record.visitTo", { doctor: doctorNames.get(item.contactId) }) : t("record.visit");
      break;
    case "medication": what = t("record.medication", { name: item.name || "" }); break;
    case "vaccination": what = t("record.vaccination", { name: item.name || "" }); break;
    default: what = item.name || "";
  }
  return item.note ? t("record.withNote", { what, note: item.note }) : what;
}

/** A number input's value, or null when it holds none (the module then names the field). */
export function numberIn(input) {
  const value = input.valueAsNumber;
  return Number.isFinite(value) ? value : null;
}

/** The sentence line of `form` (made on first use, at its end). */
export function formError(form) {
  let output = form.querySelector(".form-error");
  if (!output) {
    output = el("p", { class: "error form-error", role: "alert", id: `${form.id || "form"}-error` });
    form.append(output);
  }
  return output;
}

/** Adds or takes away the sentence line's id in `control`'s aria-describedby. */
function describedBy(control, id, on) {
  const ids = (control.getAttribute("aria-describedby") || "").split(/\s+/).filter((token) => token && token !== id);
  if (on) ids.push(id);
  if (ids.length) control.setAttribute("aria-describedby", ids.join(" "));
  else control.removeAttribute("aria-describedby");
}

/** Clears the form's sentence and the marks on its fields; the sentence line goes back to the form's end. */
export function clearFormError(form) {
  const output = formError(form);
  for (const control of form.querySelectorAll("[aria-describedby]")) describedBy(control, output.id, false);
  clearError({ form, output });
  form.append(output);
}

/**
 * Shows why `form`'s input was refused: the sentence right below the field at fault (marked,
 * focused, and described by the sentence, so a screen reader reads it with the field), or at the
 * form's end when no one field is at fault.
 */
export function refuse(form, error) {
  clearFormError(form);
  const output = formError(form);
  showError(error, { form, output });
  const control = form.querySelector('[aria-invalid="true"]');
  const field = control && control.closest(".field");
  if (field && form.contains(field)) {
    field.after(output);
    describedBy(control, output.id, true);
  }
}

/** Today on the host's clock (as last read), as a date input takes it: "2026-03-02". */
export function today() {
  const now = clock.now;
  const two = (n) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${two(now.getMonth() + 1)}-${two(now.getDate())}`;
}

/** Says `text` under `form` (a check the page makes itself before asking the module). */
export function sayUnder(form, text) {
  clearFormError(form);
  formError(form).textContent = text;
}

/** Runs `action` (an event's async work) and puts any failure in the status line as a sentence. */
export function safely(action) {
  return (...args) => Promise.resolve().then(() => action(...args)).catch((error) => {
    $("status").textContent = errorText(error);
  });
}
