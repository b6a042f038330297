// The baby diary's page: a child picker at the top with "Add a child" (children.js), and the
// diary in parts a parent moves between, one shown at a time (tabs.js; the part is kept in the
// address's hash): the overview (the children with their ages and photos, the chosen one's latest
// measurements and "Edit details", and its timeline newest first, a page at a time, with photos
// (photos.js) and each record's Edit and Delete (records.js)), daily care (feeds, sleep, nappies,
// pumping and tummy time with timers, a quick add, today's log and the week, care.js; brought over from Baby Buddy, care-import.js), growth (each
// WHO indicator as a line over the WHO percentile lines, the latest value in words, and a form to
// add a measurement, growth.js), milestones and photos and posts (forms.js, each with the child's list),
// health (the card, health.js; a temperature, forms.js; illnesses and injuries with visits,
// medications and a chart of their temperatures, illnesses.js, fever-chart.js), the calendar with
// this device's reminders (calendar.js, reminders.js), contacts (contacts.js), the PDF export
// (export.js), and sharing with the invitations inbox and this device's account (sharing.js,
// invitations.js, account.js). Every text is the person's language (messages/*.json), every date
// and number is formatted for it (common.js), and a refused form says why right below the field at
// fault.

import { startPage } from "/console/page.js";
import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { errorText } from "/console/errors.js";
import { PLUGIN, $, when, describe, clearFormError, refuse, readClock, safely, today, milestoneName } from "./common.js";
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
import { bindCareImport } from "./care-import.js";
import { showGrowth, bindGrowth } from "./growth.js";

let cursor = null;
let latestMonth = null;  // the newest record's month: where the calendar opens (the host's clock may not be the browser's)

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
  await Promise.all([showGrowth(chosenChild()), showTimeline(false), showHealthCard(chosenChild()), showChildDetails(), showMilestonesAndPosts(),
                     showMilestoneSuggestions(), showCare()]);
  await showCalendar(chosenChildren(), calendarOpened ? undefined : latestMonth);
  calendarOpened = true;
}

async function main() {
  const me = await startPage({ status: $("status") });
  if (!me) {
    for (const part of document.querySelectorAll("main > :not(#status)")) part.hidden = true;
    return;
  }
  bindTabs();
  $("more").addEventListener("click", safely(() => showTimeline(true)));
  bindGrowth(chosenChild, done, safely(() => showGrowth(chosenChild())));
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
  bindCareImport(chosenChild, done);
  bindAccountForms(refresh);
  try {
    await refresh();
  } catch (error) {
    $("status").textContent = errorText(error);
  }
  document.body.dataset.ready = "true";
}

main();
