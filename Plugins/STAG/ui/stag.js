// The IS/STAG page: choose a university and go to its single sign-on; it sends the browser back to
// callback.html, which completes the login. The choice is kept in this tab for the callback.

import { token, callOperation, APIError } from "/console/api.js";
import { el } from "/console/dom.js";

const PLUGIN = "cz.tessera.stag";
const $ = (id) => document.getElementById(id);

async function start() {
  if (!token()) {
    $("status").append("Sign in on the ", el("a", { href: "/" }, "Tessera console"), " first; this page uses the same token.");
    return;
  }
  for (const u of await callOperation(PLUGIN, "universities", {})) $("university").append(el("option", { value: u.id }, u.name));
  $("login-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const university = $("university").value;
    const returnURL = new URL("callback.html", location.href).href;
    try {
      const { url } = await callOperation(PLUGIN, "login-url", { university, returnURL });
      sessionStorage.setItem("stag.login", JSON.stringify({ university }));
      location.assign(url);
    } catch (error) {
      $("status").textContent = error instanceof APIError ? error.message : String(error);
    }
  });
  document.body.dataset.ready = "true";
}

start();
