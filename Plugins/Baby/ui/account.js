// This device's person (UC1–UC4) on the baby diary's page: when the device is not logged in to its
// hub, "Create account" (the hub's open registration and this device's login in one request,
// POST /v1/sync/register, then the optional first child with `child-create`: UC2 in one form) and
// "Log in" beside it; when it is, who it is and "Log out". Each failure is shown with the name of
// what refused it. Nothing is left half-done without saying so: if the child fails after the
// account was made, the page says the account exists and the child was not created, keeps the
// child's fields, and the same button then creates only the child.

import { request, callOperation, APIError } from "/console/api.js";

const PLUGIN = "cz.tessera.baby";
const $ = (id) => document.getElementById(id);

/** "code (field): message" for an API refusal, the message alone otherwise. */
function why(error) {
  if (!(error instanceof APIError)) return String(error);
  return `${error.code}${error.field ? " (" + error.field + ")" : ""}: ${error.message}`;
}

function say(text) { $("account-status").textContent = text; }

/** The first child's fields, or null when all are empty; throws when only some are filled. */
function firstChild() {
  const name = $("first-child-name").value.trim(), birthDate = $("first-child-birth").value, sex = $("first-child-sex").value;
  if (!name && !birthDate && !sex) return null;
  if (!name || !birthDate) throw new Error("The first child needs a name and a birth date (or leave the child's fields empty).");
  return sex ? { name, birthDate, sex } : { name, birthDate };
}

let accountMade = null;  // the account this form registered, when its child is still to be created

/** Shows who this device is logged in as, or the forms to sign up and log in. */
export async function showAccount() {
  let me;
  try {
    me = await request("GET", "/v1/sync/me");
  } catch (error) {
    $("account-state").textContent = `Accounts are not available here: ${why(error)}`;
    $("signed-out").hidden = true;
    $("signed-in").hidden = true;
    return;
  }
  if (!me.hub) {
    $("account-state").textContent = "This device has no hub (providers.sync.hub): the diary stays on this device.";
    $("signed-out").hidden = true;
    $("signed-in").hidden = true;
  } else if (me.loggedIn && !accountMade) {
    $("account-state").textContent = me.person ? `Logged in as ${me.person.name}.` : "Logged in.";
    $("signed-out").hidden = true;
    $("signed-in").hidden = false;
  } else {
    $("account-state").textContent = accountMade ? `Logged in as ${accountMade}.` : "Not logged in: create an account or log in.";
    $("signed-out").hidden = false;
    $("signed-in").hidden = true;
  }
  document.body.dataset.account = me.loggedIn ? "in" : "out";
}

async function createChild(child, refresh) {
  try {
    const created = await callOperation(PLUGIN, "child-create", child);
    return created;
  } catch (error) {
    say(`The account ${accountMade} exists and this device is logged in, but the child was not created — ${why(error)}. ` +
        "Correct the child's fields and press \"Create the child\".");
    $("register-submit").textContent = "Create the child";
    await refresh();
    return null;
  }
}

async function register(event, refresh) {
  event.preventDefault();
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
      say(`Account not created — ${why(error)}`);
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
  $("register-form").reset();
  $("register-submit").textContent = "Create account";
  await refresh();
  say(child ? `Account ${made} created, this device logged in, and ${child.name} added.` : `Account ${made} created and this device logged in.`);
}

async function logIn(event, refresh) {
  event.preventDefault();
  try {
    const answer = await request("POST", "/v1/sync/login", { name: $("login-name").value.trim(), password: $("login-password").value });
    $("login-form").reset();
    await refresh();
    say(`Logged in as ${answer.person ? answer.person.name : $("login-name").value}.`);
  } catch (error) {
    $("login-password").value = "";
    say(`Not logged in — ${why(error)}`);
  }
}

async function logOut(refresh) {
  try {
    const answer = await request("POST", "/v1/sync/logout", {});
    await refresh();
    say(`Logged out: ${answer.rows} synced records removed from this device.`);
  } catch (error) {
    say(`Still logged in — ${why(error)}`);
  }
}

/** Binds the forms; `refresh` shows the whole page again (and this section with it). */
export function bindAccountForms(refresh) {
  $("register-form").addEventListener("submit", (event) => register(event, refresh));
  $("login-form").addEventListener("submit", (event) => logIn(event, refresh));
  $("logout").addEventListener("click", () => logOut(refresh));
}
