// Where the university's single sign-on sends the browser back: the address carries
// stagUserTicket (and stagUserName, stagUserRole, stagUserInfo). The page hands the ticket to the
// module's complete-login, which keeps it as a secret, and then removes it from the address bar
// and the history so that it is not left behind in the browser. The university (or a custom base
// address) was remembered in this tab's storage by index.html when the login started.

import { token, callOperation, APIError } from "/console/api.js";

const PLUGIN = "cz.tessera.stag";
const status = document.getElementById("status");

async function finish() {
  const params = new URLSearchParams(location.search);
  const ticket = params.get("stagUserTicket");
  history.replaceState(null, "", location.pathname);  // the ticket does not stay in the address bar
  if (!token()) { status.textContent = "Sign in on the Tessera console first, then start the IS/STAG login again."; return; }
  if (!ticket || ticket === "anonymous") { status.textContent = "The university did not log you in. Start the login again."; return; }
  const where = JSON.parse(sessionStorage.getItem("stag.login") ?? "{}");
  try {
    const me = await callOperation(PLUGIN, "complete-login", { ...where, ticket });
    status.textContent = `Logged in as ${me.name} (${(me.roles ?? []).join(", ")}).`;
    document.body.dataset.loggedIn = "true";
  } catch (error) {
    status.textContent = error instanceof APIError ? error.message : String(error);
  } finally {
    document.body.dataset.ready = "true";
  }
}

finish();
