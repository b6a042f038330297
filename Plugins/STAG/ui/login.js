// Logging in to IS/STAG and out again on the page. The usual way is the university's own sign-on:
// the page asks the module for the university's login address (`login-url`) with callback.html as
// the way back, remembers the choice in this tab for the callback, and sends the browser there.
// Where a university allows it (its demo does), a name and password instead (`login-basic`): they
// go to the module once, which sends them to the university and keeps neither. Logging out
// (`logout`) forgets the login and what was read; the notes stay.

import { callOperation } from "/console/api.js";
import { el } from "/console/dom.js";
import { clearError } from "/console/errors.js";
import { has, t } from "/console/i18n.js";
import { $, PLUGIN, refuse, sentenceFor } from "./common.js";

/** A university's name: its own (Czech) name, or the catalogue's where it has one ("demo"). */
function universityName(university) {
  const key = `stag.universities.${university.id}`;
  return has(key) ? t(key) : university.name;
}

/** Fills the university list (throws when the module cannot be asked). */
export async function offerUniversities() {
  for (const university of await callOperation(PLUGIN, "universities", {})) {
    $("university").append(el("option", { value: university.id }, universityName(university)));
  }
}

/** To the university's sign-on page, which comes back to callback.html with the ticket. */
async function singleSignOn(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const university = $("university").value;
  const returnURL = new URL("callback.html", location.href).href;
  clearError({ form, output: $("login-error") });
  try {
    const { url } = await callOperation(PLUGIN, "login-url", { university, returnURL });
    sessionStorage.setItem("stag.login", JSON.stringify({ university }));
    location.assign(url);
  } catch (error) {
    refuse(form, $("login-error"), error);
  }
}

/** The name-and-password login; the password field is emptied whatever the answer. */
async function basicLogin(event, loggedIn) {
  event.preventDefault();
  const form = event.currentTarget;
  clearError({ form, output: $("basic-error") });
  const input = { university: $("university").value, userName: $("basic-user").value.trim(), password: $("basic-password").value };
  try {
    await callOperation(PLUGIN, "login-basic", input);
  } catch (error) {
    refuse(form, $("basic-error"), error);
    return;
  } finally {
    $("basic-password").value = "";
  }
  await loggedIn();
}

/** Binds the login forms and the logout button (once). */
export function bindLogin({ loggedIn, loggedOut }) {
  $("login-form").addEventListener("submit", singleSignOn);
  $("basic-form").addEventListener("submit", (event) => basicLogin(event, loggedIn));
  $("logout").addEventListener("click", async () => {
    try {
      await callOperation(PLUGIN, "logout", {});
    } catch (error) {
      $("status").textContent = sentenceFor(error);
      return;
    }
    await loggedOut(t("account.loggedOut"));
  });
}
