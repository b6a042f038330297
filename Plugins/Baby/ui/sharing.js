// Sharing on the baby diary's page (UC29–UC31, the owner's): invite by e-mail address as parent
// or guardian, the members and open invitations, and revoking a member. These need the hub; a
// device without one, or a person who is not the owner, gets the module's refusal in the status
// line (`sharing_unavailable`, `not_owner`), word for word.

import { callOperation, APIError } from "/console/api.js";
import { el, clear } from "/console/dom.js";

const PLUGIN = "cz.tessera.baby";
const $ = (id) => document.getElementById(id);

/** Lists the members of `childId` when the person is its owner and a hub answers; else says why not. */
export async function showMembers(childId, level, done) {
  clear($("members"));
  if (!childId || level !== "owner") {
    $("members").append(el("li", {}, childId ? "Only the child's owner shares the child." : "—"));
    return;
  }
  try {
    const { members, invitations } = await callOperation(PLUGIN, "share-members", { childId });
    for (const member of members) {
      const revoke = member.level === "owner" ? null : el("button", { type: "button", "aria-label": `Revoke ${member.person}'s access` }, "Revoke");
      if (revoke) revoke.addEventListener("click", () => done(callOperation(PLUGIN, "share-revoke", { childId, person: member.person }), "Access revoked."));
      $("members").append(el("li", {}, `${member.person} — ${member.level} `, revoke));
    }
    for (const invitation of invitations) $("members").append(el("li", {}, `${invitation.person || "?"} — invited`));
  } catch (error) {
    $("members").append(el("li", {}, error instanceof APIError ? error.message : String(error)));
  }
}

/** Binds the invitation form. */
export function bindSharingForm(childId, done) {
  $("invite-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await done(callOperation(PLUGIN, "share-invite", { childId: childId(), email: $("invite-email").value, level: $("invite-level").value }),
               "Invitation sent.");
  });
}
