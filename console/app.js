// The console's start: the person's language, then who is signed in. Nobody: the sign-in form
// (name and password, a session cookie), or on a new device without a hub the form for its first
// account; an operator may paste an access token instead (kept in sessionStorage for this tab).
// Signed in: everyone sees their modules and notifications; an admin also the operator's view.

import { token, setToken, forgetToken, request, APIError } from "./api.js";
import { startLanguage, language, setLanguage, t } from "./i18n.js";
import { errorText, showError, clearError } from "./errors.js";
import { renderPlugins } from "./plugins.js";
import { startInbox } from "./inbox.js";
import { startCaller } from "./call.js";
import { startClock } from "./clock.js";
import { renderModules } from "./modules.js";
import { startAccounts } from "./accounts.js";

const $ = (id) => document.getElementById(id);
let stopStream = null;
let accountsStarted = false;

async function showSignIn(message) {
  if (stopStream) { stopStream(); stopStream = null; }
  $("signed-in").hidden = true;
  $("views").hidden = true;
  $("sign-out").hidden = true;
  $("host-line").textContent = "";
  let setup = { firstAccount: false, hub: null };
  try { setup = await request("GET", "/v1/session/setup"); } catch { /* the form still works */ }
  $("first-account").hidden = !setup.firstAccount;
  $("token-sign-in").hidden = false;
  $("sign-in").hidden = setup.firstAccount;
  $("sign-in-hub").hidden = !setup.hub;
  if (setup.hub) $("sign-in-hub").textContent = t("signIn.hubHelp", { hub: new URL(setup.hub).host });
  // A person new to the device's hub makes their account there (while no one uses the device yet).
  $("register").hidden = true;
  $("register-offer").hidden = !setup.canRegister;
  if (setup.hub) $("register-help").textContent = t("register.help", { hub: new URL(setup.hub).host });
  $("sign-in-error").textContent = message || "";
  (setup.firstAccount ? $("first-name") : $("sign-in-name")).focus();
  document.body.dataset.signIn = "shown";
}

function pluginsLine(plugins) {
  return t("plugins.summary", { count: plugins.length, active: plugins.filter((p) => p.state === "active").length });
}

/** Reads GET /v1/plugins again into the table (after an operator's restart). */
async function refreshPlugins() {
  const { plugins } = await request("GET", "/v1/plugins");
  $("host-line").textContent = pluginsLine(plugins);
  renderPlugins($("plugins-table").querySelector("tbody"), plugins, refreshPlugins);
}

async function showConsole() {
  delete document.body.dataset.signIn;
  const me = await request("GET", "/v1/session");
  if (me.language && me.language !== language()) { setLanguage(me.language); location.reload(); return; }
  // The language chosen before signing in becomes the account's (it follows the person elsewhere).
  if (!me.language && me.via === "session") request("PUT", "/v1/session/language", { language: language() }).catch(() => {});
  const { plugins } = await request("GET", "/v1/plugins");
  const admin = me.role === "admin";
  $("sign-in").hidden = true;
  $("first-account").hidden = true;
  $("register").hidden = true;
  $("token-sign-in").hidden = true;
  $("signed-in").hidden = false;
  $("views").hidden = !admin;
  $("operator").hidden = !admin;
  $("sign-out").hidden = false;
  $("host-line").textContent = t("console.signedInAs", { name: me.name });
  renderModules($("module-list"), $("modules-empty"), plugins);
  stopStream = await startInbox({ list: $("inbox"), empty: $("inbox-empty"), status: $("stream-status"), markAll: $("mark-all-read"), plugins });
  if (admin) {
    renderPlugins($("plugins-table").querySelector("tbody"), plugins, refreshPlugins);
    if (!accountsStarted) {
      accountsStarted = true;
      await startAccounts({ list: $("accounts-list"), form: $("account-form"), output: $("account-result"), me });
    }
    await startCaller({ form: $("call-form"), pluginSelect: $("call-plugin"), operationSelect: $("call-operation"),
      summary: $("call-summary"), fieldset: $("call-fields"), result: $("call-result") });
    await startClock({ section: $("clock"), now: $("clock-now"), form: $("clock-form"), input: $("clock-by"),
      error: $("clock-error"), result: $("clock-result") });
  }
  document.body.dataset.ready = "true";
  $("main").focus();
}

/** Sends a name and password to `path`, then opens the console; a refusal shows at `error`. */
function handleAccountForm(form, path, error) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const fields = Object.fromEntries(new FormData(form).entries());
    try {
      await request("POST", path, { name: fields.name.trim(), password: fields.password });
      form.reset();
      await showConsole();
    } catch (problem) {
      error.textContent = signInProblem(problem, form);
    }
  });
  form.querySelector("button[type=submit]").disabled = false;
}

/** The hub account's form: shown in place of the sign-in form, and back. */
function handleRegistration() {
  const form = $("register-form");
  const showing = (register) => {
    $("register").hidden = !register;
    $("sign-in").hidden = register;
    $("token-sign-in").hidden = register;
    (register ? $("register-first-name") : $("sign-in-name")).focus();
  };
  $("show-register").addEventListener("click", () => showing(true));
  $("register-back").addEventListener("click", () => showing(false));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    clearError({ form, output: $("register-error") });
    const fields = Object.fromEntries(new FormData(form).entries());
    try {
      await request("POST", "/v1/session/register", {
        firstName: fields.firstName.trim(), surname: fields.surname.trim(), email: fields.email.trim(),
        password: fields.password, acceptTerms: $("register-terms").checked,
      });
      form.reset();
      await showConsole();
    } catch (problem) {
      showError(problem, { form, output: $("register-error") });
    }
  });
  form.querySelector("button[type=submit]").disabled = false;
}

function signInProblem(problem, form) {
  if (problem instanceof APIError && problem.code === "too_many_attempts") {
    return t("signIn.tooMany", { minutes: Math.max(1, Math.ceil((problem.retryAfter || 60) / 60)) });
  }
  return errorText(problem, { form });
}

async function start() {
  await startLanguage();
  $("language").value = language();
  $("language").addEventListener("change", async () => {
    setLanguage($("language").value);
    try { await request("PUT", "/v1/session/language", { language: $("language").value }); } catch { /* not signed in yet */ }
    location.reload();
  });
  handleAccountForm($("sign-in-form"), "/v1/session", $("sign-in-error"));
  handleAccountForm($("first-account-form"), "/v1/session/account", $("first-account-error"));
  handleRegistration();
  $("token-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    setToken($("token-input").value.trim());
    $("token-input").value = "";
    try { await showConsole(); } catch (problem) {
      forgetToken();
      $("token-error").textContent = problem instanceof APIError && problem.status === 401 ? t("signIn.unknownToken") : errorText(problem);
    }
  });
  $("token-form").querySelector("button[type=submit]").disabled = false;
  $("sign-out").addEventListener("click", async () => {
    forgetToken();
    try { await request("DELETE", "/v1/session"); } catch { /* signed out either way */ }
    await showSignIn();
  });
  window.addEventListener("tessera:unauthorized", () => showSignIn(t("signIn.expired")));
  document.body.dataset.console = "started";
  try { await showConsole(); } catch (problem) {
    if (problem instanceof APIError && problem.status === 401) await showSignIn(token() ? t("signIn.unknownToken") : "");
    else await showSignIn(errorText(problem));
  }
}

start();
