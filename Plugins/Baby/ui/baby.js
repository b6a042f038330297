// The baby diary's page: a child picker at the top with "Add a child" (children.js), and the
// diary in parts a parent moves between, one shown at a time (tabs.js; the part is kept in the
// address's hash): the overview (the children with their ages and photos, the chosen one's latest
// measurements and "Edit details", and its timeline newest first, a page at a time, with photos
// (photos.js) and each record's Edit and Delete (records.js)), daily care (feeds, sleep, nappies,
// pumping and tummy time with timers, a quick add, today's log and the week, care.js), growth (a
// measurement kind over 1 month, 1 year or all, as an SVG line over the WHO percentile lines, and
// a form to add one), milestones and photos and posts (forms.js, each with the child's list),
// health (the card, health.js; a temperature, forms.js; illnesses and injuries with visits,
// medications and a chart of their temperatures, illnesses.js, fever-chart.js), the calendar with
// this device's reminders (calendar.js, reminders.js), contacts (contacts.js), the PDF export
// (export.js), and sharing with the invitations inbox and this device's account (sharing.js,
// invitations.js, account.js). Every text is the person's language (messages/*.json), every date
// and number is formatted for it (common.js), and a refused form says why right below the field at
// fault. The chart is drawn with presentation attributes, not a style sheet: the host's content
// policy allows no inline style.

import { startPage } from "/console/page.js";
import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { date } from "/console/format.js";
import { errorText, reasonCode } from "/console/errors.js";
import { PLUGIN, $, when, measure, describe, named, numberIn, clearFormError, refuse, readClock, safely, today, milestoneName } from "./common.js";
import { photoImage } from "./photos.js";
import { showHealthCard, bindHealthForms } from "./health.js";
import { showCalendar, bindCalendar } from "./calendar.js";
import { bindRecordForms, showMilestoneSuggestions } from "./forms.js";
import { showContacts, bindContactForm } from "./contacts.js";
import { showProblems, bindProblemForms } from "./illnesses.js";
import { showMembers, bindSharingForm } from "./sharing.js";
import { recordButtons, bindEditing } from "./records.js";
import { showReminders, bindReminderForm } from "./reminders.js";
import { showInvitations } from "./invitations.js";
import { bindExportForm } from "./export.js";
import { showAccount, bindAccountForms } from "./account.js";
import { showChildren, bindChildren, chosenChild, levels } from "./children.js";
import { bindTabs, offerTabs, openTab } from "./tabs.js";
import { showCare, bindCare } from "./care.js";

const SVG = "http://www.w3.org/2000/svg";
let cursor = null;
let latestMonth = null;  // the newest record's month: where the calendar opens (the host's clock may not be the browser's)

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

async function showChart() {
  const chart = $("chart");
  for (const node of [...chart.childNodes]) if (node.nodeName !== "title") node.remove();
  $("chart-title").textContent = t("growth.chartTitleOf", { kind: named("kinds", $("kind").value) });
  if (!chosenChild()) return;
  const series = await callOperation(PLUGIN, "measurements", { childId: chosenChild(), kind: $("kind").value, range: $("range").value });
  const points = series.points;
  if (points.length === 0) {
    chart.append(svg("text", { x: 20, y: 120, "font-size": 18, fill: "currentColor" }, t("growth.empty")));
    return;
  }
  const times = points.map((p) => Date.parse(p.date.slice(0, 10)));
  const values = points.map((p) => p.value);
  const [t0, t1] = [Math.min(...times), Math.max(...times)];
  // The WHO percentile lines over the same days, when the child's sex is recorded: a point's age in
  // days gives the birth date, and each line's values between the first and last measurement.
  const bands = percentileBands(series, points, times, t0, t1);
  const shown = values.concat(...bands.map((b) => b.points.map((p) => p.value)));
  const [v0, v1] = [Math.min(...shown), Math.max(...shown)];
  const x = (time) => 90 + (t1 === t0 ? 230 : ((time - t0) / (t1 - t0)) * 450);
  const y = (v) => 210 - (v1 === v0 ? 90 : ((v - v0) / (v1 - v0)) * 180);
  for (const band of bands) {
    const path = band.points.map((p) => `${x(p.time)},${y(p.value)}`).join(" ");
    chart.append(svg("polyline", { points: path, fill: "none", stroke: "#9e9e9e", "stroke-width": band.percentile === 50 ? 1.5 : 1,
                                   "stroke-dasharray": band.percentile === 50 ? "" : "4 3", class: "percentile" }));
    const last = band.points[band.points.length - 1];
    if (last) chart.append(svg("text", { x: x(last.time) + 4, y: y(last.value) + 4, "font-size": 13, fill: "#757575" }, t("growth.percentile", { p: band.percentile })));
  }
  const line = points.map((p, i) => `${x(times[i])},${y(values[i])}`).join(" ");
  chart.append(svg("polyline", { points: line, fill: "none", stroke: "#1565c0", "stroke-width": 2 }));
  points.forEach((p, i) => {
    const point = svg("circle", { cx: x(times[i]), cy: y(values[i]), r: 3, fill: "#1565c0" });
    point.append(svg("title", {}, t("growth.point", { date: when(p.date), value: measure(p.value, series.unit) })));
    chart.append(point);
  });
  const label = (lx, ly, text, anchor = "start") => svg("text", { x: lx, y: ly, "font-size": 15, fill: "currentColor", "text-anchor": anchor }, text);
  chart.append(label(4, 34, measure(v1, series.unit)), label(4, 214, measure(v0, series.unit)), label(90, 236, date(points[0].date.slice(0, 10))));
  if (t1 !== t0) chart.append(label(596, 236, date(points[points.length - 1].date.slice(0, 10)), "end"));
}

/** The WHO percentile lines of a `measurements` answer as times and values between t0 and t1. */
function percentileBands(series, points, times, t0, t1) {
  const scored = series.percentiles && series.percentiles.points && series.percentiles.points[0];
  if (!scored) return [];
  const index = points.findIndex((p) => p.id === scored.id);
  if (index < 0) return [];
  const birth = times[index] - scored.ageDays * 86400000;
  return series.percentiles.lines.map((line) => ({
    percentile: line.percentile,
    points: line.points.map((p) => ({ time: birth + p.ageDays * 86400000, value: p.value }))
      .filter((p) => p.time >= t0 && p.time <= t1),
  })).filter((band) => band.points.length > 1);
}

/** The chosen child's timeline, newest first, a page at a time. */
async function showTimeline(more) {
  const child = chosenChild();
  $("timeline-section").hidden = !child;
  if (!more) clear($("timeline"));
  if (!child) { cursor = null; $("more").hidden = true; return; }
  const page = await callOperation(PLUGIN, "timeline", more && cursor ? { childIds: [child], cursor } : { childIds: [child] });
  for (const item of page.items) {
    const photos = (item.photos || []).map((address, i) => photoImage(address, t("timeline.photoAlt", { n: i + 1, date: when(item.date) })));
    $("timeline").append(el("li", { "data-id": item.id }, t("timeline.item", { date: when(item.date), what: describe(item) }), ...photos,
                            ...recordButtons(item, done)));
  }
  if (!more && page.items.length === 0) $("timeline").append(el("li", { class: "muted" }, t("timeline.empty")));
  if (!more && page.items.length) latestMonth = page.items[0].date.slice(0, 7);
  cursor = page.nextCursor;
  $("more").hidden = !cursor;
}

/** The chosen child's milestones (their names in the person's language) and posts with photos, newest first. */
async function showMilestonesAndPosts() {
  const child = chosenChild();
  clear($("milestones"));
  clear($("posts"));
  if (!child) return;
  const [milestones, posts] = await Promise.all(["milestone", "post"].map((type) =>
    callOperation(PLUGIN, "timeline", { childIds: [child], types: [type], includeFuture: true, limit: 200 })));
  for (const item of milestones.items) {
    const name = milestoneName(item);
    const what = item.note ? t("record.withNote", { what: name, note: item.note }) : name;
    $("milestones").append(el("li", { "data-id": item.id }, t("timeline.item", { date: when(item.date), what }), ...recordButtons(item, done)));
  }
  if (!milestones.items.length) $("milestones").append(el("li", { class: "muted" }, t("milestoneList.none")));
  for (const item of posts.items) {
    const photos = (item.photos || []).map((address, i) => photoImage(address, t("timeline.photoAlt", { n: i + 1, date: when(item.date) })));
    $("posts").append(el("li", { "data-id": item.id }, el("p", {}, t("timeline.item", { date: when(item.date), what: item.note || "" })),
                         photos.length ? el("p", { class: "photos" }, photos) : null, el("p", {}, ...recordButtons(item, done).slice(1))));
  }
  if (!posts.items.length) $("posts").append(el("li", { class: "muted" }, t("posts.none")));
}

const chosenChildren = () => (chosenChild() ? [chosenChild()] : []);

/** The chosen child's contacts (first: visits name their doctors), illnesses, reminders and
 * members, and the invitations inbox. */
async function showChildDetails() {
  const child = chosenChild();
  await showContacts(child, done);
  await Promise.all([showProblems(child, done), showReminders(child), showMembers(child, levels[child], done), showInvitations(done)]);
}

/**
 * Waits for a change, shows the page again, then says how it went in the status line (so what the
 * message tells of is on the page when it appears). A refusal of a form's input is said in that
 * form (`form`), right below the field at fault, which is marked; other failures in the status line.
 * `message` may be a function of what the change answered. Answers whether the change was made.
 */
async function done(change, message, form) {
  if (form) clearFormError(form);
  let answer;
  try {
    answer = await change;
  } catch (error) {
    if (form) {
      refuse(form, error);
      $("status").textContent = "";
    } else {
      $("status").textContent = errorText(error);
    }
    return false;
  }
  try {
    await refresh();
    $("status").textContent = typeof message === "function" ? message(answer) : message;
  } catch (error) {
    $("status").textContent = errorText(error);
  }
  return true;
}

let calendarOpened = false;

/** The date fields a parent usually fills with today: given today on the host's clock while empty. */
const TODAY_FIELDS = ["date", "milestone-date", "post-date"];

async function refresh() {
  await readClock();
  await showAccount();
  const children = await showChildren(done);
  offerTabs(children > 0);
  for (const id of TODAY_FIELDS) if (!$(id).value) $(id).value = today();
  await Promise.all([showChart(), showTimeline(false), showHealthCard(chosenChild()), showChildDetails(), showMilestonesAndPosts(),
                     showMilestoneSuggestions(), showCare()]);
  await showCalendar(chosenChildren(), calendarOpened ? undefined : latestMonth);
  calendarOpened = true;
}

/**
 * The measurement the module last found implausible for the child (far outside the WHO standard,
 * say 74 kg for 7.4): the sentence asks the parent to check it, and saving the very same values
 * again confirms them.
 */
let implausible = null;

async function addMeasurement(event) {
  event.preventDefault();
  const input = { childId: chosenChild(), kind: $("kind").value, value: numberIn($("value")), date: $("date").value };
  const again = implausible !== null && JSON.stringify(implausible) === JSON.stringify(input);
  const change = callOperation(PLUGIN, "measurement-add", again ? { ...input, confirmed: true } : input);
  change.then(() => { implausible = null; }, (error) => { implausible = reasonCode(error) === "implausible" ? input : null; });
  await done(change, t("growth.added"), event.currentTarget);
}

async function main() {
  const me = await startPage({ status: $("status") });
  if (!me) {
    for (const part of document.querySelectorAll("main > :not(#status)")) part.hidden = true;
    return;
  }
  bindTabs();
  $("more").addEventListener("click", safely(() => showTimeline(true)));
  for (const id of ["kind", "range"]) $(id).addEventListener("change", safely(() => showChart()));
  $("measurement-form").addEventListener("submit", addMeasurement);
  bindChildren(done, () => openTab("overview"));
  bindHealthForms(chosenChild, done);
  bindRecordForms(chosenChild, done);
  bindCalendar(chosenChildren);
  bindContactForm(chosenChild, done);
  bindProblemForms(chosenChild, done);
  bindSharingForm(chosenChild, done);
  bindEditing(chosenChild, done);
  bindReminderForm(done);
  bindExportForm(chosenChild);
  bindCare(chosenChild, done);
  bindAccountForms(refresh);
  try {
    await refresh();
  } catch (error) {
    $("status").textContent = errorText(error);
  }
  document.body.dataset.ready = "true";
}

main();
