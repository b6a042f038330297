// Where the university's single sign-on sends the browser back: the address carries
// stagUserTicket (and stagUserName, stagUserRole, stagUserInfo). The page hands the ticket to the
// module's complete-login, which keeps it as a secret, and then removes it from the address bar
// and the history so that it is not left behind in the browser. The university (or a custom base
// address) was remembered in this tab's storage by index.html when the login started. After the
// login, a link leads on to the page itself (the timetable, exams and the rest); it is focused, so
// that Enter follows it.

import { callOperation } from "/console/api.js";
import { el } from "/console/dom.js";
import { errorText } from "/console/errors.js";
import { list } from "/console/format.js";
import { t } from "/console/i18n.js";
import { startPage } from "/console/page.js";

const PLUGIN = "cz.tessera.stag";
const status = document.getElementById("status");

/** Says `message`, then links back to the IS/STAG page to start the login again. */
function startAgain(message) {
  status.textContent = message;
  status.append(" ", el("a", { href: "./" }, t("stag.startAgain")));
}

async function finish() {
  const params = new URLSearchParams(location.search);
  const ticket = params.get("stagUserTicket");
  history.replaceState(null, "", location.pathname);  // the ticket does not stay in the address bar
  const me = await startPage({ status });
  if (!me) return;
  const where = JSON.parse(sessionStorage.getItem("stag.login") ?? "{}");
  try {
    if (!ticket || ticket === "anonymous") return startAgain(t("stag.declined"));
    if (!where.university && !where.baseURL) return startAgain(t("stag.noUniversity"));
    const login = await callOperation(PLUGIN, "complete-login", { ...where, ticket });
    // "student", "teacher": the module's role names, said in the person's language.
    const roles = (login.roles ?? []).map((role) => t(`stag.roles.${role}`));
    status.textContent = t("stag.loggedIn", { name: login.name, roles: list(roles) });
    document.getElementById("next").hidden = false;
    document.getElementById("continue").focus();
    document.body.dataset.loggedIn = "true";
  } catch (error) {
    startAgain(errorText(error));
  } finally {
    document.body.dataset.ready = "true";
  }
}

finish();
