// A failed request as one sentence in the person's language (docs/console.md, "Errors").
//
// The API answers every refusal as {code, message, field?} for programs: a machine-readable code,
// an English message for developers and logs, the JSON path of the field at fault. None of that is
// for a person. The sentence comes from the catalogues instead, the most specific that exists:
// 1. a plugin's reason code (the error's "reason", listed in the module's manifest), or an
//    API code more exact than the host's generic ones (the hub's "email_taken"): the page's
//    "errors.NAME" (it says what went wrong with the field, if any, more exactly); a page leaves
//    out a sentence for a reason as general as its fields' (such as "out_of_range");
// 2. a field at fault: the page's "invalid.<field>" ("Amount must be a number such as 12.50."),
//    else the console's sentence naming the field by its label (an empty field: fill it in);
// 3. the API's code: the console's "errors.<code>";
// 4. the HTTP status's class: the console's "errors.status.<4xx|5xx>".

import { APIError } from "./api.js";
import { t, has } from "./i18n.js";

/** The host's codes for a kind of refusal (docs/http.md, "Errors"): a field's sentence says more. */
const GENERIC_CODES = new Set(["invalid_input", "forbidden", "not_granted", "not_found", "conflict", "unprocessable",
  "payload_too_large", "unsupported_media_type", "quota_exceeded", "unavailable", "internal"]);

/** The plugin's reason code of an API error ("fix_too_old"), or null. */
export function reasonCode(error) {
  return typeof error?.reason === "string" && error.reason ? error.reason : null;
}

/** The input member an error's field names: "$.amount" → "amount", "$.items[2].name" → "name". */
export function fieldName(error) {
  const match = /([A-Za-z0-9_]+)(?:\[\d+\])*$/.exec(error?.field || "");
  return match && error.field !== "$" ? match[1] : null;
}

/** The control of `form` (or the page) named `name`, if there is one. */
function controlNamed(name, form) {
  const scope = form || document;
  return scope.querySelector(`[name="${CSS.escape(name)}"]`) || document.getElementById(name);
}

/** The text of the label of `control`, without a trailing colon or asterisk. */
function labelOf(control) {
  const label = control?.labels?.[0]?.textContent || control?.getAttribute("aria-label") || "";
  return label.replace(/[\s:*]+$/, "").trim();
}

/**
 * The sentence for `error` (an APIError, or anything thrown by fetch). `form` is where the
 * field's control is (to read its label and whether it is empty).
 */
export function errorText(error, { form } = {}) {
  if (!(error instanceof APIError)) return t("errors.network");
  const field = fieldName(error);
  const reason = reasonCode(error);
  if (reason && has(`errors.${reason}`)) return t(`errors.${reason}`);
  if (!GENERIC_CODES.has(error.code) && has(`errors.${error.code}`)) return t(`errors.${error.code}`);
  if (field && has(`invalid.${field}`)) return t(`invalid.${field}`);
  if (field) {
    const control = controlNamed(field, form);
    const label = labelOf(control);
    if (label) {
      const empty = control && "value" in control && String(control.value).trim() === "";
      return t(empty ? "errors.fieldEmpty" : "errors.fieldInvalid", { label });
    }
  }
  if (has(`errors.${error.code}`)) return t(`errors.${error.code}`);
  return t(error.status >= 500 ? "errors.status.5xx" : "errors.status.4xx");
}

/** Takes back what showError put on a form (after a success). */
export function clearError({ form, output }) {
  for (const control of (form ? form.querySelectorAll("[aria-invalid]") : [])) control.removeAttribute("aria-invalid");
  if (output) output.textContent = "";
}

/**
 * Shows `error` on a form: the sentence in `output`, and the field at fault marked invalid and
 * focused, so a keyboard or screen-reader user lands on it.
 */
export function showError(error, { form, output }) {
  for (const control of (form ? form.querySelectorAll("[aria-invalid]") : [])) control.removeAttribute("aria-invalid");
  output.textContent = errorText(error, { form });
  const field = error instanceof APIError ? fieldName(error) : null;
  const control = field ? controlNamed(field, form) : null;
  if (control) {
    control.setAttribute("aria-invalid", "true");
    control.focus();
  }
}
