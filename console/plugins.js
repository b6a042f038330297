// The operator's table of plugins: state and reason, where the code runs (and, in the process
// tier, how its child fares, with a restart for a quarantined one), version, generations, grants.

import { el, clear } from "./dom.js";
import { request } from "./api.js";

/** Fills the table body with the plugins of GET /v1/plugins; `refresh` reloads the table. */
export function renderPlugins(tbody, plugins, refresh) {
  clear(tbody);
  for (const plugin of plugins) {
    const state = el("span", { class: `state state-${plugin.state}` }, plugin.state);
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
  const parts = ["process tier"];
  if (isolation.pid) parts.push(`pid ${isolation.pid}`);
  if (isolation.recentCrashes) parts.push(`${isolation.recentCrashes} recent crash${isolation.recentCrashes === 1 ? "" : "es"}`);
  if (isolation.restartAt) parts.push(`restarts at ${isolation.restartAt}`);
  const note = el("div", { class: "help", "data-isolation": "process" }, parts.join(", "));
  // A quarantine's reason already ends with the last crash.
  if (isolation.lastCrash && !(reason || "").includes(isolation.lastCrash)) note.append(el("div", {}, `last crash: ${isolation.lastCrash}`));
  return note;
}

/** A quarantined process-tier plugin stays down until an operator restarts it (admin token). */
function restartButton(plugin, refresh) {
  if (plugin.state !== "quarantined" || !plugin.isolation || plugin.isolation.tier !== "process") return null;
  const status = el("span", { role: "status", class: "help" });
  const button = el("button", { type: "button", class: "secondary", "data-restart": plugin.id }, `Restart ${plugin.name || plugin.id}`);
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = "restarting…";
    try {
      await request("POST", `/v1/plugins/${encodeURIComponent(plugin.id)}/restart`, {});
      if (refresh) await refresh();
    } catch (error) {
      status.textContent = `not restarted: ${error.message || error}`;
      button.disabled = false;
    }
  });
  return el("div", {}, button, status);
}

/** "synced 2026-03-02T08:00:00Z: ↑3 ↓5" or the last round's error. */
function syncText(sync) {
  const last = sync.lastRound;
  if (!last) return `syncs with ${sync.hub || "no hub"}: no round yet`;
  if (last.error) return `sync failed ${last.at}: ${last.error}`;
  return `synced ${last.at}: ${last.pushed} sent, ${last.pulled} received` + (last.rejected ? `, ${last.rejected} refused` : "");
}

/** "storage, clock (timers: true)" */
function grantsText(grants) {
  const names = Object.keys(grants || {}).sort();
  if (names.length === 0) return "none";
  return names.map((name) => {
    const permissions = grants[name] && typeof grants[name] === "object" ? Object.entries(grants[name]) : [];
    return permissions.length ? `${name} (${permissions.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join(", ")})` : name;
  }).join(", ");
}
