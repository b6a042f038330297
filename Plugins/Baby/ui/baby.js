// The baby diary's page: the children with their ages and photos and a form to add one, one
// child's growth chart (a measurement kind over 1 month, 1 year or all, as an SVG line over the WHO
// percentile lines) with a form to add a measurement, the health card (health.js), the calendar
// (calendar.js), forms for milestones, posts with photos and temperatures (forms.js), illnesses
// and injuries with their visits and medications and a chart of its temperatures (illnesses.js,
// fever-chart.js), this device's reminders (reminders.js), contacts (contacts.js), sharing
// (sharing.js) and the invitations inbox (invitations.js), this device's account: sign up with a
// first child, log in and out (account.js), the PDF export with its download (export.js), and the
// timeline newest first, a page at a time, with its photos (photos.js) and each record's Edit and
// Delete (records.js). Every text is the person's language (messages/*.json), every date and
// number is formatted for it (common.js), and a refused form says why under the form. The chart
// is drawn with presentation attributes, not a style sheet: the host's content policy allows no
// inline style.

import { startPage } from "/console/page.js";
import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { date } from "/console/format.js";
import { errorText } from "/console/errors.js";
import { PLUGIN, $, when, measure, ageText, describe, named, numberIn, clearFormError, refuse, readClock, safely } from "./common.js";
import { photoImage } from "./photos.js";
import { showHealthCard, bindHealthForms } from "./health.js";
import { showCalendar, bindCalendar } from "./calendar.js";
import { bindRecordForms } from "./forms.js";
import { showContacts, bindContactForm } from "./contacts.js";
import { showProblems, bindProblemForms } from "./illnesses.js";
import { showMembers, bindSharingForm } from "./sharing.js";
import { recordButtons, bindEditing } from "./records.js";
import { showReminders, bindReminderForm } from "./reminders.js";
import { showInvitations } from "./invitations.js";
import { bindExportForm } from "./export.js";
import { showAccount, bindAccountForms } from "./account.js";

const SVG = "http://www.w3.org/2000/svg";
let cursor = null;
let latestMonth = null;  // the newest record's month: where the calendar opens (the host's clock may not be the browser's)

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

let levels = {};  // the person's level for each child: sharing is the owner's

async function showChildren() {
  const { children } = await callOperation(PLUGIN, "children-list", {});
  levels = Object.fromEntries(children.map((child) => [child.id, child.level]));
  clear($("children"));
  const chosen = $("child").value;
  clear($("child"));
  for (const child of children) {
    const profile = await callOperation(PLUGIN, "child-get", { id: child.id });
    const photo = child.photo ? photoImage(child.photo, t("children.photoAlt", { name: child.name })) : null;
    const age = ageText(profile.age);
    const params = { name: child.name, born: date(child.birthDate), age, role: named("levels", child.level) };
    $("children").append(el("li", { "data-id": child.id }, photo, t(age ? "children.item" : "children.itemNoAge", params)));
    $("child").append(el("option", { value: child.id, selected: child.id === chosen }, child.name));
  }
  $("children-empty").hidden = children.length > 0;
}

async function showChart() {
  const chart = $("chart");
  for (const node of [...chart.childNodes]) if (node.nodeName !== "title") node.remove();
  $("chart-title").textContent = t("growth.chartTitleOf", { kind: named("kinds", $("kind").value) });
  if (!$("child").value) return;
  const series = await callOperation(PLUGIN, "measurements", { childId: $("child").value, kind: $("kind").value, range: $("range").value });
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

async function showTimeline(more) {
  const page = await callOperation(PLUGIN, "timeline", more && cursor ? { cursor } : {});
  if (!more) clear($("timeline"));
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

const chosenChildren = () => ($("child").value ? [$("child").value] : []);

/** The chosen child's contacts (first: visits name their doctors), illnesses, reminders and
 * members, and the invitations inbox. */
async function showChildDetails() {
  const child = $("child").value;
  await showContacts(child, done);
  await Promise.all([showProblems(child, done), showReminders(child), showMembers(child, levels[child], done), showInvitations(done)]);
}

/**
 * Waits for a change, shows the page again, then says how it went in the status line (so what the
 * message tells of is on the page when it appears). A refusal of a form's input is said under
 * that form (`form`), with the field at fault marked; other failures in the status line.
 * Answers whether the change was made.
 */
async function done(change, message, form) {
  if (form) clearFormError(form);
  try {
    await change;
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
    $("status").textContent = message;
  } catch (error) {
    $("status").textContent = errorText(error);
  }
  return true;
}

let calendarOpened = false;

async function refresh() {
  await readClock();
  await showAccount();
  await showChildren();
  await Promise.all([showChart(), showTimeline(false), showHealthCard($("child").value), showChildDetails()]);
  await showCalendar(chosenChildren(), calendarOpened ? undefined : latestMonth);
  calendarOpened = true;
}

async function addMeasurement(event) {
  event.preventDefault();
  await done(callOperation(PLUGIN, "measurement-add", {
    childId: $("child").value, kind: $("kind").value, value: numberIn($("value")), date: $("date").value,
  }), t("growth.added"), event.currentTarget);
}

async function addChild(event) {
  event.preventDefault();
  const form = event.currentTarget;
  const input = { name: $("child-name").value, birthDate: $("child-birth").value };
  if ($("child-sex").value) input.sex = $("child-sex").value;
  if (await done(callOperation(PLUGIN, "child-create", input), t("children.added", { name: input.name.trim() }), form)) form.reset();
}

async function main() {
  const me = await startPage({ status: $("status") });
  if (!me) {
    for (const section of document.querySelectorAll("main > section")) section.hidden = true;
    return;
  }
  $("more").addEventListener("click", safely(() => showTimeline(true)));
  for (const id of ["kind", "range"]) $(id).addEventListener("change", safely(() => showChart()));
  $("child").addEventListener("change", safely(() => Promise.all([showChart(), showHealthCard($("child").value), showCalendar(chosenChildren()),
                                                                  showChildDetails()])));
  $("measurement-form").addEventListener("submit", addMeasurement);
  $("child-form").addEventListener("submit", addChild);
  const childId = () => $("child").value;
  bindHealthForms(childId, done);
  bindRecordForms(childId, done);
  bindCalendar(chosenChildren);
  bindContactForm(childId, done);
  bindProblemForms(childId, done);
  bindSharingForm(childId, done);
  bindEditing(childId, done);
  bindReminderForm(done);
  bindExportForm(childId);
  bindAccountForms(refresh);
  try {
    await refresh();
  } catch (error) {
    $("status").textContent = errorText(error);
  }
  document.body.dataset.ready = "true";
}

main();
