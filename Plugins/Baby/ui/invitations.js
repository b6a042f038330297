// The invitations inbox on the baby diary's page (UC30): invitations addressed to this person
// (`invitations-list`), each with Accept (`invitation-accept`: the child's records come with the
// next sync round) and Decline (`invitation-decline`: the invitation is deleted). They need the
// hub; a device without one gets the module's refusal, shown word for word.

import { callOperation, APIError } from "/console/api.js";
import { el, clear } from "/console/dom.js";

const PLUGIN = "cz.tessera.baby";
const $ = (id) => document.getElementById(id);

/** Lists the invitations waiting for this person, or says why there can be none. */
export async function showInvitations(done) {
  clear($("invitations"));
  let invitations;
  try {
    ({ invitations } = await callOperation(PLUGIN, "invitations-list", {}));
  } catch (error) {
    $("invitations").append(el("li", {}, error instanceof APIError ? error.message : String(error)));
    return;
  }
  for (const invitation of invitations) {
    const what = `${invitation.childName} from ${invitation.from}`;
    const accept = el("button", { type: "button", class: "accept", "aria-label": `Accept the invitation to ${what}` }, "Accept");
    accept.addEventListener("click", () => done(callOperation(PLUGIN, "invitation-accept", { invitationId: invitation.invitationId }),
                                                `Invitation accepted: ${invitation.childName} comes with the next sync.`));
    const decline = el("button", { type: "button", class: "decline", "aria-label": `Decline the invitation to ${what}` }, "Decline");
    decline.addEventListener("click", () => done(callOperation(PLUGIN, "invitation-decline", { invitationId: invitation.invitationId }),
                                                 "Invitation declined."));
    $("invitations").append(el("li", { "data-id": invitation.invitationId }, `${what} (until ${invitation.expiresAt.slice(0, 10)}) `, accept, " ", decline));
  }
  if (!invitations.length) $("invitations").append(el("li", {}, "No invitations."));
}
