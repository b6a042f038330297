// This device's person (UC1–UC4) on the baby diary's page (in its part "Sharing & account", with a
// line in the overview that leads there while a device with a hub is not logged in): when the
// device is not logged in to its hub, "Create account" (the hub's open registration and this
// device's login in one request, POST /v1/sync/register, then the optional first child with
// `child-create`: UC2 in one form) and
// "Log in" beside it; when it is, who it is and "Log out". Each failure is said in a sentence of
// the person's language, the field at fault marked. Nothing is left half-done without saying so:
// if the child fails after the account was made, the page says the account exists and the child
// was not created (and why), keeps the child's fields, and the same button then creates only the
// child.

import { request, callOperation, APIError } from "/console/api.js";
import { t } from "/console/i18n.js";
import { errorText, fieldName } from "/console/errors.js";
import { dateTime } from "/console/format.js";
import { PLUGIN, $ } from "./common.js";

function say(text) { $("account-status").textContent = text; }

/** Refusals at a field that say more than the field's sentence (`invalid.email` would ask for an address). */
const NOT_THE_FIELDS_FAULT = ["email_taken"];

/** The sentence for a refusal of the account forms: an address someone already registered is said so. */
function why(error, form) {
  if (error instanceof APIError && NOT_THE_FIELDS_FAULT.includes(error.code)) return t(`errors.${error.code}`);
  return errorText(error, { form });
}

/** Marks the field `error` names in `form` (as the console's showError does) and focuses it. */
function mark(error, form) {
  for (const control of form.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
  const field = error instanceof APIError ? fieldName(error) : null;
  const control = field ? form.querySelector(`[name="${CSS.escape(field)}"]`) : null;
  if (control) {
    control.setAttribute("aria-invalid", "true");
    control.focus();
  }
}

/** The first child's fields, or null when all are empty; throws when only some are filled. */
function firstChild() {
  const name = $("first-child-name").value.trim(), birthDate = $("first-child-birth").value, sex = $("first-child-sex").value;
  if (!name && !birthDate && !sex) return null;
  if (!name || !birthDate) throw new Error(t("account.childIncomplete"));
  return sex ? { name, birthDate, sex } : { name, birthDate };
}

let accountMade = null;  // the account this form registered, when its child is still to be created

/** Shows who this device is logged in as, or the forms to sign up and log in. */
export async function showAccount() {
  let me;
  try {
    me = await request("GET", "/v1/sync/me");
  } catch (error) {
    // Only the device's operator signs it in to a hub.
    $("account-state").textContent = error instanceof APIError && error.status === 403 ? t("account.operatorOnly") : errorText(error);
    $("signed-out").hidden = true;
    $("signed-in").hidden = true;
    $("account-hint").hidden = true;
    return;
  }
  if (!me.hub) {
    $("account-state").textContent = t("account.noHub");
    $("signed-out").hidden = true;
    $("signed-in").hidden = true;
  } else if (me.loggedIn && !accountMade) {
    $("account-state").textContent = me.person ? t("account.loggedInAs", { name: personName(me.person) }) : t("account.loggedIn");
    $("signed-out").hidden = true;
    $("signed-in").hidden = false;
  } else {
    $("account-state").textContent = accountMade ? t("account.loggedInAs", { name: accountMade }) : t("account.notLoggedIn");
    $("signed-out").hidden = false;
    $("signed-in").hidden = true;
  }
  $("account-hint").hidden = !me.hub || (me.loggedIn && !accountMade);
  document.body.dataset.account = me.loggedIn ? "in" : "out";
  showSyncState(me);
}

/** "Jana Nováková (jana@example.cz)": the names the person registered with, and the account. */
function personName(person) {
  return person.displayName ? t("account.nameAndAccount", { name: person.displayName, account: person.name }) : person.name;
}

/**
 * Issue 41, defect 9: whether this device's changes have reached the others. Changes waiting to be
 * sent are counted; a last round that did not reach the hub is said, with when; otherwise when
 * everything was last synchronised. Shown only on a device logged in to its hub.
 */
function showSyncState(me) {
  const state = me.loggedIn && me.plugins ? me.plugins[PLUGIN] : null;
  const line = $("sync-state");
  const sentences = [];
  if (state && state.lastRound && !state.lastRound.ok) sentences.push(t("sync.unreachable", { when: dateTime(state.lastRound.at) }));
  if (state && state.waiting > 0) sentences.push(t("sync.waiting", { count: state.waiting }));
  else if (state && state.lastRound && state.lastRound.ok) sentences.push(t("sync.allSent", { when: dateTime(state.lastRound.at) }));
  line.textContent = sentences.join(" ");
  line.hidden = sentences.length === 0;
}

async function createChild(child, refresh) {
  const form = $("register-form");
  try {
    return await callOperation(PLUGIN, "child-create", child);
  } catch (error) {
    $("register-submit").textContent = t("account.createChild");
    await refresh().catch(() => {});  // the account is there either way; the sentence below says what is not
    say(t("account.childFailed", { account: accountMade, reason: errorText(error, { form }), button: t("account.createChild") }));
    mark(error, form);
    return null;
  }
}

async function register(event, refresh) {
  event.preventDefault();
  const form = event.currentTarget;
  let child;
  try { child = firstChild(); } catch (error) { say(error.message); return; }
  if (!accountMade) {
    try {
      const answer = await request("POST", "/v1/sync/register", {
        firstName: $("register-first-name").value, surname: $("register-surname").value, email: $("register-email").value.trim(),
        password: $("register-password").value, acceptTerms: $("register-terms").checked,
      });
      accountMade = answer.person.name;
    } catch (error) {
      say(t("account.notCreated", { reason: why(error, form) }));
      mark(error, form);
      return;
    }
    $("register-password").value = "";
    for (const id of ["register-first-name", "register-surname", "register-email", "register-password", "register-terms"]) $(id).disabled = true;
  }
  if (child && !(await createChild(child, refresh))) return;
  const made = accountMade;
  accountMade = null;
  for (const id of ["first-child-name", "first-child-birth", "first-child-sex"]) $(id).value = "";
  for (const id of ["register-first-name", "register-surname", "register-email", "register-password", "register-terms"]) $(id).disabled = false;
  for (const control of form.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
  form.reset();
  $("register-submit").textContent = t("account.register");
  await refresh();
  say(child ? t("account.createdWithChild", { account: made, child: child.name }) : t("account.created", { account: made }));
}

async function logIn(event, refresh) {
  event.preventDefault();
  const form = event.currentTarget;
  try {
    const answer = await request("POST", "/v1/sync/login", { name: $("login-name").value.trim(), password: $("login-password").value });
    form.reset();
    for (const control of form.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
    await refresh();
    say(t("account.loggedInAs", { name: answer.person ? answer.person.name : $("login-name").value }));
  } catch (error) {
    $("login-password").value = "";
    say(t("account.loginFailed", { reason: why(error, form) }));
    mark(error, form);
  }
}

async function logOut(refresh) {
  try {
    const answer = await request("POST", "/v1/sync/logout", {});
    await refresh();
    say(t("account.loggedOut", { count: answer.rows }));
  } catch (error) {
    // A failed last sync round refuses the log-out, so nothing written here is lost.
    say(error instanceof APIError && error.code === "conflict" ? t("account.logoutUnsynced") : t("account.logoutFailed", { reason: errorText(error) }));
  }
}

/** Binds the forms; `refresh` shows the whole page again (and this section with it). */
export function bindAccountForms(refresh) {
  const failed = (error) => say(errorText(error));
  $("register-form").addEventListener("submit", (event) => register(event, refresh).catch(failed));
  $("login-form").addEventListener("submit", (event) => logIn(event, refresh).catch(failed));
  $("logout").addEventListener("click", () => logOut(refresh).catch(failed));
}
