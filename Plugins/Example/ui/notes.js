// The example plugin's page: its notes (operation list-notes), a bar chart of notes per day drawn
// as SVG, and a form to add one (add-note). A module page in the person's language
// (docs/console.md, "A module's page"): startPage loads the console's and this page's catalogues
// (messages/<lang>.json), translates the data-i18n text and finds who is signed in; scripts say
// everything through t(), show dates with /console/format.js, and errors with /console/errors.js.

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { showError, errorText } from "/console/errors.js";
import { date, dateTime, list, number, toDate } from "/console/format.js";
import { language, t } from "/console/i18n.js";
import { startPage } from "/console/page.js";

const PLUGIN = "dev.tessera.example";
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

/** The person's calendar day of an instant, "2026-03-02": a key that sorts, never shown as such. */
function dayOf(instant) {
  const d = toDate(instant);
  return [d.getFullYear(), d.getMonth() + 1, d.getDate()].map((n) => String(n).padStart(2, "0")).join("-");
}

/** Notes per day (["2026-03-02", 3]), oldest day first. */
export function countPerDay(notes) {
  const counts = new Map();
  for (const note of notes) {
    const day = dayOf(note.createdAt);
    counts.set(day, (counts.get(day) || 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => a[0].localeCompare(b[0]));
}

/** Draws one bar per day into the SVG, with day labels and the count above each bar. */
function drawChart(svg, days) {
  for (const old of svg.querySelectorAll("g")) old.remove();
  const width = 640, left = 36, bottom = 200, top = 20;
  const max = Math.max(1, ...days.map(([, n]) => n));
  const slot = (width - left - 10) / Math.max(1, days.length);
  // A bar's label is short ("2. 3.", "3/2"); the description and the table give the whole date.
  const dayMonth = new Intl.DateTimeFormat(language(), { day: "numeric", month: "numeric" });
  const group = svgNode("g", {});
  group.append(svgNode("line", { x1: left, y1: bottom, x2: width - 10, y2: bottom, class: "axis" }));
  days.forEach(([day, count], i) => {
    const barHeight = ((bottom - top) * count) / max;
    const barWidth = Math.min(slot * 0.7, 48);  // a few days must not make a wall of blue
    const middle = left + i * slot + slot / 2;
    group.append(svgNode("rect", { class: "bar", x: middle - barWidth / 2, y: bottom - barHeight, width: barWidth, height: barHeight, "data-day": day }));
    group.append(svgNode("text", { x: middle, y: bottom - barHeight - 4, "text-anchor": "middle" }, number(count, 0)));
    group.append(svgNode("text", { x: middle, y: bottom + 16, "text-anchor": "middle" }, dayMonth.format(toDate(day))));
  });
  svg.append(group);
  // One sentence for screen readers: "You wrote 1 note on Mar 2, 2026 and 3 notes on Mar 3, 2026."
  const parts = days.map(([day, count]) => t("notes.chartDay", { count, day: date(day) }));
  $("chart-desc").textContent = parts.length ? t("notes.chartDescription", { days: list(parts) }) : t("notes.empty");
}

function svgNode(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderList(notes) {
  const items = notes.map((note) => el("li", {}, note.text, el("time", { datetime: note.createdAt }, dateTime(note.createdAt))));
  clear($("notes"));
  $("notes").append(...items);
  $("notes-empty").hidden = notes.length > 0;
}

function renderTable(days) {
  const body = $("per-day").querySelector("tbody");
  clear(body);
  for (const [day, count] of days) body.append(el("tr", {}, el("th", { scope: "row" }, date(day)), el("td", {}, number(count, 0))));
}

/** Reads the notes and shows them; a failure is a sentence in the status line. */
async function refresh() {
  try {
    const { notes } = await callOperation(PLUGIN, "list-notes", { limit: 500 });
    const days = countPerDay(notes);
    renderList(notes);
    drawChart($("chart"), days);
    renderTable(days);
  } catch (error) {
    $("status").textContent = t("notes.loadFailed", { reason: errorText(error) });
  } finally {
    document.body.dataset.ready = "true";
  }
}

async function start() {
  const me = await startPage({ status: $("status") });
  if (!me) return;
  for (const id of ["add-section", "chart-section", "list-section"]) $(id).hidden = false;
  $("add-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const input = $("note-text");
    $("note-error").textContent = "";
    input.removeAttribute("aria-invalid");
    try {
      await callOperation(PLUGIN, "add-note", { text: input.value });
    } catch (error) {
      // The sentence next to the field ("Write a note (1 to 1000 characters)."), the field marked and focused.
      showError(error, { form, output: $("note-error") });
      return;
    }
    form.reset();
    $("status").textContent = t("notes.added");
    await refresh();
  });
  await refresh();
}

start();
