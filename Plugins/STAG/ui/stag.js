// The IS/STAG page: choose a university and go to its single sign-on; it sends the browser back to
// callback.html, which completes the login. The choice is kept in this tab for the callback.
// In the person's language (docs/stag.md, "The page"): text from messages/<lang>.json, errors as
// sentences from /console/errors.js.

import { callOperation } from "/console/api.js";
import { el } from "/console/dom.js";
import { errorText, showError } from "/console/errors.js";
import { has, t } from "/console/i18n.js";
import { startPage } from "/console/page.js";

const PLUGIN = "cz.tessera.stag";
const $ = (id) => document.getElementById(id);

/** A university's name: its own (Czech) name, or the catalogue's where it has one ("demo"). */
function universityName(university) {
  const key = `stag.universities.${university.id}`;
  return has(key) ? t(key) : university.name;
}

async function start() {
  const me = await startPage({ status: $("status") });
  if (!me) return;
  try {
    for (const u of await callOperation(PLUGIN, "universities", {})) $("university").append(el("option", { value: u.id }, universityName(u)));
  } catch (error) {
    $("status").textContent = errorText(error);
    document.body.dataset.ready = "true";
    return;
  }
  $("login-section").hidden = false;
  $("login-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const university = $("university").value;
    const returnURL = new URL("callback.html", location.href).href;
    $("login-error").textContent = "";
    try {
      const { url } = await callOperation(PLUGIN, "login-url", { university, returnURL });
      sessionStorage.setItem("stag.login", JSON.stringify({ university }));
      location.assign(url);
    } catch (error) {
      showError(error, { form, output: $("login-error") });
    }
  });
  document.body.dataset.ready = "true";
}

start();
