// Contacts on the baby diary's page (UC21–UC23): the chosen child's general contacts and doctors,
// each with its tel: and mailto: links, a form to add one (a doctor also has a specialisation and
// office hours), Edit (the same form, saved with `contact-update`), a delete, and "share as vCard",
// which asks the module for the card and offers it as a download (a data: link; the host's content
// policy governs images and scripts, not links). The doctors' names are kept for the visits.

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { errorText } from "/console/errors.js";
import { PLUGIN, $, doctorNames, sayUnder } from "./common.js";

/** "MUDr. Nováková (lékař) — pediatrie, úřední hodiny po–pá 8–12". */
function contactText(contact) {
  if (contact.kind !== "doctor") return contact.name;
  const details = [contact.specialization, contact.officeHours ? t("contacts.officeHours", { hours: contact.officeHours }) : null].filter(Boolean);
  return details.length ? t("contacts.doctorWith", { name: contact.name, details: details.join(", ") }) : t("contacts.doctor", { name: contact.name });
}

/** Lists `childId`'s contacts and fills the visit form's doctor choice; answers the contacts. */
export async function showContacts(childId, done) {
  clear($("contacts"));
  clear($("visit-doctor"));
  doctorNames.clear();
  if (!childId) return [];
  const { contacts } = await callOperation(PLUGIN, "contacts-list", { childId });
  for (const contact of contacts) {
    const links = [contact.tel ? el("a", { href: contact.tel }, contact.phone) : null,
                   contact.mailto ? el("a", { href: contact.mailto }, contact.email) : null].filter(Boolean);
    const share = el("button", { type: "button", class: "secondary", "aria-label": t("contacts.shareLabel", { name: contact.name }) }, t("contacts.share"));
    share.addEventListener("click", () => offerVCard(contact, share));
    const edit = el("button", { type: "button", class: "secondary", "aria-label": t("contacts.editLabel", { name: contact.name }) }, t("diary.edit"));
    edit.addEventListener("click", () => editContact(contact));
    const remove = el("button", { type: "button", class: "secondary", "aria-label": t("contacts.deleteLabel", { name: contact.name }) }, t("diary.delete"));
    remove.addEventListener("click", () => done(callOperation(PLUGIN, "contact-delete", { id: contact.id }), t("contacts.deleted")));
    $("contacts").append(el("li", { "data-id": contact.id }, contactText(contact), " ", ...links.flatMap((a) => [a, " "]),
                            contact.address ? [contact.address, " "] : null, share, " ", edit, " ", remove));
    if (contact.kind === "doctor") {
      $("visit-doctor").append(el("option", { value: contact.id }, contact.name));
      doctorNames.set(contact.id, contact.name);
    }
  }
  if (!contacts.length) $("contacts").append(el("li", { class: "muted" }, t("contacts.none")));
  return contacts;
}

/** Fetches the contact's vCard and puts a download link for it beside the button. */
async function offerVCard(contact, button) {
  try {
    const card = await callOperation(PLUGIN, "contact-vcard", { id: contact.id });
    const link = el("a", { class: "vcard", download: card.fileName, href: `data:${card.mediaType};charset=utf-8,${encodeURIComponent(card.vcard)}` },
                    t("contacts.download", { file: card.fileName }));
    button.replaceWith(link);
  } catch (error) {
    $("status").textContent = errorText(error);
  }
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
  $("contact-submit").textContent = t("contacts.save");
  $("contact-name").focus();
}

function resetContactForm() {
  const form = $("contact-form");
  delete form.dataset.id;
  form.reset();
  $("contact-kind").disabled = false;
  $("contact-submit").textContent = t("contacts.add");
}

/** Binds the contact form: it adds a contact, or saves the one being edited (an emptied field is
 * cleared); the doctor's fields are sent only for a doctor. A contact needs a way to reach it:
 * a phone, an e-mail or an address, which the page asks for before sending. */
export function bindContactForm(childId, done) {
  $("contact-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const editing = form.dataset.id;
    const kind = $("contact-kind").value;
    if (FIELDS.every(([, id]) => !$(id).value.trim())) {
      sayUnder(form, t("contacts.needsWay"));
      $("contact-phone").setAttribute("aria-invalid", "true");
      $("contact-phone").focus();
      return;
    }
    const input = editing ? { id: editing, name: $("contact-name").value } : { childId: childId(), kind, name: $("contact-name").value };
    for (const [field, id] of FIELDS.concat(kind === "doctor" ? DOCTOR_FIELDS : [])) {
      if ($(id).value || editing) input[field] = $(id).value.trim();
    }
    const change = callOperation(PLUGIN, editing ? "contact-update" : "contact-add", input);
    await done(change.then((saved) => { resetContactForm(); return saved; }), t(editing ? "contacts.saved" : "contacts.added"), form);
  });
}
