// Contacts on the baby diary's page (UC21–UC23): the chosen child's general contacts and doctors,
// each with its tel: and mailto: links, a form to add one (a doctor also has a specialisation and
// office hours), Edit (the same form, saved with `contact-update`), a delete, and "share as vCard",
// which asks the module for the card and offers it as a download (a data: link; the host's content
// policy governs images and scripts, not links).

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";

const PLUGIN = "cz.tessera.baby";
const $ = (id) => document.getElementById(id);

/** Lists `childId`'s contacts and fills the visit form's doctor choice; answers the contacts. */
export async function showContacts(childId, done) {
  clear($("contacts"));
  clear($("visit-doctor"));
  if (!childId) return [];
  const { contacts } = await callOperation(PLUGIN, "contacts-list", { childId });
  for (const contact of contacts) {
    const links = [contact.tel ? el("a", { href: contact.tel }, contact.phone) : null,
                   contact.mailto ? el("a", { href: contact.mailto }, contact.email) : null].filter(Boolean);
    const doctor = contact.kind === "doctor" ? ` — ${contact.specialization || "doctor"}${contact.officeHours ? ", " + contact.officeHours : ""}` : "";
    const share = el("button", { type: "button", "aria-label": `Share ${contact.name} as a vCard` }, "Share as vCard");
    share.addEventListener("click", () => offerVCard(contact, share));
    const edit = el("button", { type: "button", "aria-label": `Edit the contact ${contact.name}` }, "Edit");
    edit.addEventListener("click", () => editContact(contact));
    const remove = el("button", { type: "button", "aria-label": `Delete the contact ${contact.name}` }, "Delete");
    remove.addEventListener("click", () => done(callOperation(PLUGIN, "contact-delete", { id: contact.id }), "Contact deleted."));
    $("contacts").append(el("li", { "data-id": contact.id }, `${contact.name} (${contact.kind})${doctor} `, ...links.flatMap((a) => [a, " "]), share, " ", edit, " ", remove));
    if (contact.kind === "doctor") $("visit-doctor").append(el("option", { value: contact.id }, contact.name));
  }
  return contacts;
}

/** Fetches the contact's vCard and puts a download link for it beside the button. */
async function offerVCard(contact, button) {
  const card = await callOperation(PLUGIN, "contact-vcard", { id: contact.id });
  const link = el("a", { class: "vcard", download: card.fileName, href: `data:${card.mediaType};charset=utf-8,${encodeURIComponent(card.vcard)}` },
                  `Download ${card.fileName}`);
  button.replaceWith(link);
}

const FIELDS = [["phone", "contact-phone"], ["email", "contact-email"], ["address", "contact-address"]];
const DOCTOR_FIELDS = [["specialization", "contact-specialization"], ["officeHours", "contact-hours"]];

/** Loads `contact` into the contact form, which then saves it instead of adding one. */
function editContact(contact) {
  const form = $("contact-form");
  form.dataset.id = contact.id;
  $("contact-kind").value = contact.kind;
  $("contact-kind").disabled = true;  // a contact keeps its kind
  $("contact-name").value = contact.name;
  for (const [field, id] of FIELDS.concat(DOCTOR_FIELDS)) $(id).value = contact[field] || "";
  $("contact-submit").textContent = "Save contact";
  $("contact-name").focus();
}

function resetContactForm() {
  const form = $("contact-form");
  delete form.dataset.id;
  form.reset();
  $("contact-kind").disabled = false;
  $("contact-submit").textContent = "Add contact";
}

/** Binds the contact form: it adds a contact, or saves the one being edited (an emptied field is
 * cleared); the doctor's fields are sent only for a doctor. */
export function bindContactForm(childId, done) {
  $("contact-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const editing = $("contact-form").dataset.id;
    const kind = $("contact-kind").value;
    const input = editing ? { id: editing, name: $("contact-name").value } : { childId: childId(), kind, name: $("contact-name").value };
    for (const [field, id] of FIELDS.concat(kind === "doctor" ? DOCTOR_FIELDS : [])) {
      if ($(id).value || editing) input[field] = $(id).value;
    }
    const change = callOperation(PLUGIN, editing ? "contact-update" : "contact-add", input);
    await done(change.then((saved) => { resetContactForm(); return saved; }), editing ? "Contact saved." : "Contact added.");
  });
}
