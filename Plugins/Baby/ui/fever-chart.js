// The temperature chart of one illness or injury (UC24) on the baby diary's page: its readings
// over time as an SVG line with a point each, and the fever thresholds the module classes readings
// by (Fever.swift: 37.5 °C raised, 38 fever, 39 high fever, 40 very high) as dashed lines named at
// their right end. Every text on it — the degrees, the threshold names, the dates — is in the
// person's language. Drawn like the growth chart: presentation attributes, no style sheet (the
// host's content policy allows no inline style) and no library.

import { t } from "/console/i18n.js";
import { number } from "/console/format.js";
import { when, celsius, named } from "./common.js";

const SVG = "http://www.w3.org/2000/svg";
/** Where each fever class above normal starts, and its name (the `fever.*` messages). */
export const FEVER_THRESHOLDS = [
  { celsius: 37.5, fever: "raised" }, { celsius: 38, fever: "fever" },
  { celsius: 39, fever: "high" }, { celsius: 40, fever: "veryHigh" },
];
const COLOURS = { hypothermia: "#1565c0", normal: "#2e7d32", raised: "#f9a825", fever: "#ef6c00", high: "#c62828", veryHigh: "#6a1b9a" };

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A day or a local moment as a number that keeps their spacing (the zone does not matter). */
const instant = (date) => Date.parse((date.length === 10 ? date + "T00:00" : date) + ":00Z");

/** The chart of `temperatures` (problem-get's series, oldest first) for the problem named `name`. */
export function temperatureChart(name, temperatures) {
  const chart = svg("svg", { class: "temperature-chart", viewBox: "0 0 600 220", width: 600, height: 220, role: "img" });
  chart.append(svg("title", {}, t("fever.chartTitle", { name })));
  const values = temperatures.map((r) => r.value).concat(FEVER_THRESHOLDS.map((r) => r.celsius));
  const low = Math.floor((Math.min(...values) - 0.5) * 2) / 2, high = Math.ceil((Math.max(...values) + 0.5) * 2) / 2;
  const times = temperatures.map((r) => instant(r.date));
  const [t0, t1] = [Math.min(...times), Math.max(...times)];
  // The plot ends at 390, leaving the right for the thresholds' names ("40 °C velmi vysoká horečka");
  // the text is large enough to read when a phone shows the chart at half its size.
  const x = (time) => 50 + (t1 === t0 ? 170 : ((time - t0) / (t1 - t0)) * 340);
  const y = (v) => 190 - ((v - low) / (high - low)) * 170;
  for (let tick = low; tick <= high + 1e-9; tick += 0.5) {
    chart.append(svg("line", { x1: 50, x2: 390, y1: y(tick), y2: y(tick), stroke: "#e0e0e0", "stroke-width": 1 }));
    chart.append(svg("text", { x: 44, y: y(tick) + 4, "font-size": 13, "text-anchor": "end", fill: "currentColor" }, number(tick, 1)));
  }
  for (const threshold of FEVER_THRESHOLDS) {
    chart.append(svg("line", { class: "threshold", "data-celsius": threshold.celsius, x1: 50, x2: 390, y1: y(threshold.celsius), y2: y(threshold.celsius),
                               stroke: "#c62828", "stroke-width": 1, "stroke-dasharray": "5 3" }));
    chart.append(svg("text", { x: 396, y: y(threshold.celsius) + 4, "font-size": 13, fill: "#c62828" },
                     t("fever.thresholdLabel", { value: celsius(threshold.celsius), name: named("fever", threshold.fever) })));
  }
  chart.append(svg("polyline", { points: temperatures.map((r, i) => `${x(times[i])},${y(r.value)}`).join(" "), fill: "none", stroke: "#1565c0", "stroke-width": 2 }));
  temperatures.forEach((r, i) => {
    const point = svg("circle", { class: "temperature", "data-celsius": r.value, cx: x(times[i]), cy: y(r.value), r: 4, fill: COLOURS[r.fever] || "#1565c0" });
    point.append(svg("title", {}, t("problems.temperature", { at: when(r.date), value: celsius(r.value), fever: named("fever", r.fever) })));
    chart.append(point);
  });
  const first = temperatures[0].date, last = temperatures[temperatures.length - 1].date;
  chart.append(svg("text", { x: 50, y: 214, "font-size": 13, fill: "currentColor" }, when(first)));
  if (last !== first) chart.append(svg("text", { x: 390, y: 214, "font-size": 13, "text-anchor": "end", fill: "currentColor" }, when(last)));
  return chart;
}
