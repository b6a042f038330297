// Reminders on the baby diary's page (UC12, UC27, UC28): this device's reminders with their next
// times (`reminders-list`), and a form that sets, moves or clears the reminder of an existing
// vaccination or doctor visit of the chosen child (`reminder-set`; an empty time clears it).
// Reminders are this device's alone: they never sync.

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";

const PLUGIN = "cz.tessera.baby";
const $ = (id) => document.getElementById(id);
const KINDS = { vaccination: "Vaccination", doctorVisit: "Doctor visit", medication: "Medication" };

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
  const names = new Map(items.map((item) => [item.id, `${item.type === "doctor_visit" ? "Doctor visit" : item.name} (${item.date})`]));
  for (const reminder of reminders) {
    if (childId && reminder.childId && reminder.childId !== childId) continue;
    const what = names.get(reminder.recordId) || reminder.recordId;
    $("reminders").append(el("li", { "data-record": reminder.recordId }, `${KINDS[reminder.kind] || reminder.kind}: ${what} — next ${reminder.next || "none"}`));
  }
  if (!$("reminders").childNodes.length) $("reminders").append(el("li", {}, "No reminders on this device."));
  for (const item of items.filter((i) => i.type !== "medication")) $("reminder-record").append(el("option", { value: item.id, selected: item.id === chosen }, names.get(item.id)));
}

/** Binds the reminder form. */
export function bindReminderForm(done) {
  $("reminder-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = { recordId: $("reminder-record").value };
    if ($("reminder-at").value) input.remindAt = $("reminder-at").value.slice(0, 16);
    await done(callOperation(PLUGIN, "reminder-set", input), input.remindAt ? "Reminder set." : "Reminder cleared.");
  });
}
