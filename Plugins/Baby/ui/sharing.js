// Sharing on the baby diary's page (UC29–UC31, the owner's): invite by e-mail address as parent
// or guardian, the members and open invitations, and revoking a member. These need the hub; a
// device without one, or a person who is not the owner, is told so in a sentence
// (`errors.sharing_unavailable`, `errors.not_owner`).

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { errorText } from "/console/errors.js";
import { PLUGIN, $, named } from "./common.js";

/** Lists the members of `childId` when the person is its owner and a hub answers; else says why not. */
export async function showMembers(childId, level, done) {
  clear($("members"));
  if (!childId || level !== "owner") {
    $("members").append(el("li", { class: "muted" }, t(childId ? "sharing.ownerOnly" : "sharing.noChild")));
    return;
  }
  try {
    const { members, invitations } = await callOperation(PLUGIN, "share-members", { childId });
    for (const member of members) {
      const revoke = member.level === "owner" ? null
        : el("button", { type: "button", class: "secondary", "aria-label": t("sharing.revokeLabel", { person: member.person }) }, t("sharing.revoke"));
      if (revoke) revoke.addEventListener("click", () => done(callOperation(PLUGIN, "share-revoke", { childId, person: member.person }), t("sharing.revoked")));
      $("members").append(el("li", {}, t("sharing.member", { person: member.person, level: named("levels", member.level) }), revoke ? [" ", revoke] : null));
    }
    for (const invitation of invitations) {
      $("members").append(el("li", {}, invitation.person ? t("sharing.invited", { person: invitation.person }) : t("sharing.invitedSomeone")));
    }
  } catch (error) {
    $("members").append(el("li", { class: "muted" }, errorText(error)));
  }
}

/** Binds the invitation form. */
export function bindSharingForm(childId, done) {
  $("invite-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const email = $("invite-email").value.trim();
    const form = event.currentTarget;
    if (await done(callOperation(PLUGIN, "share-invite", { childId: childId(), email, level: $("invite-level").value }),
                   t("sharing.sent", { email }), form)) form.reset();
  });
}
