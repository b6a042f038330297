// The operator's table of plugins: state and reason, version, generations, grants.

import { el, clear } from "./dom.js";

/** Fills the table body with the plugins of GET /v1/plugins. */
export function renderPlugins(tbody, plugins) {
  clear(tbody);
  for (const plugin of plugins) {
    const state = el("span", { class: `state state-${plugin.state}` }, plugin.state);
    const stateCell = el("td", {}, state, plugin.reason ? el("div", { class: "help" }, plugin.reason) : null,
      plugin.sync ? el("div", { class: "help" }, syncText(plugin.sync)) : null);
    tbody.append(el("tr", { "data-plugin": plugin.id },
      el("th", { scope: "row" }, plugin.name || plugin.id, el("div", { class: "help" }, el("code", {}, plugin.id))),
      el("td", {}, plugin.version || "—"),
      stateCell,
      el("td", {}, String(plugin.generation ?? 0)),
      el("td", {}, String(plugin.retiredGenerations ?? 0)),
      el("td", {}, grantsText(plugin.grants))));
  }
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
