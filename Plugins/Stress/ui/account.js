// The participant's own settings on the stress programme's page: the daily diary reminder's time
// (empty: off) and the time zone that decides "today" and when reminders ring; feedback for the
// research team; and withdrawing from the research, which deletes every record irreversibly and
// so asks for a ticked confirmation first. The language is not asked: it follows the person's
// language in the console (stress.js keeps it).

import { callOperation } from "/console/api.js";
import { t } from "/console/i18n.js";
import { time } from "/console/format.js";
import { PLUGIN, $, el, clear, whenSubmitted } from "./common.js";

/** Fills the settings form with the module's settings. */
export async function showSettings() {
  const settings = await callOperation(PLUGIN, "settings-get", {});
  $("reminder-time").value = settings.diaryReminder ?? "";
  fillZones(settings.timeZone);
}

/** The time zones this browser knows, this device's first, the module's chosen. */
function fillZones(chosen) {
  const here = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  const ordered = [...new Set([here, chosen, ...zones].filter(Boolean))];
  clear($("time-zone"));
  for (const zone of ordered) {
    const label = zone === here ? t("settings.thisDevice", { zone: readable(zone) }) : readable(zone);
    $("time-zone").append(el("option", { value: zone, selected: zone === chosen }, label));
  }
}

/** "America/New York": a zone's name as a person reads it. */
const readable = (zone) => zone.replaceAll("_", " ");

/** Binds the settings, feedback and cancellation forms (they are in the page's HTML). */
export function bindAccountForms() {
  whenSubmitted($("settings-form"), async (data) => {
    await callOperation(PLUGIN, "settings-set", { diaryReminder: data.get("diaryReminder"), timeZone: data.get("timeZone") });
    const at = data.get("diaryReminder");
    return { status: at ? t("settings.savedReminder", { time: time(`2000-01-01T${at}`) }) : t("settings.saved") };
  });
  whenSubmitted($("feedback-form"), async (data) => {
    await callOperation(PLUGIN, "feedback-submit", { text: data.get("text") });
    $("feedback-form").reset();
    return { status: t("feedback.thanks") };
  });
  whenSubmitted($("cancel-form"), async () => {
    await callOperation(PLUGIN, "account-cancel", { confirm: $("cancel-confirm").checked });
    return { status: t("account.revoked") };
  });
}
