// Reminder settings on the IS/STAG page (`notifications-status`, `notifications-configure`): each
// kind of reminder as a switch, and where it has one, how long before it comes, in words ("15
// minutes before", "1 day before"), never a number of minutes. A change is saved at once and
// said in the status line; the module re-plans the reminders from it.

import { callOperation } from "/console/api.js";
import { clear, el } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { $, PLUGIN, failure, sentenceFor } from "./common.js";

/** The kinds in the order a student thinks of them, each with the lead times offered (minutes), or none for news. */
const KINDS = [
  ["classBefore", [5, 10, 15, 30, 60]],
  ["examBefore", [60, 180, 720, 1440, 2880, 10080]],
  ["examSoon", [30, 60, 120, 180, 240]],
  ["registrationOpens", [0, 60, 1440]],
  ["registrationCloses", [60, 180, 720, 1440, 2880, 4320]],
  ["unregisterDeadline", [60, 180, 720, 1440, 2880, 4320]],
  ["newTerm", null],
  ["newGrade", null],
  ["ticketExpiring", [1440, 4320, 10080]],
  ["loginExpired", null],
  ["noteDue", [0, 1440, 2880, 10080]],
];

const HOUR = 60, DAY = 1440, WEEK = 10080;

/** "15 minut předem", "1 day before", "when it happens": a lead time as people say it. */
function leadText(minutes) {
  if (minutes === 0) return t("reminders.lead.atTime");
  if (minutes % WEEK === 0) return t("reminders.lead.weeks", { count: minutes / WEEK });
  if (minutes % DAY === 0) return t("reminders.lead.days", { count: minutes / DAY });
  if (minutes % HOUR === 0) return t("reminders.lead.hours", { count: minutes / HOUR });
  return t("reminders.lead.minutes", { count: minutes });
}

/** The lead times to offer: the usual ones, and the one set now if it is another (set elsewhere). */
function leadOptions(offered, current) {
  const all = offered.includes(current) ? offered : [...offered, current].sort((a, b) => a - b);
  return all.map((minutes) => el("option", { value: minutes, selected: minutes === current }, leadText(minutes)));
}

/** Saves one kind's change and draws the settings the module answers. */
async function configure(kind, change, said) {
  $("reminders-status").textContent = "";
  try {
    const status = await callOperation(PLUGIN, "notifications-configure", { [kind]: change });
    draw(status);
    $("reminders-status").textContent = said;
  } catch (error) {
    $("reminders-status").textContent = sentenceFor(error);
  }
}

function reminderItem(kind, offered, setting) {
  const name = t(`reminders.kinds.${kind}`);
  const toggle = el("input", { type: "checkbox", class: "switch", role: "switch", id: `reminder-${kind}`, checked: setting.enabled });
  toggle.addEventListener("change", () => configure(kind, { enabled: toggle.checked },
    t(toggle.checked ? "reminders.switchedOn" : "reminders.switchedOff", { name })));
  const item = el("li", { class: "reminder", "data-kind": kind },
    el("div", { class: "switch-row" }, toggle, el("label", { for: toggle.id }, name)));
  if (offered) {
    const lead = el("select", { id: `reminder-${kind}-lead`, name: "leadMinutes", disabled: !setting.enabled }, leadOptions(offered, setting.leadMinutes));
    lead.addEventListener("change", () => configure(kind, { leadMinutes: Number(lead.value) },
      t("reminders.leadSet", { name, lead: leadText(Number(lead.value)) })));
    item.append(el("div", { class: "lead" }, el("label", { for: lead.id }, t("reminders.when")), lead));
  }
  return item;
}

/**
 * Draws the switches and lead times, and how many reminders are planned. Only the kinds the module
 * answers are drawn: a module older or newer than the page may know fewer or more.
 */
function draw(status) {
  const box = $("reminders");
  const focused = document.activeElement?.id;
  const kinds = KINDS.filter(([kind]) => status.settings[kind]);
  clear(box);
  box.append(el("ul", { class: "plain reminders" }, kinds.map(([kind, offered]) => reminderItem(kind, offered, status.settings[kind]))),
    el("p", { class: "muted" }, t("reminders.pending", { count: Object.keys(status.pending ?? {}).length })));
  if (focused) $(focused)?.focus();  // a keyboard user stays on the switch they changed
}

/** Reads and draws the reminder settings. */
export async function showReminders() {
  try {
    draw(await callOperation(PLUGIN, "notifications-status", {}));
  } catch (error) {
    clear($("reminders"));
    $("reminders").append(failure(error));
  }
}
