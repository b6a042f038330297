// The invitations inbox on the baby diary's page (UC30): invitations addressed to this person
// (`invitations-list`), each with who invites, to which child, and when it expires ("in 6 days",
// on the host's clock), with Accept (`invitation-accept`: the child's records come with the next
// sync round) and Decline (`invitation-decline`: the invitation is deleted). They need the hub; a
// device without one is told so in a sentence. While some wait, the overview says how many, with a
// link to them.

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { relative } from "/console/format.js";
import { errorText } from "/console/errors.js";
import { PLUGIN, $, clock } from "./common.js";

/** Lists the invitations waiting for this person, or says why there can be none. */
export async function showInvitations(done) {
  clear($("invitations"));
  $("invitations-hint").hidden = true;
  let invitations;
  try {
    ({ invitations } = await callOperation(PLUGIN, "invitations-list", {}));
  } catch (error) {
    $("invitations").append(el("li", { class: "muted" }, errorText(error)));
    return;
  }
  $("invitations-hint-text").textContent = t("overview.invitations", { count: invitations.length });
  $("invitations-hint").hidden = invitations.length === 0;
  for (const invitation of invitations) {
    // "Ada Lovelace (ada@example.org)": the names the inviter registered with, and the account (issue 41).
    const from = invitation.fromName ? t("account.nameAndAccount", { name: invitation.fromName, account: invitation.from }) : invitation.from;
    const what = { child: invitation.childName, from };
    const accept = el("button", { type: "button", class: "accept", "aria-label": t("invitations.acceptLabel", what) }, t("invitations.accept"));
    accept.addEventListener("click", () => done(callOperation(PLUGIN, "invitation-accept", { invitationId: invitation.invitationId }),
                                                t("invitations.accepted", what)));
    const decline = el("button", { type: "button", class: "decline secondary", "aria-label": t("invitations.declineLabel", what) }, t("invitations.decline"));
    decline.addEventListener("click", () => done(callOperation(PLUGIN, "invitation-decline", { invitationId: invitation.invitationId }),
                                                 t("invitations.declined")));
    $("invitations").append(el("li", { "data-id": invitation.invitationId },
                               t("invitations.item", { ...what, expires: relative(invitation.expiresAt, clock.now) }), " ", accept, " ", decline));
  }
  if (!invitations.length) $("invitations").append(el("li", { class: "muted" }, t("invitations.none")));
}
