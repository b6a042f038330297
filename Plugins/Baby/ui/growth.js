// The growth part of the baby diary's page (issue 41): one WHO indicator at a time — weight,
// length or height, or head circumference for age; weight for length or height; BMI for age — as
// an SVG line over the WHO percentile lines (P3–P97), the latest value in a sentence with its
// percentile, the days the WHO standard could not score and why, and the form to add a
// measurement (a length's position, a weight's oedema). Age charts run over dates, the weight-for-
// length chart over centimetres. The chart is drawn with presentation attributes, not a style
// sheet: the host's content policy allows no inline style.

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { date, number } from "/console/format.js";
import { reasonCode } from "/console/errors.js";
import { PLUGIN, $, when, numberIn, clock } from "./common.js";

const SVG = "http://www.w3.org/2000/svg";
const DAY = 86400000;

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The indicator a measurement kind is charted against, so adding a height shows the heights. */
const CHART_OF_KIND = { weight: "weight-for-age", height: "length-height-for-age", headCircumference: "head-circumference-for-age" };

/** "7,4 kg", "74,86 cm", "16,3 kg/m²": a value as entered, with the indicator's unit. */
function valueText(value, unit) {
  if (unit === "kg") return t("units.kg", { value: number(value, 3) });
  if (unit === "cm") return t("units.cm", { value: number(value, 2) });
  return t("units.bmi", { value: number(value, 1) });
}

/** "42. percentil": a percentile as the person reads it (below 1 and above 99 to one decimal). */
function percentileText(p) {
  return t("growth.percentileOf", { p: number(p, p < 1 || p > 99 ? 1 : 0) });
}

/** The day `from` lies before today on the host's clock, for the 1 month / 1 year range. */
function rangeStart(range) {
  const start = new Date(clock.now);
  if (range === "1m") start.setMonth(start.getMonth() - 1);
  else if (range === "1y") start.setFullYear(start.getFullYear() - 1);
  else return "";
  return start.toISOString().slice(0, 10);
}

/** Draws the chosen indicator of the chosen child, with its sentences below. */
export async function showGrowth(childId) {
  const chart = $("chart");
  for (const node of [...chart.childNodes]) if (node.nodeName !== "title") node.remove();
  clear($("growth-latest"));
  clear($("growth-unscored"));
  const indicator = $("indicator").value;
  $("chart-title").textContent = t(`growth.indicators.${indicator}`);
  if (!childId) return;
  const answer = await callOperation(PLUGIN, "growth", { childId, indicator });
  const byLength = answer.axis === "lengthCm";
  const from = byLength ? "" : rangeStart($("range").value);
  const points = answer.points.filter((p) => p.date >= from);
  const unscored = answer.unscored.filter((u) => u.date >= from);
  describe(answer, points, unscored);
  if (points.length === 0) {
    chart.append(svg("text", { x: 20, y: 120, "font-size": 18, fill: "currentColor" }, t(unscored.length ? "growth.noneScored" : "growth.empty")));
    return;
  }
  draw(chart, answer, points, byLength, from);
}

/** The point's x: its day (as a time) on an age chart, its length in cm on the weight-for-length chart. */
function xOf(point, byLength) {
  return byLength ? point.lengthCm : Date.parse(point.date);
}

function draw(chart, answer, points, byLength, from) {
  const xs = points.map((p) => xOf(p, byLength));
  let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  // The WHO lines over the same span: a point's age in days gives the birth, for the age charts.
  const birth = byLength ? 0 : Date.parse(points[0].date) - points[0].ageDays * DAY;
  if (byLength) {
    x0 = Math.floor(x0 - 2);
    x1 = Math.ceil(x1 + 2);
  } else {
    // From birth (or the range's start) to the last value, at least three months, so that even a
    // first measurement stands among the curves.
    x0 = Math.max(birth, from ? Date.parse(from) : birth);
    x1 = Math.max(x1, Math.min(clock.now.getTime(), x0 + 90 * DAY));
  }
  const bands = answer.lines.map((line) => ({
    percentile: line.percentile,
    points: line.points.map((p) => ({ x: byLength ? p.lengthCm : birth + p.ageDays * DAY, value: p.value })).filter((p) => p.x >= x0 && p.x <= x1),
  })).filter((band) => band.points.length > 1);
  const shown = points.map((p) => p.value).concat(...bands.map((b) => b.points.map((p) => p.value)));
  const [v0, v1] = [Math.min(...shown), Math.max(...shown)];
  const x = (value) => 90 + (x1 === x0 ? 230 : ((value - x0) / (x1 - x0)) * 450);
  const y = (v) => 210 - (v1 === v0 ? 90 : ((v - v0) / (v1 - v0)) * 180);
  for (const band of bands) {
    const path = band.points.map((p) => `${x(p.x)},${y(p.value)}`).join(" ");
    chart.append(svg("polyline", { points: path, fill: "none", stroke: "#9e9e9e", "stroke-width": band.percentile === 50 ? 1.5 : 1,
                                   "stroke-dasharray": band.percentile === 50 ? "" : "4 3", class: "percentile" }));
    const last = band.points[band.points.length - 1];
    chart.append(svg("text", { x: x(last.x) + 4, y: y(last.value) + 4, "font-size": 13, fill: "#757575" }, t("growth.percentile", { p: band.percentile })));
  }
  const line = points.map((p, i) => `${x(xs[i])},${y(p.value)}`).join(" ");
  chart.append(svg("polyline", { points: line, fill: "none", stroke: "#1565c0", "stroke-width": 2 }));
  points.forEach((p, i) => {
    const point = svg("circle", { cx: x(xs[i]), cy: y(p.value), r: p.flagged ? 5 : 3, fill: p.flagged ? "#c62828" : "#1565c0" });
    point.append(svg("title", {}, pointText(p, answer)));
    chart.append(point);
  });
  const label = (lx, ly, text, anchor = "start") => svg("text", { x: lx, y: ly, "font-size": 15, fill: "currentColor", "text-anchor": anchor }, text);
  const axis = (value) => (byLength ? t("units.cm", { value: number(value, 0) }) : date(new Date(value).toISOString().slice(0, 10)));
  chart.append(label(4, 34, valueText(v1, answer.unit)), label(4, 214, valueText(v0, answer.unit)), label(90, 236, axis(x0)));
  if (x1 !== x0) chart.append(label(596, 236, axis(x1), "end"));
}

/** "2. 3. 2026: 7,4 kg (42. percentil)"; on the weight-for-length chart also the length. */
function pointText(p, answer) {
  const value = valueText(p.value, answer.unit);
  const what = p.lengthCm !== undefined && answer.axis === "lengthCm"
    ? t("growth.pointAtLength", { value, length: valueText(p.lengthCm, "cm") }) : value;
  const text = t("growth.point", { date: when(p.date), value: what });
  return p.percentile === undefined ? text : t("growth.pointWithPercentile", { point: text, percentile: percentileText(p.percentile) });
}

/** The latest value in a sentence, where it lies against the WHO curves, and the days not scored. */
function describe(answer, points, unscored) {
  const latest = points[points.length - 1];
  const sentences = latest ? [t("growth.latest", { point: pointText(latest, answer) })] : [];
  if (answer.sex === null) sentences.push(t("growth.noSex"));
  else if (latest && latest.percentile !== undefined) {
    const band = latest.flagged ? "flagged" : latest.percentile < 3 ? "below" : latest.percentile > 97 ? "above" : "within";
    sentences.push(t(`growth.band.${band}`));
  }
  $("growth-latest").textContent = sentences.join(" ");
  for (const day of unscored) {
    if (day.reason === "noSex") continue;
    $("growth-unscored").append(el("li", {}, t(`growth.unscored.${day.reason}`, { date: when(day.date) })));
  }
}

/** Shows the position for a height and the oedema box for a weight, and the kind's chart. */
export function showKindFields() {
  const kind = $("kind").value;
  $("position-field").hidden = kind !== "height";
  $("oedema-field").hidden = kind !== "weight";
  $("indicator").value = CHART_OF_KIND[kind];
}

/**
 * The measurement the module last found implausible for the child (far outside the WHO standard,
 * say 74 kg for 7.4): the sentence asks the parent to check it, and saving the very same values
 * again confirms them.
 */
let implausible = null;

/** The form's measurement: the position only for a height when chosen, oedema only for a weight when ticked. */
function measurementInput(childId) {
  const kind = $("kind").value;
  const input = { childId, kind, value: numberIn($("value")), date: $("date").value };
  if (kind === "height" && $("position").value) input.position = $("position").value;
  if (kind === "weight" && $("oedema").checked) input.oedema = true;
  return input;
}

export function bindGrowth(chosenChild, done, redraw) {
  for (const id of ["indicator", "range"]) $(id).addEventListener("change", redraw);
  $("kind").addEventListener("change", () => { showKindFields(); redraw(); });
  showKindFields();
  $("measurement-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = measurementInput(chosenChild());
    const again = implausible !== null && JSON.stringify(implausible) === JSON.stringify(input);
    const change = callOperation(PLUGIN, "measurement-add", again ? { ...input, confirmed: true } : input);
    change.then(() => { implausible = null; $("oedema").checked = false; },
                (error) => { implausible = reasonCode(error) === "implausible" ? input : null; });
    await done(change, t("growth.added"), event.currentTarget);
  });
}
