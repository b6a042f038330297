// Contacts on the baby diary's page (UC21–UC23): the chosen child's general contacts and doctors,
// each with its tel: and mailto: links, a form to add one (a doctor also has a specialisation and
// office hours), a delete, and "share as vCard", which asks the module for the card and offers it
// as a download (a data: link; the host's content policy governs images and scripts, not links).

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
    const remove = el("button", { type: "button", "aria-label": `Delete the contact ${contact.name}` }, "Delete");
    remove.addEventListener("click", () => done(callOperation(PLUGIN, "contact-delete", { id: contact.id }), "Contact deleted."));
    $("contacts").append(el("li", { "data-id": contact.id }, `${contact.name} (${contact.kind})${doctor} `, ...links.flatMap((a) => [a, " "]), share, " ", remove));
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

/** Binds the contact form; the doctor's fields are sent only for a doctor. */
export function bindContactForm(childId, done) {
  $("contact-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = { childId: childId(), kind: $("contact-kind").value, name: $("contact-name").value };
    for (const [field, id] of [["phone", "contact-phone"], ["email", "contact-email"], ["address", "contact-address"]]) {
      if ($(id).value) input[field] = $(id).value;
    }
    if (input.kind === "doctor") {
      if ($("contact-specialization").value) input.specialization = $("contact-specialization").value;
      if ($("contact-hours").value) input.officeHours = $("contact-hours").value;
    }
    await done(callOperation(PLUGIN, "contact-add", input), "Contact added.");
  });
}
