// What every script of the stress programme's page shares: the module's id, the host's clock (a
// virtual deployment's time is not the browser's), when something opens as a sentence in the
// person's language, the programme's scales, the content pack's HTML read as text, answer chips,
// and forms that say a refusal next to the field at fault and then draw the page again.

import { request, callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t, language } from "/console/i18n.js";
import { time, relative, toDate } from "/console/format.js";
import { showError, clearError, fieldName } from "/console/errors.js";

export const PLUGIN = "cz.tessera.stress";
export const $ = (id) => document.getElementById(id);

/** The host's time, as last read by `readClock`. */
export const clock = { now: new Date() };

/**
 * What stress.js does after a change: draws the page again and says `news`. Set once at start
 * (a registry rather than an import, so that the modules do not import the page's entry point).
 */
export const page = { redraw: async () => {} };

/** Reads the host's clock (GET /v1/clock); a person who may not read it gets the browser's. */
export async function readClock() {
  try {
    const { now } = await request("GET", "/v1/clock");
    clock.now = now ? new Date(now) : new Date();
  } catch {
    clock.now = new Date();
  }
  return clock.now;
}

/** The content pack's language for the person's: Slovak or English, else Czech. */
export const contentLanguage = () => (["sk", "en"].includes(language()) ? language() : "cs");

// MARK: When

// Czech says "ve" before a time whose spoken number starts with two consonants ("ve 20:00",
// "ve 2:00", but "v 9:00"); Slovak and English word both alike, so their two messages are equal.
const VE_HOURS = new Set([2, 3, 4, 12, 13, 14, 20, 21, 22, 23]);

const startOfDay = (d) => new Date(d.getFullYear(), d.getMonth(), d.getDate());

/** "8. března" / "8. marca" / "March 8": a day of the year spelled out, with no weekday. */
function dayAndMonth(d) {
  return new Intl.DateTimeFormat(language(), { day: "numeric", month: "long" }).format(d);
}

/**
 * When `instant` is, as a person says it: "dnes v 9:00", "zajtra o 0:00", "v nedeľu 8. marca
 * o 0:00". The weekday comes from the catalogue, because "v nedeľu" needs the case that Intl's
 * weekday names ("nedeľa") do not have.
 */
export function moment(instant) {
  const at = toDate(instant);
  const days = Math.round((startOfDay(at) - startOfDay(clock.now)) / 86400000);
  const atTime = t(VE_HOURS.has(at.getHours()) ? "when.atVe" : "when.at", { time: time(at) });
  if (days === 0) return t("when.today", { at: atTime });
  if (days === 1) return t("when.tomorrow", { at: atTime });
  return t("when.day", { weekday: t(`when.weekday.${at.getDay()}`), date: dayAndMonth(at), at: atTime });
}

/** "za 6 dní": how far `instant` is from the host's now. */
export const fromNow = (instant) => relative(instant, clock.now);

/** "5 min 03 s": seconds as minutes and seconds. */
export function minutesAndSeconds(total) {
  const seconds = Math.max(0, Math.floor(total));
  const two = new Intl.NumberFormat(language(), { minimumIntegerDigits: 2 });
  return t("relax.elapsed", { minutes: Math.floor(seconds / 60), seconds: two.format(seconds % 60) });
}

// MARK: Content

let scales = null;

/**
 * The programme's scales ({entry, meaning, evaluation, stress, appRating}, each [lowest, highest]):
 * they are the content pack's, so that a new pack can change them; read once per page.
 */
export async function programmeScales() {
  if (!scales) scales = (await callOperation(PLUGIN, "content-version", {})).pack.scales;
  return scales;
}

/**
 * The content pack's HTML (the research text) as paragraphs of text: parsed in an inert document,
 * never put into the page as HTML, so that a pack cannot add markup or scripts.
 */
export function paragraphs(html) {
  const body = new DOMParser().parseFromString(String(html ?? ""), "text/html").body;
  const blocks = [...body.querySelectorAll("p, li, h1, h2, h3, h4")].map((node) => node.textContent.trim()).filter(Boolean);
  const texts = blocks.length ? blocks : [body.textContent.trim()].filter(Boolean);
  return texts.map((text) => el("p", {}, text));
}

// MARK: Answers

/**
 * A question answered by one choice: a fieldset with the question as its legend, a chip per
 * choice ({value, label}), and the line where a refusal of this field is said.
 */
export function choiceField({ name, legend, choices, hint, checked }) {
  const id = `${name}-error`;
  const box = el("fieldset", { class: "choices", "data-question": name, "aria-describedby": id },
    el("legend", {}, legend), hint ? el("p", { class: "help" }, hint) : null);
  const chips = el("div", { class: "chips" });
  for (const choice of choices) {
    const input = el("input", { type: "radio", name, value: String(choice.value), checked: String(choice.value) === String(checked) });
    chips.append(el("label", {}, input, el("span", {}, choice.label)));
  }
  box.append(chips, el("p", { id, class: "error", role: "alert", "data-error-for": name }));
  return box;
}

/** The choices from `low` to `high` of a numeric scale, labelled by their numbers. */
export function scaleChoices([low, high]) {
  const number = new Intl.NumberFormat(language());
  return Array.from({ length: high - low + 1 }, (_, i) => ({ value: low + i, label: number.format(low + i) }));
}

/** A free-text question: its label, a text area (or one line), and the line for its refusal. */
export function textField({ id, name, label, value, multiline = true, required = false }) {
  const control = multiline
    ? el("textarea", { id, name, rows: 3, maxlength: 4000, "aria-describedby": `${id}-error` })
    : el("input", { id, name, type: "text", maxlength: 4000, autocomplete: "off", "aria-describedby": `${id}-error` });
  control.value = value ?? "";
  if (required) control.setAttribute("aria-required", "true");
  return el("div", { class: "field", "data-question": name },
    el("label", { for: id }, label), control, el("p", { id: `${id}-error`, class: "error", role: "alert", "data-error-for": name }));
}

/** The checked value of the radio group `name` in `form`, as a number; undefined when none is. */
export function chosenNumber(form, name) {
  const value = new FormData(form).get(name);
  return value === null ? undefined : Number(value);
}

// MARK: Forms

/** The line at the end of `form` where a refusal without a field of its own is said. */
export function formError(form) {
  let output = form.querySelector(":scope > .form-error");
  if (!output) {
    output = el("p", { class: "error form-error", role: "alert" });
    form.append(output);
  }
  return output;
}

/** Takes back every refusal said on `form`. */
function clearRefusals(form) {
  clearError({ form, output: formError(form) });
  for (const output of form.querySelectorAll("[data-error-for]")) output.textContent = "";
  for (const box of form.querySelectorAll(".unanswered")) box.classList.remove("unanswered");
}

/**
 * Says why `form`'s input was refused: next to the field at fault when the form has a line for it
 * (the chips of one question, one text), else under the form; the field is marked and focused.
 * Questions left without an answer ("answers are missing") are marked too, the first focused.
 */
export function refuse(form, error) {
  const field = fieldName(error);
  const own = field ? form.querySelector(`[data-error-for="${CSS.escape(field)}"]`) : null;
  showError(error, { form, output: own ?? formError(form) });
  if (field === "answers" || field === "results") markUnanswered(form);
}

function markUnanswered(form) {
  const empty = [...form.querySelectorAll("[data-question]")].filter((box) =>
    box.querySelector("input[type=radio]") ? !box.querySelector("input:checked") : !box.querySelector("input, textarea").value.trim());
  for (const box of empty) {
    box.classList.add("unanswered");
    box.querySelector("input, textarea").setAttribute("aria-invalid", "true");
  }
  empty[0]?.querySelector("input, textarea").focus();
}

/**
 * Sends `form` with `action` (its answer: what to say, {status} or {news}); a refusal is said
 * next to its field, and after a success the page is drawn again.
 */
export function whenSubmitted(form, action) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearRefusals(form);
    const button = form.querySelector("button[type=submit]");
    if (button) button.disabled = true;  // a double tap sends once
    let said;
    try {
      said = await action(new FormData(form));
    } catch (error) {
      refuse(form, error);
      return;
    } finally {
      if (button) button.disabled = false;
    }
    await page.redraw(said ?? {});
  });
}

export { el, clear };
