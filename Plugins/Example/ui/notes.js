// The example plugin's page: its notes (operation list-notes), a bar chart of notes per day drawn
// as SVG, and a form to add one (add-note). It calls the plugin through the console's API client,
// with the token the console keeps for this tab.

import { token, callOperation, APIError } from "/console/api.js";
import { el, clear } from "/console/dom.js";

const PLUGIN = "dev.tessera.example";
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

/** Notes per day ("2026-03-02" → 3), oldest day first. */
export function countPerDay(notes) {
  const counts = new Map();
  for (const note of notes) {
    const day = String(note.createdAt).slice(0, 10);
    counts.set(day, (counts.get(day) || 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => a[0].localeCompare(b[0]));
}

/** Draws one bar per day into the SVG, with day labels and the count above each bar. */
function drawChart(svg, days) {
  for (const old of svg.querySelectorAll("g, line, rect:not(title)")) old.remove();
  const width = 640, height = 240, left = 36, bottom = 200, top = 20;
  const max = Math.max(1, ...days.map(([, n]) => n));
  const slot = (width - left - 10) / Math.max(1, days.length);
  const group = document.createElementNS(SVG, "g");
  const axis = document.createElementNS(SVG, "line");
  Object.entries({ x1: left, y1: bottom, x2: width - 10, y2: bottom, class: "axis" }).forEach(([k, v]) => axis.setAttribute(k, v));
  group.append(axis);
  days.forEach(([day, count], i) => {
    const barHeight = ((bottom - top) * count) / max;
    const barWidth = Math.min(slot * 0.7, 48);  // a few days must not make a wall of blue
    const middle = left + i * slot + slot / 2;
    group.append(svgNode("rect", { class: "bar", x: middle - barWidth / 2, y: bottom - barHeight, width: barWidth, height: barHeight, "data-day": day }));
    group.append(svgNode("text", { x: middle, y: bottom - barHeight - 4, "text-anchor": "middle" }, String(count)));
    group.append(svgNode("text", { x: middle, y: bottom + 16, "text-anchor": "middle" }, day.slice(5)));
  });
  svg.append(group);
  $("chart-desc").textContent = days.length
    ? days.map(([day, n]) => `${day}: ${n} note${n === 1 ? "" : "s"}`).join("; ")
    : "No notes yet.";
}

function svgNode(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderList(notes) {
  const list = $("notes");
  clear(list);
  for (const note of notes) {
    list.append(el("li", {}, note.text, el("time", { datetime: note.createdAt }, note.createdAt)));
  }
  $("notes-empty").hidden = notes.length > 0;
}

function renderTable(days) {
  const body = $("per-day").querySelector("tbody");
  clear(body);
  for (const [day, count] of days) body.append(el("tr", {}, el("th", { scope: "row" }, day), el("td", {}, String(count))));
}

async function refresh() {
  const { notes } = await callOperation(PLUGIN, "list-notes", { limit: 500 });
  const days = countPerDay(notes);
  renderList(notes);
  drawChart($("chart"), days);
  renderTable(days);
  document.body.dataset.ready = "true";
}

async function start() {
  if (!token()) {
    $("status").append("Sign in on the ", el("a", { href: "/" }, "Tessera console"), " first; this page uses the same token.");
    return;
  }
  for (const id of ["add-section", "chart-section", "list-section"]) $(id).hidden = false;
  $("add-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("note-text");
    $("note-error").textContent = "";
    input.removeAttribute("aria-invalid");
    try {
      await callOperation(PLUGIN, "add-note", { text: input.value });
      input.value = "";
      $("status").textContent = "Note added.";
      await refresh();
    } catch (error) {
      if (!(error instanceof APIError)) throw error;
      $("note-error").textContent = error.message;
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
  });
  try { await refresh(); } catch (error) { $("status").textContent = `Could not load the notes: ${error.message}`; }
}

start();
