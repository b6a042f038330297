// The health card (UC8–UC13) on the baby diary's page: blood group, insurer, allergies, past
// diseases and vaccinations of the chosen child, and forms that change them (owners and parents;
// a guardian's change is refused by the module with its reason, shown in the status line). Each
// allergy, disease and vaccination has Edit, which loads it into the health item form
// (`health-item-update`: name, an allergy's severity, the date or a disease's month, the note).

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";

const PLUGIN = "cz.tessera.baby";
const $ = (id) => document.getElementById(id);
let insurersLoaded = false;

async function loadInsurers() {
  if (insurersLoaded) return;
  const { insurers } = await callOperation(PLUGIN, "insurers-list", {});
  for (const insurer of insurers) $("card-insurer").append(el("option", { value: insurer.code }, `${insurer.code} ${insurer.name}`));
  insurersLoaded = true;
}

/** Shows the card of `childId` (from `child-get`) and sets the form to its values. */
export async function showHealthCard(childId) {
  await loadInsurers();
  const card = $("health-card");
  clear(card);
  if (!childId) return;
  const { health } = await callOperation(PLUGIN, "child-get", { id: childId });
  const insurer = health.insurer ? `${health.insurer.code} ${health.insurer.name}` : "—";
  const row = (term, ...values) => [el("dt", {}, term), el("dd", {}, ...values)];
  const list = (items, text) => (items.length ? el("ul", {}, items.map((item) => el("li", { "data-id": item.id }, text(item), " ", editButton(item)))) : "—");
  card.append(...row("Blood group", health.bloodGroup || "—"), ...row("Insurer", insurer),
    ...row("Allergies", list(health.allergies, (a) => `${a.name} (${a.severity})`)),
    ...row("Diseases", list(health.diseases, (d) => `${d.name} (${d.month})`)),
    ...row("Vaccinations", list(health.vaccinations, (v) => `${v.name} ${v.date}`)),
    ...row("Upcoming vaccinations", list(health.upcomingVaccinations, (v) => `${v.name} ${v.date}`)));
  $("card-blood").value = health.bloodGroup || "";
  $("card-insurer").value = health.insurer ? health.insurer.code : "";
}

/** Edit for one allergy, disease or vaccination: loads it into the health item form. */
function editButton(item) {
  const button = el("button", { type: "button", "aria-label": `Edit the ${item.kind} ${item.name}` }, "Edit");
  button.addEventListener("click", () => {
    const form = $("health-item-form");
    form.dataset.id = item.id;
    form.dataset.kind = item.kind;
    $("health-item-what").textContent = `Editing the ${item.kind} ${item.name}`;
    $("health-item-name").value = item.name;
    $("health-item-severity-field").hidden = item.kind !== "allergy";
    $("health-item-severity").value = item.severity || "mild";
    $("health-item-date-field").hidden = item.kind === "allergy";
    $("health-item-date").value = item.date || item.month || "";
    $("health-item-note").value = item.note || "";
    form.hidden = false;
    $("health-item-name").focus();
  });
  return button;
}

/** Binds the card's forms; `done(message)` refreshes the page after a change. */
export function bindHealthForms(childId, done) {
  const submit = (form, operation, input) => $(form).addEventListener("submit", async (event) => {
    event.preventDefault();
    await done(callOperation(PLUGIN, operation, { childId: childId(), ...input() }), `${operation}: saved.`);
  });
  submit("card-form", "health-card-set", () => ({ bloodGroup: $("card-blood").value, insurer: $("card-insurer").value }));
  submit("allergy-form", "allergy-add", () => ({ allergen: $("allergy-name").value, severity: $("allergy-severity").value }));
  submit("disease-form", "disease-add", () => ({ name: $("disease-name").value, month: $("disease-month").value }));
  submit("vaccination-form", "vaccination-add", () => ({ name: $("vaccination-name").value, date: $("vaccination-date").value }));
  $("health-item-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = $("health-item-form");
    const input = { id: form.dataset.id, name: $("health-item-name").value, note: $("health-item-note").value };
    if (form.dataset.kind === "allergy") input.severity = $("health-item-severity").value;
    else if ($("health-item-date").value) input.date = $("health-item-date").value;
    await done(callOperation(PLUGIN, "health-item-update", input).then((item) => { form.hidden = true; return item; }), "Health item saved.");
  });
}
