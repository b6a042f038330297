// Editing on the baby diary's page: a record chosen in a list (the timeline, the milestones, the
// posts: its "Edit" button) is loaded into the edit form, which opens right below that list; its
// date (a day, or a day and time for a record kept to the minute) and note `record-update` saves;
// "Delete" removes a record. A guardian may change only their own records: the module's refusal is
// said in a sentence. The child's photo is set here too: the file is uploaded, then `child-update`
// names its address.

import { callOperation } from "/console/api.js";
import { el } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { PLUGIN, $, when, named, sayUnder, clearFormError } from "./common.js";
import { uploadPhoto } from "./photos.js";

// A vaccination is an item of the health card, not a record: it has its own operations.
const updating = (type) => (type === "vaccination" ? "health-item-update" : "record-update");
const deleting = (type) => (type === "vaccination" ? "health-item-delete" : "record-delete");

/** The Edit and Delete buttons of one timeline item. */
export function recordButtons(item, done) {
  const what = { type: named("types", item.type), date: when(item.date) };
  const edit = el("button", { type: "button", class: "secondary", "aria-label": t("records.editLabel", what) }, t("diary.edit"));
  edit.addEventListener("click", () => {
    const form = $("edit-form");
    form.dataset.id = item.id;
    form.dataset.type = item.type;
    $("edit-what").textContent = t("records.editing", what);
    // A record kept to the minute (a temperature, a visit) is edited as a day and time.
    const moment = item.date.length > 10;
    $("edit-date").type = moment ? "datetime-local" : "date";
    $("edit-date-label").textContent = t(moment ? "diary.dateTime" : "diary.date");
    $("edit-date").value = item.date;
    $("edit-note").value = item.note || "";
    clearFormError(form);
    edit.closest("ol, ul").after(form);
    form.hidden = false;
    $("edit-note").focus();
  });
  const remove = el("button", { type: "button", class: "secondary", "aria-label": t("records.deleteLabel", what) }, t("diary.delete"));
  remove.addEventListener("click", () => done(callOperation(PLUGIN, deleting(item.type), { id: item.id }), t("records.deleted")));
  return [" ", el("span", { class: "record-actions" }, edit, remove)];
}

/** Binds the edit form and the child's photo form. */
export function bindEditing(childId, done) {
  $("edit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const input = { id: form.dataset.id, note: $("edit-note").value };
    if ($("edit-date").value) input.date = $("edit-date").value.slice(0, 16);
    if (await done(callOperation(PLUGIN, updating(form.dataset.type), input), t("records.saved"), form)) form.hidden = true;
  });
  $("child-photo-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const file = $("child-photo").files[0];
    if (!childId() || !file) {
      sayUnder(form, t(childId() ? "children.choosePhoto" : "invalid.childId"));
      return;
    }
    await done((async () => callOperation(PLUGIN, "child-update", { id: childId(), photo: await uploadPhoto(file) }))(), t("children.photoSet"), form);
  });
}
