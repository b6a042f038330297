// The health card (UC8–UC13) on the baby diary's page: blood group, insurer, allergies, past
// diseases and vaccinations of the chosen child, and forms that change them (owners and parents;
// a guardian's change is refused by the module, and the page says so under the form). Each
// allergy, disease and vaccination has Edit, which loads it into the health item form
// (`health-item-update`: name, an allergy's severity, a vaccination's day or a disease's month,
// the note).

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { date, month } from "/console/format.js";
import { PLUGIN, $, named } from "./common.js";

let insurersLoaded = false;

async function loadInsurers() {
  if (insurersLoaded) return;
  const { insurers } = await callOperation(PLUGIN, "insurers-list", {});
  for (const insurer of insurers) $("card-insurer").append(el("option", { value: insurer.code }, t("health.insurerName", insurer)));
  insurersLoaded = true;
}

/** Shows the card of `childId` (from `child-get`) and sets the form to its values. */
export async function showHealthCard(childId) {
  await loadInsurers();
  const card = $("health-card");
  clear(card);
  if (!childId) return;
  const { health } = await callOperation(PLUGIN, "child-get", { id: childId });
  const none = t("health.none");
  const insurer = health.insurer ? t("health.insurerName", { code: health.insurer.code, name: health.insurer.name || "" }) : t("health.notKnown");
  const row = (term, ...values) => [el("dt", {}, term), el("dd", {}, ...values)];
  const list = (items, text) => (items.length ? el("ul", {}, items.map((item) => el("li", { "data-id": item.id }, text(item), " ", editButton(item)))) : none);
  card.append(...row(t("health.bloodGroup"), health.bloodGroup || t("health.notKnown")), ...row(t("health.insurer"), insurer),
    ...row(t("health.allergies"), list(health.allergies, (a) => t("health.allergyItem", { name: a.name, severity: named("severity", a.severity) }))),
    ...row(t("health.diseases"), list(health.diseases, (d) => t("health.diseaseItem", { name: d.name, month: month(d.month) }))),
    ...row(t("health.vaccinations"), list(health.vaccinations, (v) => t("health.vaccinationItem", { name: v.name, date: date(v.date) }))),
    ...row(t("health.upcoming"), list(health.upcomingVaccinations, (v) => t("health.vaccinationItem", { name: v.name, date: date(v.date) }))));
  $("card-blood").value = health.bloodGroup || "";
  $("card-insurer").value = health.insurer ? health.insurer.code : "";
}

/** Edit for one allergy, disease or vaccination: loads it into the health item form. */
function editButton(item) {
  const button = el("button", { type: "button", class: "secondary", "aria-label": t(`health.edit.${item.kind}`, { name: item.name }) }, t("diary.edit"));
  button.addEventListener("click", () => {
    const form = $("health-item-form");
    form.dataset.id = item.id;
    form.dataset.kind = item.kind;
    $("health-item-what").textContent = t(`health.editing.${item.kind}`, { name: item.name });
    $("health-item-name").value = item.name;
    $("health-item-severity-field").hidden = item.kind !== "allergy";
    $("health-item-severity").value = item.severity || "mild";
    $("health-item-date-field").hidden = item.kind === "allergy";
    // A disease has a month, a vaccination a day: the browser's own picker for each.
    $("health-item-date").type = item.kind === "disease" ? "month" : "date";
    $("health-item-date-label").textContent = t(item.kind === "disease" ? "health.month" : "diary.date");
    $("health-item-date").value = (item.kind === "disease" ? item.month : (item.date || "").slice(0, 10)) || "";
    $("health-item-note").value = item.note || "";
    form.hidden = false;
    $("health-item-name").focus();
  });
  return button;
}

/** Binds the card's forms; `done(change, message, form)` refreshes the page after a change. */
export function bindHealthForms(childId, done) {
  const submit = (form, operation, message, input) => $(form).addEventListener("submit", async (event) => {
    event.preventDefault();
    await done(callOperation(PLUGIN, operation, { childId: childId(), ...input() }), t(message), event.currentTarget);
  });
  submit("card-form", "health-card-set", "health.cardSaved", () => ({ bloodGroup: $("card-blood").value, insurer: $("card-insurer").value }));
  submit("allergy-form", "allergy-add", "health.allergyAdded", () => ({ allergen: $("allergy-name").value, severity: $("allergy-severity").value }));
  submit("disease-form", "disease-add", "health.diseaseAdded", () => ({ name: $("disease-name").value, month: $("disease-month").value }));
  submit("vaccination-form", "vaccination-add", "health.vaccinationAdded", () => ({ name: $("vaccination-name").value, date: $("vaccination-date").value }));
  $("health-item-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const input = { id: form.dataset.id, name: $("health-item-name").value, note: $("health-item-note").value };
    if (form.dataset.kind === "allergy") input.severity = $("health-item-severity").value;
    else if ($("health-item-date").value) input.date = $("health-item-date").value;
    if (await done(callOperation(PLUGIN, "health-item-update", input), t("health.itemSaved"), form)) form.hidden = true;
  });
}
