// What safe travel's three pages share: the host's clock (deadlines and "last seen" are relative to
// it, which on a virtual deployment is not the browser's), an alert as a sentence in the person's
// language, a refusal as a sentence, and a battery level.

import { request, callOperation, APIError } from "/console/api.js";
import { t, has } from "/console/i18n.js";
import { errorText, reasonCode, showError } from "/console/errors.js";
import { dateTime, relative, number } from "/console/format.js";

export const PLUGIN = "cz.tessera.safetravel";

let clockRefused = false;

/** The host's time (GET /v1/clock), or this browser's where the host does not tell this person. */
export async function hostNow() {
  if (clockRefused) return new Date();
  try {
    return new Date((await request("GET", "/v1/clock")).now);
  } catch (error) {
    if (error instanceof APIError && error.status < 500) clockRefused = true;
    return new Date();
  }
}

/** "80 %": a battery level. */
export function percent(value) {
  return t("travel.percent", { value: number(value, 0) });
}

/**
 * What an alert is about, as a sentence: by its kind (and, for an SOS, why it went out), naming
 * the traveller. The module's own `summary` is English for the notification, so it is not shown.
 */
export function alertWhat(alert) {
  const params = { traveller: alert.traveller ?? "" };
  if (alert.kind === "sos" && alert.reason && has(`alerts.sos.${alert.reason}`)) return t(`alerts.sos.${alert.reason}`, params);
  return has(`alerts.kind.${alert.kind}`) ? t(`alerts.kind.${alert.kind}`, params) : t("alerts.kind.other", params);
}

/** An alert with its time: "Mar 2, 2026, 8:00 AM (5 minutes ago): ada: SOS pressed …". */
export function alertLine(alert, dueAt, now) {
  return t("alerts.item", { time: dateTime(dueAt), relative: relative(dueAt, now), what: alertWhat(alert) });
}

/**
 * A refusal as a sentence. The module's own reason (invalid_pin, eta_in_past, …) says more than
 * the sentence about the field it names (a wrong PIN is not a PIN of the wrong form), except the
 * generic validation, where the field's sentence is the better one. A locked PIN says until when.
 */
export async function refusalText(error, form) {
  const reason = reasonCode(error);
  if (reason === "pin_locked") {
    try {
      const account = await callOperation(PLUGIN, "account-state", {});
      if (account.pinLockedUntil) return t("travel.pinLockedUntil", { relative: relative(account.pinLockedUntil, await hostNow()) });
    } catch { /* the general sentence below */ }
  }
  if (reason && reason !== "validation" && has(`errors.${reason}`)) return t(`errors.${reason}`);
  return errorText(error, { form });
}

/** Shows a refusal at its form: the sentence in `output`, the field at fault marked and focused. */
export async function showRefusal(error, form, output) {
  if (!(error instanceof APIError)) console.warn(error);
  showError(error, { form, output });
  output.textContent = await refusalText(error, form);
}
