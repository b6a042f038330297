// What every module page starts with (docs/console.md, "A module's page"): the person's language
// (the console's catalogue and the page's own, ui/messages/<lang>.json), then who is signed in.
// Nobody: the page says so in a sentence with a link to the console's sign-in, and stops.
//
//   import { startPage } from "/console/page.js";
//   const me = await startPage({ status: document.getElementById("status") });
//   if (!me) return;

import { whoIsSignedIn } from "./api.js";
import { startLanguage, t } from "./i18n.js";
import { el, clear } from "./dom.js";

/**
 * Translates the page and finds who is signed in. `status` is where the "sign in first" sentence
 * goes. Returns the person ({name, role, …}) or null.
 */
export async function startPage({ status, catalogue = "messages" }) {
  await startLanguage([new URL(catalogue, location.href).pathname.replace(/\/$/, "")]);
  const me = await whoIsSignedIn();
  if (!me) {
    clear(status);
    status.append(t("page.signInFirst"), " ", el("a", { href: "/" }, t("page.signInLink")));
    document.body.dataset.ready = "signed-out";
  }
  return me;
}
