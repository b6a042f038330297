// Editing on the baby diary's page: a record chosen in the timeline (its "Edit" button) is loaded
// into the edit form, whose date and note `record-update` saves; "Delete" removes a record. A
// guardian may change only their own records: the module's refusal shows in the status line. The
// child's photo is set here too: the file is uploaded, then `child-update` names its address.

import { callOperation } from "/console/api.js";
import { el } from "/console/dom.js";
import { uploadPhoto } from "./photos.js";

const PLUGIN = "cz.tessera.baby";
const $ = (id) => document.getElementById(id);

// A vaccination is an item of the health card, not a record: it has its own operations.
const updating = (type) => (type === "vaccination" ? "health-item-update" : "record-update");
const deleting = (type) => (type === "vaccination" ? "health-item-delete" : "record-delete");

/** The Edit and Delete buttons of one timeline item. */
export function recordButtons(item, done) {
  const what = `the ${item.type.replace("_", " ")} of ${item.date}`;
  const edit = el("button", { type: "button", "aria-label": `Edit ${what}` }, "Edit");
  edit.addEventListener("click", () => {
    $("edit-form").dataset.id = item.id;
    $("edit-form").dataset.type = item.type;
    $("edit-what").textContent = `Editing ${what}`;
    $("edit-date").value = item.date;
    $("edit-note").value = item.note || "";
    $("edit-form").hidden = false;
    $("edit-note").focus();
  });
  const remove = el("button", { type: "button", "aria-label": `Delete ${what}` }, "Delete");
  remove.addEventListener("click", () => done(callOperation(PLUGIN, deleting(item.type), { id: item.id }), "Record deleted."));
  return [" ", edit, " ", remove];
}

/** Binds the edit form and the child's photo form. */
export function bindEditing(childId, done) {
  $("edit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = { id: $("edit-form").dataset.id, note: $("edit-note").value };
    if ($("edit-date").value) input.date = $("edit-date").value;
    await done(callOperation(PLUGIN, updating($("edit-form").dataset.type), input), "Record saved.");
    $("edit-form").hidden = true;
  });
  $("child-photo-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = $("child-photo").files[0];
    await done((async () => callOperation(PLUGIN, "child-update", { id: childId(), photo: await uploadPhoto(file) }))(), "Photo set.");
  });
}
