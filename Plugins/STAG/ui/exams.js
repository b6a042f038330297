// Exam terms on the IS/STAG page (spec §5.2.1–2): the terms still ahead, soonest first, each with
// its kind, time, room, examiner, seats and deadlines, its status for this student in a sentence
// (registered, open, or why not: full, not open yet, closed, IS/STAG's own reason), and a button
// to register or unregister where that can be done. A refusal is said under its term; a success
// above the list, which is then read again (the seats and the status change).

import { callOperation } from "/console/api.js";
import { clear, el } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { $, PLUGIN, clock, failure, sentenceFor, staleNote, subjectLabel, termKind, when } from "./common.js";

/** What to do after a registration changed (the overview's exams and deadlines change too). */
let afterChange = async () => {};

/** Whether the IS/STAG moment `text` is already past on the host's clock. */
function isPast(text) {
  return Boolean(text) && new Date(text) < clock.now;
}

/** Why a registered student cannot unregister: the deadline, or IS/STAG's own reason. */
function lockedText(term) {
  if (isPast(term.unregisterBy)) return t("exams.unregisterClosed", { at: when(term.unregisterBy) });
  // IS/STAG's own sentence (`stagReason`), never the module's English words for programs (`reason`).
  return term.stagReason ? t("exams.stagSaysNo", { reason: term.stagReason }) : t("exams.cannotUnregister");
}

/** The term's status for this student, in a sentence. */
function statusText(term) {
  if (term.status === "registered") return term.canUnregister ? t("exams.registered") : `${t("exams.registered")} ${lockedText(term)}`;
  if (term.status === "open") return t("exams.open");
  switch (term.reasonCode) {
    case "not_open_yet": return t("exams.notOpenYet", { at: when(term.registerFrom) });
    case "registration_closed": return t("exams.registrationClosed", { at: when(term.registerBy) });
    case "full": return t("exams.full");
    case "past": return t("exams.past");
    default: return term.stagReason ? t("exams.stagSaysNo", { reason: term.stagReason }) : t("exams.closed");
  }
}

/** The deadline that matters now: registering for an open term, unregistering from one's own. */
function deadlineText(term) {
  if (term.status === "open" && term.registerBy) return t("exams.registerBy", { at: when(term.registerBy) });
  if (term.status === "registered" && term.canUnregister && term.unregisterBy) return t("exams.unregisterBy", { at: when(term.unregisterBy) });
  return null;
}

/** Register (open term) or Unregister (one's own, while allowed), or no button. */
function actionButton(term) {
  const params = { name: term.subjectName, at: when(term.start) };
  if (term.status === "open") {
    return el("button", { type: "button", class: "register", "aria-label": t("exams.registerFor", params) }, t("exams.register"));
  }
  if (term.status === "registered" && term.canUnregister) {
    return el("button", { type: "button", class: "unregister secondary", "aria-label": t("exams.unregisterFrom", params) }, t("exams.unregister"));
  }
  return null;
}

function termItem(term) {
  const place = term.room ? "exams.whenInRoom" : "exams.when";
  const item = el("li", { class: `term status-${term.status}`, "data-term": term.termId },
    el("h3", {}, subjectLabel(term.subjectName, term.subject)),
    el("p", {}, t(place, { kind: termKind(term), at: when(term.start), room: term.room })),
    term.examiner ? el("p", {}, t("exams.examiner", { name: term.examiner })) : null,
    term.capacity != null ? el("p", {}, t("exams.seats", { occupied: term.occupied ?? 0, capacity: term.capacity })) : null,
    term.note ? el("p", { class: "muted" }, term.note) : null,
    el("p", { class: "term-status" }, statusText(term)),
    deadlineText(term) ? el("p", { class: "help" }, deadlineText(term)) : null,
    actionButton(term),
    el("p", { class: "error", role: "alert" }));
  item.querySelector("button")?.addEventListener("click", () => enrol(term, term.status === "open", item));
  return item;
}

/** Registers for `term` (or unregisters), says so, and reads the terms again; a refusal is said under the term. */
async function enrol(term, register, item) {
  const button = item.querySelector("button");
  const output = item.querySelector(".error");
  output.textContent = "";
  $("exams-status").textContent = "";
  button.disabled = true;
  try {
    await callOperation(PLUGIN, register ? "exam-register" : "exam-unregister", { termId: term.termId });
  } catch (error) {
    output.textContent = sentenceFor(error);
    button.disabled = false;
    return;
  }
  $("exams-status").textContent = t(register ? "exams.registeredFor" : "exams.unregisteredFrom", { name: term.subjectName, at: when(term.start) });
  await showExams();
  document.querySelector(`[data-term="${term.termId}"] button`)?.focus();
  await afterChange();
}

/** Reads and draws the terms still ahead. */
export async function showExams() {
  const box = $("exams");
  try {
    const read = await callOperation(PLUGIN, "exams", {});
    const terms = read.data.filter((term) => term.reasonCode !== "past")
      .sort((a, b) => new Date(a.start) - new Date(b.start));
    clear(box);
    box.append(...[staleNote(read)].filter(Boolean),
      terms.length ? el("ul", { class: "terms plain" }, terms.map(termItem)) : el("p", { class: "muted" }, t("exams.none")));
  } catch (error) {
    clear(box);
    box.append(failure(error));
  }
}

/** Sets what runs after a registration changed. */
export function onExamsChanged(action) {
  afterChange = action;
}
