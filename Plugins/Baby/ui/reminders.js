// Reminders on the baby diary's page (UC12, UC27, UC28): this device's reminders with their next
// times (`reminders-list`) — when, and how far that is from now on the host's clock ("next week") —
// and a form that sets, moves or clears the reminder of an existing vaccination or doctor visit of
// the chosen child (`reminder-set`; an empty time clears it). Reminders are this device's alone:
// they never sync.

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { dateTime, relative } from "/console/format.js";
import { PLUGIN, $, clock, when, named, describe } from "./common.js";

/** Lists this device's reminders and offers `childId`'s vaccinations and visits for one. */
export async function showReminders(childId) {
  const chosen = $("reminder-record").value;
  clear($("reminders"));
  clear($("reminder-record"));
  const [{ reminders }, { items }] = await Promise.all([
    callOperation(PLUGIN, "reminders-list", {}),
    childId ? callOperation(PLUGIN, "timeline", { childIds: [childId], types: ["vaccination", "doctor_visit", "medication"], includeFuture: true, limit: 200 })
            : Promise.resolve({ items: [] }),
  ]);
  const names = new Map(items.map((item) => [item.id, t("reminders.subject", { what: describe({ ...item, note: "" }), date: when(item.date) })]));
  for (const reminder of reminders) {
    if (childId && reminder.childId && reminder.childId !== childId) continue;
    // The record says what it is ("Očkování: MMR (10. 3. 2026)"); one not on this page yet, its kind.
    const params = { what: names.get(reminder.recordId) || named("reminders.kinds", reminder.kind) };
    const text = reminder.next
      ? t("reminders.item", { ...params, next: dateTime(reminder.next), relative: relative(reminder.next, clock.now) })
      : t("reminders.itemNoNext", params);
    $("reminders").append(el("li", { "data-record": reminder.recordId }, text));
  }
  if (!$("reminders").childNodes.length) $("reminders").append(el("li", { class: "muted" }, t("reminders.none")));
  for (const item of items.filter((i) => i.type !== "medication")) {
    $("reminder-record").append(el("option", { value: item.id, selected: item.id === chosen }, names.get(item.id)));
  }
}

/** Binds the reminder form. */
export function bindReminderForm(done) {
  $("reminder-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = { recordId: $("reminder-record").value };
    if ($("reminder-at").value) input.remindAt = $("reminder-at").value.slice(0, 16);
    await done(callOperation(PLUGIN, "reminder-set", input), t(input.remindAt ? "reminders.setDone" : "reminders.cleared"), event.currentTarget);
  });
}
