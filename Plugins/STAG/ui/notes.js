// Notes on the IS/STAG page (spec §5.1.6): the person's own notes, grouped by subject (those
// without one last), each with its text, when it is due, Change and Delete; a form adds one, for a
// subject of the person's or for none, and the same form changes one (Change fills it in). Notes are kept here across logging out of IS/STAG; they belong to
// the IS/STAG person who wrote them.

import { callOperation } from "/console/api.js";
import { clear, el } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { clearError } from "/console/errors.js";
import { date } from "/console/format.js";
import { $, PLUGIN, failure, refuse, sentenceFor } from "./common.js";

/** The subjects a note may be for, by code: their names, in the order the form offers them. */
let subjects = new Map();
/** What to do after a note was added or deleted (the overview lists the notes due soon). */
let afterChange = async () => {};
/** The note the form is changing, or null while it adds one. */
let editing = null;

/** "Due 20. 2. 2026, in 4 days", "due today", "2 days overdue"; empty for a note without a day. */
export function dueText(note) {
  if (note.daysRemaining == null || !note.day) return "";
  const days = note.daysRemaining, on = date(note.day);
  if (days === 0) return t("notes.dueToday", { date: on });
  return days > 0 ? t("notes.dueIn", { count: days, date: on }) : t("notes.overdue", { count: -days, date: on });
}

/** Offers `list` ([{subject, name}]) in the form, by name, after "no subject". */
export function setNoteSubjects(list) {
  subjects = new Map([...list].sort((a, b) => a.name.localeCompare(b.name)).map((item) => [item.subject, item.name]));
  const select = $("note-subject");
  clear(select);
  select.append(el("option", { value: "" }, t("notes.noSubject")),
    ...[...subjects].map(([code, name]) => el("option", { value: code }, t("notes.subjectOption", { name, code }))));
}

function noteItem(note) {
  const due = dueText(note);
  const item = el("li", { class: "note", "data-note": note.id },
    el("h4", {}, note.title),
    note.text ? el("p", { class: "note-text" }, note.text) : null,
    due ? el("p", { class: note.daysRemaining < 0 ? "due overdue" : "due" }, due) : null,
    el("div", { class: "actions" },
      el("button", { type: "button", class: "secondary change", "aria-label": t("notes.editNamed", { title: note.title }) }, t("notes.edit")),
      el("button", { type: "button", class: "secondary delete", "aria-label": t("notes.deleteNamed", { title: note.title }) }, t("notes.delete"))),
    el("p", { class: "error", role: "alert" }));
  item.querySelector("button.change").addEventListener("click", () => startChanging(note));
  item.querySelector("button.delete").addEventListener("click", () => deleteNote(note, item));
  return item;
}

/** The notes by subject: the form's subjects in its order, others by code, notes without a subject last. */
function groups(notes) {
  const bySubject = new Map();
  for (const note of notes) {
    const key = note.subject || "";
    if (!bySubject.has(key)) bySubject.set(key, []);
    bySubject.get(key).push(note);
  }
  const order = [...subjects.keys(), ...[...bySubject.keys()].filter((key) => key && !subjects.has(key)).sort(), ""];
  return order.filter((key) => bySubject.has(key)).map((key) => {
    const title = key ? t("notes.subjectOption", { name: subjects.get(key) ?? key, code: key }) : t("notes.noSubject");
    return el("section", { class: "note-group", "data-subject": key }, el("h3", {}, title), el("ul", { class: "plain" }, bySubject.get(key).map(noteItem)));
  });
}

/** Reads and draws the notes. */
export async function showNotes() {
  const box = $("notes");
  try {
    const notes = await callOperation(PLUGIN, "notes", {});
    clear(box);
    box.append(...(notes.length ? groups(notes) : [el("p", { class: "muted" }, t("notes.none"))]));
  } catch (error) {
    clear(box);
    box.append(failure(error));
  }
}

async function deleteNote(note, item) {
  const output = item.querySelector(".error");
  output.textContent = "";
  try {
    await callOperation(PLUGIN, "note-delete", { id: note.id });
  } catch (error) {
    output.textContent = sentenceFor(error);
    return;
  }
  if (editing?.id === note.id) stopChanging();  // nothing left to change
  // The list first, then the sentence: it is read out as the list already shows what it says.
  await showNotes();
  $("notes-status").textContent = t("notes.deleted", { title: note.title });
  await afterChange();
}

/**
 * The form's note: the title and text, and the subject and day only when chosen. A note being
 * changed always sends both: an empty one takes the subject or day away.
 */
function formNote() {
  const note = { title: $("note-title").value, text: $("note-text").value };
  if (editing) return { ...note, id: editing.id, subject: $("note-subject").value, day: $("note-day").value };
  if ($("note-subject").value) note.subject = $("note-subject").value;
  if ($("note-day").value) note.day = $("note-day").value;
  return note;
}

/** Fills the form with `note` to change it: its heading and button say so, and Cancel goes back to adding. */
function startChanging(note) {
  editing = note;
  const form = $("note-form");
  clearError({ form, output: $("note-error") });
  $("notes-status").textContent = "";
  if (note.subject && ![...$("note-subject").options].some((option) => option.value === note.subject)) {
    $("note-subject").append(el("option", { value: note.subject }, note.subject));  // a subject no longer the person's
  }
  $("note-subject").value = note.subject ?? "";
  $("note-title").value = note.title;
  $("note-text").value = note.text ?? "";
  $("note-day").value = note.day ?? "";
  $("note-form-heading").textContent = t("notes.editHeading", { title: note.title });
  $("note-submit").textContent = t("notes.save");
  $("note-cancel").hidden = false;
  form.scrollIntoView({ block: "nearest" });
  $("note-title").focus();
}

/** Back to adding a note: the form empty, its heading and button as they were. */
function stopChanging() {
  editing = null;
  $("note-form").reset();
  $("note-form-heading").textContent = t("notes.addHeading");
  $("note-submit").textContent = t("notes.add");
  $("note-cancel").hidden = true;
}

/** Binds the form (once); `changed` runs after a note was added, changed or deleted. */
export function bindNotes(changed) {
  afterChange = changed;
  $("note-cancel").addEventListener("click", () => {
    clearError({ form: $("note-form"), output: $("note-error") });
    stopChanging();
  });
  $("note-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    clearError({ form, output: $("note-error") });
    $("notes-status").textContent = "";
    const note = formNote();
    try {
      await callOperation(PLUGIN, "note-save", note);
    } catch (error) {
      refuse(form, $("note-error"), error);
      return;
    }
    const changing = editing != null;
    stopChanging();
    $("note-subject").value = note.subject ?? "";  // the next note is often for the same subject
    // The list first, then the sentence: it is read out as the list already shows what it says.
    await showNotes();
    $("notes-status").textContent = t(changing ? "notes.changed" : "notes.added", { title: note.title });
    await afterChange();
  });
}
