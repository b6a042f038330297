// The operator's table of plugins: state and reason, where the code runs (and, in the process
// tier, how its child fares, with a restart for a quarantined one), version, generations, grants.

import { el, clear } from "./dom.js";
import { request } from "./api.js";
import { t } from "./i18n.js";
import { dateTime } from "./format.js";
import { errorText } from "./errors.js";

/** Fills the table body with the plugins of GET /v1/plugins; `refresh` reloads the table. */
export function renderPlugins(tbody, plugins, refresh) {
  clear(tbody);
  for (const plugin of plugins) {
    const state = el("span", { class: `state state-${plugin.state}` }, t(`plugins.states.${plugin.state}`));
    const stateCell = el("td", {}, state, plugin.reason ? el("div", { class: "help" }, plugin.reason) : null,
      processTierNote(plugin.isolation, plugin.reason),
      plugin.sync ? el("div", { class: "help" }, syncText(plugin.sync)) : null,
      restartButton(plugin, refresh));
    tbody.append(el("tr", { "data-plugin": plugin.id },
      el("th", { scope: "row" }, plugin.name || plugin.id, el("div", { class: "help" }, el("code", {}, plugin.id))),
      el("td", {}, plugin.version || "—"),
      stateCell,
      el("td", {}, String(plugin.generation ?? 0)),
      el("td", {}, String(plugin.retiredGenerations ?? 0)),
      el("td", {}, grantsText(plugin.grants))));
  }
}

/** "process tier, pid 4242, 2 crashes in the window (last: …), restarts at …"; nothing in-process. */
function processTierNote(isolation, reason) {
  if (!isolation || isolation.tier !== "process") return null;
  const parts = [t("plugins.processTier")];
  if (isolation.pid) parts.push(t("plugins.pid", { pid: isolation.pid }));
  if (isolation.recentCrashes) parts.push(t("plugins.recentCrashes", { count: isolation.recentCrashes }));
  if (isolation.restartAt) parts.push(t("plugins.restartsAt", { time: dateTime(isolation.restartAt) }));
  const note = el("div", { class: "help", "data-isolation": "process" }, parts.join(", "));
  // A quarantine's reason already ends with the last crash.
  if (isolation.lastCrash && !(reason || "").includes(isolation.lastCrash)) note.append(el("div", {}, t("plugins.lastCrash", { crash: isolation.lastCrash })));
  return note;
}

/** A quarantined process-tier plugin stays down until an operator restarts it (admin token). */
function restartButton(plugin, refresh) {
  if (plugin.state !== "quarantined" || !plugin.isolation || plugin.isolation.tier !== "process") return null;
  const status = el("span", { role: "status", class: "help" });
  const button = el("button", { type: "button", class: "secondary", "data-restart": plugin.id }, t("plugins.restart", { name: plugin.name || plugin.id }));
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = t("plugins.restarting");
    try {
      await request("POST", `/v1/plugins/${encodeURIComponent(plugin.id)}/restart`, {});
      if (refresh) await refresh();
    } catch (error) {
      status.textContent = t("plugins.notRestarted", { reason: errorText(error) });
      button.disabled = false;
    }
  });
  return el("div", {}, button, status);
}

/** "synced 2026-03-02T08:00:00Z: ↑3 ↓5" or the last round's error. */
function syncText(sync) {
  const last = sync.lastRound;
  if (!last) return sync.hub ? t("plugins.syncNoRound", { hub: sync.hub }) : t("plugins.syncNoHub");
  if (last.error) return t("plugins.syncFailed", { time: dateTime(last.at), error: last.error });
  return t("plugins.synced", { time: dateTime(last.at), sent: last.pushed, received: last.pulled, refused: last.rejected || 0 });
}

/** "storage, clock (timers: true)" */
function grantsText(grants) {
  const names = Object.keys(grants || {}).sort();
  if (names.length === 0) return t("plugins.noGrants");
  return names.map((name) => {
    const permissions = grants[name] && typeof grants[name] === "object" ? Object.entries(grants[name]) : [];
    return permissions.length ? `${name} (${permissions.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(", ")})` : name;
  }).join(", ");
}
