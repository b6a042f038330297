// The diary on the stress programme's page: four levels with no neutral one (outlined chips, not
// coloured: red reads as anger, D5), the chosen level's question, notes once a record exists
// today, and the last seven days. A record's or a note's text can be edited; a note can be
// deleted, a record cannot (the module's rule, C1).

import { callOperation, APIError } from "/console/api.js";
import { t } from "/console/i18n.js";
import { longDate, time } from "/console/format.js";
import { PLUGIN, $, el, clear, page, whenSubmitted, refuse } from "./common.js";

let prompt = null;

function levelLabel(level) {
  return prompt?.levels.find((l) => l.level === level)?.label ?? t("diary.level", { level });
}

function showPrompt(levels) {
  const box = $("levels");
  for (const old of box.querySelectorAll("label")) old.remove();
  $("question").textContent = t("diary.chooseFirst");
  for (const level of levels) {
    const input = el("input", { type: "radio", name: "level", value: String(level.level), required: "" });
    input.addEventListener("change", () => { $("question").textContent = level.question; });
    box.append(el("label", {}, input, el("span", {}, level.label)));
  }
}

/** Today's prompt, whether a note may be added, and the last seven days. */
export async function showDiary() {
  prompt = await callOperation(PLUGIN, "diary-prompt", {});
  showPrompt(prompt.levels);
  $("note-form").hidden = !prompt.notesAllowed;
  const { days } = await callOperation(PLUGIN, "diary-list", {});
  clear($("history"));
  for (const day of days.slice(0, 7)) {
    const list = el("ul", {});
    for (const entry of day.entries) list.append(entryItem(entry));
    $("history").append(el("h3", {}, longDate(day.day)), list);
  }
}

/** One record or note, with its Edit button. */
function entryItem(entry) {
  const at = el("span", { class: "entry-time" }, time(entry.createdAt));
  const item = entry.kind === "note"
    ? el("li", {}, at, " ", t("diary.note", { text: entry.text }))
    : el("li", {}, at, " ", el("strong", {}, levelLabel(entry.level)), " ", el("span", { class: "question" }, entry.question ?? ""), " ", entry.text);
  const edit = el("button", { type: "button", class: "link-button", "aria-expanded": "false" }, t("diary.edit"));
  edit.addEventListener("click", () => {
    if (item.querySelector("form")) return;
    edit.setAttribute("aria-expanded", "true");
    item.append(editForm(entry));
    item.querySelector("textarea").focus();
  });
  item.append(" ", edit);
  return item;
}

/** The edit form of one entry: its text; a note also has Delete. */
function editForm(entry) {
  const id = `edit-${entry.id}`;
  const area = el("textarea", { id, name: "text", rows: 2, maxlength: 4000, "aria-label": t("diary.editLabel") });
  area.value = entry.text;
  const form = el("form", { class: "edit-entry", novalidate: true }, area, el("button", { type: "submit" }, t("diary.save")));
  whenSubmitted(form, async (data) => {
    await callOperation(PLUGIN, "diary-edit", { id: entry.id, text: data.get("text") });
    return { status: t("diary.edited") };
  });
  if (entry.kind === "note") {
    const remove = el("button", { type: "button", class: "secondary" }, t("diary.deleteNote"));
    // The button is the confirmation the module asks for: the person pressed Delete on this note.
    remove.addEventListener("click", async () => {
      try {
        await callOperation(PLUGIN, "diary-note-delete", { id: entry.id, confirm: true });
      } catch (error) {
        refuse(form, error);
        return;
      }
      await page.redraw({ status: t("diary.noteDeleted") });
    });
    form.append(" ", remove);
  }
  return form;
}

/** Binds the record form and the note form (they are in the page's HTML). */
export function bindDiaryForms() {
  whenSubmitted($("record-form"), async (form) => {
    const level = Number(form.get("level"));
    const chosen = prompt?.levels.find((l) => l.level === level);
    // No level chosen: the same refusal the module gives for a level out of range.
    if (!chosen) throw new APIError(400, "invalid_input", "no level chosen", "$.level");
    await callOperation(PLUGIN, "diary-record", { level, questionId: chosen.questionId, text: form.get("text") });
    $("record-form").reset();
    return { status: t("diary.saved") };
  });
  whenSubmitted($("note-form"), async (form) => {
    await callOperation(PLUGIN, "diary-note", { text: form.get("text") });
    $("note-form").reset();
    return { status: t("diary.noteAdded") };
  });
}
