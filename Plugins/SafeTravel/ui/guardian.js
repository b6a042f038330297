// Safe travel's page for a guardian: the travellers this person watches, the open alerts about
// them (each acknowledged with one button, which stops its escalation ladder on every host after
// a sync round), and each alert's live view. The records are the travellers' own, held by this
// host through the hub (the guardian is a member of each traveller's space).

import { token, callOperation, APIError } from "/console/api.js";
import { el, clear } from "/console/dom.js";

const PLUGIN = "cz.tessera.safetravel";
const $ = (id) => document.getElementById(id);

/** The travellers this person guards; a host without a hub says so instead. */
async function showWatched() {
  clear($("watched"));
  try {
    const { guarding } = await callOperation(PLUGIN, "guardians", {});
    for (const person of guarding) $("watched").append(el("li", {}, person.username));
    if (guarding.length === 0) $("watched").append(el("li", {}, "Nobody yet: accept a traveller's request on your own page."));
  } catch (error) {
    $("watched").append(el("li", {}, `Not available here: ${error.message}`));
  }
}

function alertItem(alert, open) {
  const item = el("li", { class: open ? "alert" : "" }, `${alert.traveller}: ${alert.kind} at ${alert.due_at}. ${alert.summary}`);
  if (alert.livePath) item.append(" ", el("a", { href: alert.livePath, class: "live-view" }, `Open ${alert.traveller}'s live view`));
  if (open) {
    const button = el("button", { type: "button", class: "acknowledge", "data-alert": alert.id }, `Acknowledge (${alert.traveller}, ${alert.kind})`);
    button.addEventListener("click", () => acknowledge(alert));
    item.append(" ", button);
  }
  return item;
}

/** Alerts about others (one's own are acknowledged with the PIN on one's own page). */
async function showAlerts() {
  const me = (await callOperation(PLUGIN, "account-state", {})).username;
  const { alerts } = await callOperation(PLUGIN, "alerts", {});
  const theirs = alerts.filter((alert) => alert.traveller !== me);
  clear($("open-alerts"));
  clear($("done-alerts"));
  for (const alert of theirs) (alert.acks > 0 ? $("done-alerts") : $("open-alerts")).append(alertItem(alert, alert.acks === 0));
  $("no-alerts").hidden = theirs.some((alert) => alert.acks === 0);
}

async function acknowledge(alert) {
  try {
    await callOperation(PLUGIN, "alert-acknowledge", { alertId: alert.id });
    $("status").textContent = `Acknowledged: ${alert.traveller}'s ${alert.kind}. Its repeats stop.`;
  } catch (error) {
    $("status").textContent = error instanceof APIError ? error.message : String(error);
  }
  await refresh();
}

async function refresh() {
  document.body.dataset.ready = "false";
  try {
    await Promise.all([showWatched(), showAlerts()]);
  } catch (error) {
    $("status").textContent = `Could not load: ${error.message}`;
  }
  document.body.dataset.ready = "true";
}

if (!token()) {
  $("status").append("Sign in on the ", el("a", { href: "/" }, "Tessera console"), " first; this page uses the same token.");
} else {
  refresh();
  setInterval(refresh, 15000);
}
