// The baby diary's page (a first one: the children with their ages, and the timeline newest first,
// a page at a time). Growth charts against WHO percentiles come with the Growth/ component.

import { callOperation, APIError } from "/console/api.js";
import { el, clear } from "/console/dom.js";

const PLUGIN = "cz.tessera.baby";
const $ = (id) => document.getElementById(id);
let cursor = null;

function age(a) { return a ? `${a.years} y ${a.months} m ${a.days} d` : ""; }

async function showChildren() {
  const { children } = await callOperation(PLUGIN, "children-list", {});
  clear($("children"));
  for (const child of children) {
    const profile = await callOperation(PLUGIN, "child-get", { id: child.id });
    $("children").append(el("li", {}, `${child.name} (${child.birthDate}) — ${age(profile.age)} — ${child.level}`));
  }
}

async function showTimeline(more) {
  const page = await callOperation(PLUGIN, "timeline", more && cursor ? { cursor } : {});
  if (!more) clear($("timeline"));
  for (const item of page.items) {
    const what = item.name || item.kind || item.note || "";
    $("timeline").append(el("li", {}, `${item.date} · ${item.type} · ${what}${item.value !== undefined ? " · " + item.value : ""}`));
  }
  cursor = page.nextCursor;
  $("more").hidden = !cursor;
}

async function main() {
  $("more").addEventListener("click", () => showTimeline(true));
  try {
    await showChildren();
    await showTimeline(false);
  } catch (error) {
    $("status").textContent = error instanceof APIError ? error.message : String(error);
  }
}

main();
