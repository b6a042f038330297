// The console's start: ask for the token once (kept in sessionStorage for this tab), then show
// the operator's view and the modules. A token the host refuses brings the sign-in form back.

import { token, setToken, forgetToken, request, APIError } from "./api.js";
import { renderPlugins } from "./plugins.js";
import { startInbox } from "./inbox.js";
import { startCaller } from "./call.js";
import { startClock } from "./clock.js";
import { renderModules } from "./modules.js";

const $ = (id) => document.getElementById(id);
let stopStream = null;

function showSignIn(message) {
  if (stopStream) { stopStream(); stopStream = null; }
  $("signed-in").hidden = true;
  $("views").hidden = true;
  $("forget-token").hidden = true;
  $("sign-in").hidden = false;
  $("token-error").textContent = message || "";
  $("token-input").focus();
}

/** Reads GET /v1/plugins again into the table (after an operator's restart). */
async function refreshPlugins() {
  const { plugins } = await request("GET", "/v1/plugins");
  $("host-line").textContent = `${plugins.length} plugin(s), ${plugins.filter((p) => p.state === "active").length} active`;
  renderPlugins($("plugins-table").querySelector("tbody"), plugins, refreshPlugins);
}

async function showConsole() {
  const { plugins } = await request("GET", "/v1/plugins");
  $("sign-in").hidden = true;
  $("signed-in").hidden = false;
  $("views").hidden = false;
  $("forget-token").hidden = false;
  $("host-line").textContent = `${plugins.length} plugin(s), ${plugins.filter((p) => p.state === "active").length} active`;
  renderPlugins($("plugins-table").querySelector("tbody"), plugins, refreshPlugins);
  renderModules($("module-list"), $("modules-empty"), plugins);
  await startCaller({ form: $("call-form"), pluginSelect: $("call-plugin"), operationSelect: $("call-operation"),
    summary: $("call-summary"), fieldset: $("call-fields"), result: $("call-result") });
  await startClock({ section: $("clock"), now: $("clock-now"), form: $("clock-form"), input: $("clock-by"),
    error: $("clock-error"), result: $("clock-result") });
  stopStream = await startInbox({ list: $("inbox"), empty: $("inbox-empty"), status: $("stream-status"), markAll: $("mark-all-read") });
  document.body.dataset.ready = "true";
  $("main").focus();
}

async function start() {
  $("token-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    setToken($("token-input").value.trim());
    $("token-input").value = "";
    try { await showConsole(); } catch (error) {
      showSignIn(error instanceof APIError && error.status === 401 ? "The host does not know this token." : String(error.message || error));
    }
  });
  $("forget-token").addEventListener("click", () => { forgetToken(); showSignIn(); });
  // Only now can the form be submitted: the script handles it, and the token goes nowhere else.
  $("token-form").querySelector("button[type=submit]").disabled = false;
  document.body.dataset.console = "started";
  window.addEventListener("tessera:unauthorized", () => showSignIn("The host refused the token; sign in again."));
  if (!token()) { showSignIn(); return; }
  try { await showConsole(); } catch (error) { showSignIn(String(error.message || error)); }
}

start();
