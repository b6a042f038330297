// The IS/STAG page: logged out, the university's login (login.js); logged in, the person's week —
// today (today.js), the timetable by day or week (timetable.js), exam terms with registering
// (exams.js), results (results.js), the teacher's terms and students (teacher.js), notes
// (notes.js) and reminders (reminders.js) — and logging out. Which parts show follows the roles of
// the login: a student's, a teacher's, or both. In the person's language (docs/stag.md, "The
// page"): text from messages/<lang>.json, errors as sentences (common.js).

import { callOperation } from "/console/api.js";
import { list } from "/console/format.js";
import { language, t } from "/console/i18n.js";
import { startPage } from "/console/page.js";
import { $, PLUGIN, isNotLoggedIn, readClock, sentenceFor } from "./common.js";
import { bindLogin, offerUniversities } from "./login.js";
import { showToday } from "./today.js";
import { bindTimetable, startTimetable } from "./timetable.js";
import { onExamsChanged, showExams } from "./exams.js";
import { showResults } from "./results.js";
import { bindNotes, setNoteSubjects, showNotes } from "./notes.js";
import { showReminders } from "./reminders.js";
import { bindTeaching, showTeaching } from "./teacher.js";
import { showTheses, startCanteen } from "./catalogue.js";

/** What the page knows of the login: its roles and the day it is on the host's clock. */
const person = { roles: { student: false, teacher: false }, today: null };

/**
 * The login's roles, found by asking for each part: the module answers `not_logged_in` for the
 * part the login does not have. The student's profile also gives the name.
 */
async function findRoles(today) {
  // The login's roles and name as the module kept them (`account`); the profile and the teacher's
  // week are read for what they add (the student's name, the subjects taught).
  const account = await callOperation(PLUGIN, "account", {});
  const roles = { student: account.roles?.includes("student") ?? false, teacher: account.roles?.includes("teacher") ?? false };
  const [profile, teaching] = await Promise.allSettled([roles.student ? callOperation(PLUGIN, "profile", {}) : null,
    roles.teacher ? callOperation(PLUGIN, "teacher-timetable", { date: today }) : null]);
  return { roles, account, profile: profile.value?.data, teaching: teaching.value?.data };
}

/** "Logged in as Jana Nováková (student)." — the profile's name, else the one the login gave. */
function whoText(roles, profile, account) {
  const words = [roles.student ? t("stag.roles.student") : null, roles.teacher ? t("stag.roles.teacher") : null].filter(Boolean);
  const name = [profile?.firstName, profile?.lastName].filter(Boolean).join(" ") || (account?.name !== account?.userName ? account?.name : "");
  if (name) return t("stag.loggedIn", { name, roles: list(words) });
  return t("account.loggedInRoles", { roles: list(words) });
}

/** Shows only the parts of the login's roles. */
function showRoleParts(roles) {
  for (const node of document.querySelectorAll(".student-only")) node.hidden = !roles.student;
  for (const node of document.querySelectorAll(".teacher-only")) node.hidden = !roles.teacher;
}

/** The subjects a note may be for: the student's, and those the person teaches this week. */
async function noteSubjects(roles, teaching) {
  const subjects = [];
  if (roles.student) {
    const read = await callOperation(PLUGIN, "subjects", {}).catch(() => ({ data: [] }));
    subjects.push(...read.data.map((item) => ({ subject: item.subject, name: item.name || item.subject })));
  }
  for (const event of teaching?.events ?? []) subjects.push({ subject: event.subject, name: event.subjectName || event.subject });
  return [...new Map(subjects.map((item) => [item.subject, item])).values()];
}

/** Reads the overview again (after a registration or a note changed what is due). */
async function refreshToday() {
  try {
    showToday(await callOperation(PLUGIN, "overview", {}), person.roles);
  } catch {
    // The part keeps what it showed; the action's own sentence says what failed.
  }
}

/** Logged out: the login forms, and `message` if there is one. */
function showLoggedOut(message = "") {
  $("signed-in").hidden = true;
  $("login-section").hidden = false;
  $("status").textContent = message;
  document.body.dataset.stag = "out";
}

/** Logged in: every part of the login's roles, read at once. */
async function showLoggedIn() {
  await readClock();
  let overview;
  try {
    overview = await callOperation(PLUGIN, "overview", {});
  } catch (error) {
    return isNotLoggedIn(error) ? showLoggedOut() : showLoggedOut(sentenceFor(error));
  }
  person.today = overview.data.date;
  const { roles, account, profile, teaching } = await findRoles(person.today);
  person.roles = roles;
  $("account-who").textContent = whoText(roles, profile, account);
  // An expired login still shows what was last read, and offers the login again above it.
  const expired = overview.reason === "ticket_expired";
  $("login-section").hidden = !expired;
  $("status").textContent = expired ? t("account.expired") : "";
  $("signed-in").hidden = false;
  showRoleParts(roles);
  showToday(overview, roles);
  setNoteSubjects(await noteSubjects(roles, teaching));
  await Promise.all([startTimetable(person.today, roles), roles.student ? showExams() : null, roles.student ? showResults() : null,
    roles.teacher ? showTeaching(person.today) : null, roles.teacher ? showTheses() : null, showNotes(), showReminders(),
    startCanteen(person.today)]);
  document.body.dataset.stag = "in";
}

async function start() {
  const me = await startPage({ status: $("status") });
  if (!me) return;
  bindLogin({ loggedIn: showLoggedIn, loggedOut: showLoggedOut });
  bindTimetable();
  bindTeaching();
  bindNotes(refreshToday);
  onExamsChanged(refreshToday);
  try {
    // IS/STAG names subjects in Czech or English: English for an English reader, Czech for the rest.
    await callOperation(PLUGIN, "language-set", { language: language() === "en" ? "en" : "cs" });
    await offerUniversities();
  } catch (error) {
    $("status").textContent = sentenceFor(error);
    document.body.dataset.ready = "true";
    return;
  }
  await showLoggedIn();
  document.body.dataset.ready = "true";
}

start();
