// Safe travel's page for a guardian: the travellers this person watches, the open alerts about
// them (each acknowledged with one button, which stops its escalation ladder on every host after
// a sync round), and each alert's live view. The records are the travellers' own, held by this
// host through the hub (the guardian is a member of each traveller's space). Every text is in the
// person's language (ui/messages/); alert times are relative to the host's clock.

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { startPage } from "/console/page.js";
import { t } from "/console/i18n.js";
import { PLUGIN, hostNow, alertLine, alertWhat, refusalText } from "./travel-common.js";

const $ = (id) => document.getElementById(id);

/** The travellers this person guards; a host where that cannot be listed says why instead. */
async function showWatched() {
  let items;
  try {
    const { guarding } = await callOperation(PLUGIN, "guardians", {});
    items = guarding.map((person) => el("li", {}, person.username));
    if (items.length === 0) items = [el("li", {}, t("guardian.nobody"))];
  } catch (error) {
    items = [el("li", {}, t("guardian.notAvailable", { reason: await refusalText(error) }))];
  }
  clear($("watched"));
  $("watched").append(...items);
}

function alertItem(alert, open, now) {
  const item = el("li", { class: open ? "alert" : "" }, alertLine(alert, alert.due_at, now));
  if (alert.livePath) {
    item.append(" ", el("a", { href: alert.livePath, class: "live-view" }, t("guardian.openLive", { traveller: alert.traveller })));
  }
  if (open) {
    const button = el("button", { type: "button", class: "acknowledge", "data-alert": alert.id,
                                  "aria-label": t("guardian.acknowledgeLabel", { what: alertWhat(alert) }) }, t("guardian.acknowledge"));
    button.addEventListener("click", () => acknowledge(alert));
    item.append(" ", button);
  }
  return item;
}

/** Alerts about others (one's own are acknowledged with the PIN on one's own page). */
async function showAlerts() {
  const me = (await callOperation(PLUGIN, "account-state", {})).username;
  const { alerts } = await callOperation(PLUGIN, "alerts", {});
  const now = await hostNow();
  const theirs = alerts.filter((alert) => alert.traveller !== me);
  clear($("open-alerts"));
  clear($("done-alerts"));
  for (const alert of theirs) (alert.acks > 0 ? $("done-alerts") : $("open-alerts")).append(alertItem(alert, alert.acks === 0, now));
  $("no-alerts").hidden = theirs.some((alert) => alert.acks === 0);
  $("no-done").hidden = theirs.some((alert) => alert.acks > 0);
}

async function acknowledge(alert) {
  try {
    await callOperation(PLUGIN, "alert-acknowledge", { alertId: alert.id });
    $("status").textContent = t("guardian.acknowledged", { what: alertWhat(alert) });
  } catch (error) {
    $("status").textContent = await refusalText(error);
  }
  await refresh();
}

async function refresh() {
  document.body.dataset.ready = "false";
  try {
    await Promise.all([showWatched(), showAlerts()]);
  } catch (error) {
    $("status").textContent = t("travel.loadFailed", { reason: await refusalText(error) });
  }
  document.body.dataset.ready = "true";
}

async function start() {
  const me = await startPage({ status: $("status") });
  if (!me) return;
  await refresh();
  setInterval(refresh, 15000);
}

start();
