// The children on the baby diary's page (UC7, UC8): the child picker at the top (whose diary the
// page shows; the choice is kept in this browser), "Add a child" below it (`child-create`: name,
// birth date, sex; open by itself while the diary has no child), and in the overview every child
// with photo, birth date, age and the person's role, the chosen one with its latest weight, height
// and head circumference (`child-get`) and "Edit details" (`child-update`: name, birth date, sex;
// the photo beside it, records.js; for the owner, deleting the child's diary after ticking that it
// cannot be undone: `child-delete`). A refusal is said right below the field at fault.

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { date } from "/console/format.js";
import { PLUGIN, $, ageText, named, measure, when, clearFormError, sayUnder } from "./common.js";
import { photoImage } from "./photos.js";

const KEPT = "tessera.baby.child";
const KINDS = [["weight", "kg"], ["height", "cm"], ["headCircumference", "cm"]];

/** The person's level for each child: sharing is the owner's. */
export const levels = {};
let profiles = new Map();  // id → child-get's answer
let addFormOpenedByItself = false;  // while the diary had no child

/** The chosen child's id, or "" when the diary has none. */
export const chosenChild = () => $("child").value;

/** The chosen child's profile (`child-get`), when there is one. */
export const chosenProfile = () => profiles.get(chosenChild()) || null;

/** Chooses the child `id` (kept for the next visit); the caller shows the page again. */
export function choose(id) {
  $("child").value = id;
  try { localStorage.setItem(KEPT, id); } catch { /* a browser that keeps nothing still works */ }
}

/** Lists the children, fills the picker (keeping the choice), and answers how many there are. */
export async function showChildren(done) {
  const { children } = await callOperation(PLUGIN, "children-list", {});
  const wanted = $("child").value || localStorage.getItem(KEPT) || "";
  const chosen = children.some((child) => child.id === wanted) ? wanted : (children[0] ? children[0].id : "");
  for (const id of Object.keys(levels)) delete levels[id];
  profiles = new Map(await Promise.all(children.map(async (child) => [child.id, await callOperation(PLUGIN, "child-get", { id: child.id })])));
  clear($("children"));
  clear($("child"));
  for (const child of children) {
    levels[child.id] = child.level;
    const profile = profiles.get(child.id);
    const photo = child.photo ? photoImage(child.photo, t("children.photoAlt", { name: child.name })) : null;
    const age = ageText(profile.age);
    const params = { name: child.name, born: date(child.birthDate), age, role: named("levels", child.level) };
    const line = t(age ? "children.item" : "children.itemNoAge", params);
    const item = child.id === chosen
      ? el("li", { "data-id": child.id, class: "chosen", "aria-current": "true" }, photo, line, latest(profile), el("p", { class: "actions" }, editButton(child)))
      : el("li", { "data-id": child.id }, photo, line, " ", showButton(child, done));
    $("children").append(item);
    $("child").append(el("option", { value: child.id, selected: child.id === chosen }, child.name));
  }
  $("child").value = chosen;
  $("children-empty").hidden = children.length > 0;
  $("child-pick").hidden = children.length === 0;
  // With no child yet, adding one is the page's first step: its form is open, with nothing to
  // cancel. A child that came otherwise (with the sign-up, an accepted invitation) closes it again.
  if (!children.length) {
    addFormOpenedByItself = addFormOpenedByItself || $("child-form").hidden;
    openAddForm(false);
  } else if (addFormOpenedByItself) {
    closeAddForm();
  }
  $("child-add-cancel").hidden = !children.length;
  $("child-add-open").hidden = !children.length || !$("child-form").hidden;
  if (!children.length || !profiles.has(chosen)) closeEditForm();
  return children.length;
}

/** The chosen child's latest measurements: "Váha: 8,35 kg (1. 3. 2026)". */
function latest(profile) {
  const rows = KINDS.filter(([kind]) => profile.latest && profile.latest[kind])
    .map(([kind, unit]) => el("li", {}, t("children.latest", { kind: named("kinds", kind), value: measure(profile.latest[kind].value, unit),
                                                                  date: when(profile.latest[kind].date) })));
  return rows.length ? el("ul", { class: "latest" }, rows) : el("p", { class: "muted latest" }, t("children.noMeasurements"));
}

function showButton(child, done) {
  const button = el("button", { type: "button", class: "secondary", "aria-label": t("children.showLabel", { name: child.name }) }, t("children.show"));
  button.addEventListener("click", () => {
    choose(child.id);
    done(Promise.resolve(), t("children.shown", { name: child.name }));
  });
  return button;
}

function editButton(child) {
  const button = el("button", { type: "button", class: "secondary", id: "child-edit-open", "aria-expanded": String(!$("child-edit").hidden),
                                "aria-controls": "child-edit", "aria-label": t("children.editLabel", { name: child.name }) }, t("children.edit"));
  button.addEventListener("click", () => openEditForm());
  return button;
}

/** Opens "Add a child" (below the picker); `cancellable` when the diary has a child already. */
function openAddForm(focus = true) {
  $("child-form").hidden = false;
  $("child-add-open").hidden = true;
  $("child-add-open").setAttribute("aria-expanded", "true");
  $("child-form-intro").hidden = $("child").options.length > 0;
  if (focus) $("child-name").focus();
}

function closeAddForm() {
  addFormOpenedByItself = false;
  const form = $("child-form");
  form.reset();
  clearFormError(form);
  form.hidden = true;
  $("child-add-open").hidden = false;
  $("child-add-open").setAttribute("aria-expanded", "false");
}

/** Loads the chosen child into "Edit details" and opens it. */
function openEditForm() {
  const profile = chosenProfile();
  if (!profile) return;
  clearFormError($("child-edit-form"));
  $("child-edit-heading").textContent = t("children.editHeading", { name: profile.name });
  $("child-edit-name").value = profile.name;
  $("child-edit-birth").value = profile.birthDate;
  $("child-edit-sex").value = profile.sex || "";
  // Only the owner deletes a child (with a hub, for everyone it is shared with).
  $("child-delete-form").hidden = levels[chosenChild()] !== "owner";
  $("child-delete-form").reset();
  clearFormError($("child-delete-form"));
  $("child-delete-heading").textContent = t("children.deleteHeading", { name: profile.name });
  $("child-delete-warning").textContent = t("children.deleteWarning", { name: profile.name });
  $("child-edit").hidden = false;
  if ($("child-edit-open")) $("child-edit-open").setAttribute("aria-expanded", "true");
  $("child-edit-name").focus();
}

function closeEditForm() {
  $("child-edit").hidden = true;
  if ($("child-edit-open")) $("child-edit-open").setAttribute("aria-expanded", "false");
}

/**
 * Binds the picker and the two forms. `done(change, message, form)` shows the page again after a
 * change; `chosen(id)` is told of a new child, so that the page opens its overview.
 */
export function bindChildren(done, chosen) {
  $("child").addEventListener("change", () => {
    choose($("child").value);
    closeEditForm();
    done(Promise.resolve(), t("children.shown", { name: $("child").selectedOptions[0]?.textContent || "" }));
  });
  $("child-add-open").addEventListener("click", () => openAddForm());
  $("child-add-cancel").addEventListener("click", () => { closeAddForm(); $("child-add-open").focus(); });
  $("child-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const input = { name: $("child-name").value, birthDate: $("child-birth").value };
    if ($("child-sex").value) input.sex = $("child-sex").value;
    const change = callOperation(PLUGIN, "child-create", input).then((child) => { choose(child.id); return child; });
    if (await done(change, t("children.added", { name: input.name.trim() }), form)) {
      closeAddForm();
      chosen();
    }
  });
  $("child-edit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const input = { id: chosenChild(), name: $("child-edit-name").value, birthDate: $("child-edit-birth").value, sex: $("child-edit-sex").value };
    if (await done(callOperation(PLUGIN, "child-update", input), t("children.saved", { name: input.name.trim() }), form)) closeEditForm();
  });
  $("child-delete-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const name = chosenProfile()?.name || "";
    if (!$("child-delete-sure").checked) {
      sayUnder(form, t("children.deleteNotSure", { name }));
      $("child-delete-sure").focus();
      return;
    }
    const change = callOperation(PLUGIN, "child-delete", { id: chosenChild() }).then(() => choose(""));
    if (await done(change, t("children.deleted", { name }), form)) closeEditForm();
  });
  $("child-edit-cancel").addEventListener("click", () => {
    closeEditForm();
    if ($("child-edit-open")) $("child-edit-open").focus();
  });
}
