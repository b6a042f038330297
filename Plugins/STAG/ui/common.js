// What every script of the IS/STAG page shares: the module's id, IS/STAG's days and times as the
// person reads them, the module's refusals as sentences, and the note that a part shows what was
// last read because IS/STAG could not be reached (docs/stag.md, "The page").

import { APIError, request } from "/console/api.js";
import { el } from "/console/dom.js";
import { errorText, reasonCode, showError } from "/console/errors.js";
import { has, language, t } from "/console/i18n.js";
import { dateTime, relative, time } from "/console/format.js";

export const PLUGIN = "cz.tessera.stag";
export const $ = (id) => document.getElementById(id);

// ---- Days and times ----

/** The host's time, as last read by `readClock` (a virtual deployment's clock is not the browser's). */
export const clock = { now: new Date() };

/** Reads the host's clock (GET /v1/clock), against which deadlines are past or ahead. */
export async function readClock() {
  try {
    clock.now = new Date((await request("GET", "/v1/clock")).now);
  } catch {
    clock.now = new Date();
  }
  return clock.now;
}

// IS/STAG's times are the university's wall clock (Europe/Prague): a class is "09:20" on a day,
// with no zone at all. An exam's start comes with its offset, but is shown on the same wall clock,
// so that a class and an exam never disagree about what "9:00" means for a student abroad.

/** A Date holding a calendar day ("2026-02-16") and a time of day ("09:20"), on the wall clock. */
export function wallClock(day, hhmm = "00:00") {
  const [year, month, date] = day.split("-").map(Number);
  const [hours, minutes] = hhmm.split(":").map(Number);
  return new Date(year, month - 1, date, hours || 0, minutes || 0);
}

/** An IS/STAG moment ("2026-01-20T09:00:00+01:00") as a Date on the university's wall clock. */
export function universityTime(text) {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(String(text || ""));
  return match ? wallClock(match[1], match[2]) : new Date(text);
}

/** "25. 2. 2026 9:00": an IS/STAG moment as the person reads it. */
export function when(text) {
  return dateTime(universityTime(text));
}

/** "9:20–11:00": a class's time, in the person's way of writing times. */
export function timeSpan(day, start, end) {
  const from = time(wallClock(day, start));
  return end ? t("time.span", { from, to: time(wallClock(day, end)) }) : from;
}

/** The day `count` days after `day` ("2026-02-16" + 1 = "2026-02-17"), without a zone's DST hour. */
export function addDays(day, count) {
  const [year, month, date] = day.split("-").map(Number);
  return new Date(Date.UTC(year, month - 1, date + count)).toISOString().slice(0, 10);
}

/** "pondělí 16. 2." / "Monday, 2/16": a day of a week, short enough for a phone. */
export function weekdayDate(day) {
  return new Intl.DateTimeFormat(language(), { weekday: "long", day: "numeric", month: "numeric" }).format(wallClock(day));
}

// ---- Words for IS/STAG's codes ----

/** The message `prefix.value` where the catalogue has one, else `fallback` (IS/STAG's own word). */
export function named(prefix, value, fallback = value) {
  const key = `${prefix}.${value}`;
  return value != null && has(key) ? t(key) : String(fallback ?? "");
}

/** IS/STAG's short codes of the common kinds of class, and the page's name for each. */
const CLASS_KINDS = { "Př": "lecture", "Cv": "practical", "Se": "seminar" };

/** "lecture", "practical", "seminar", or "other" (a kind a university named itself). */
export function classKind(event) {
  return CLASS_KINDS[event.kindShort] ?? "other";
}

/** The kind of a class in the reader's words; a kind a university added keeps IS/STAG's name. */
export function classKindName(event) {
  const kind = classKind(event);
  return kind === "other" ? event.kind || event.kindShort || "" : t(`kinds.${kind}`);
}

/** A subject's name and, quieter, its code ("Programování KMI/PRG"); the code alone where IS/STAG gave no name. */
export function subjectLabel(name, code) {
  return name && name !== code ? [name, " ", el("span", { class: "muted" }, code)] : [code];
}

/** IS/STAG names a term's kind in Czech ("Zkouška", "Zápočet"): the reader's word for the usual two. */
const TERM_KINDS = { "zkouška": "exam", "zápočet": "credit" };

/** An exam term's kind in the reader's words, or IS/STAG's own name for another kind. */
export function termKind(term) {
  return named("exams.kinds", TERM_KINDS[String(term.kind || "").toLowerCase()], term.kind);
}

/** "2 (velmi dobře)": a grade with its word where it has one (letters A–F stand for themselves). */
export function gradeText(grade) {
  const key = `grades.words.${grade}`;
  return has(key) ? t("grades.withWord", { grade, word: t(key) }) : String(grade);
}

// ---- Refusals ----
//
// The module gives its refusals a reason code, as every module does (reason "term_full" with the
// message "Termín je již plně obsazen.", "not_logged_in" with "log in first …"): the page says each
// in a sentence of the person's language (`refusals.<reason>`, which may repeat IS/STAG's own words
// as {reason}); anything else is the console's sentence for its code.

/** The module's reason code, and its message; or null when the page has no sentence for it. */
function refusalReason(error) {
  if (!(error instanceof APIError)) return null;
  const code = reasonCode(error);
  if (!code || !has(`refusals.${code}`)) return null;
  return { code, rest: error.message || "" };
}

/** The sentence for a failed call. */
export function sentenceFor(error, { form } = {}) {
  const reason = refusalReason(error);
  if (reason) return t(`refusals.${reason.code}`, { reason: reason.rest });
  return errorText(error, { form });
}

/** Shows why `form`'s input was refused in `output`, the field at fault marked and focused. */
export function refuse(form, output, error) {
  showError(error, { form, output });
  output.textContent = sentenceFor(error, { form });
}

/** Whether a failure means nobody is logged in to IS/STAG (or not in the role the call needs). */
export function isNotLoggedIn(error) {
  return refusalReason(error)?.code === "not_logged_in";
}

/** A failure's sentence as a paragraph, for a part of the page that could not be loaded. */
export function failure(error) {
  return el("p", { class: "error" }, sentenceFor(error));
}

/**
 * The note above a part read from the cache because IS/STAG could not be reached (or no longer
 * takes the login): how old it is, in words. Null for a fresh read.
 */
export function staleNote(read) {
  if (!read?.stale) return null;
  const ago = relative(new Date(Date.now() - (read.ageSeconds ?? 0) * 1000));
  return el("p", { class: "stale" }, t(read.reason === "ticket_expired" ? "stale.expired" : "stale.unavailable", { ago }));
}
