// The stress programme's page: consent first (the research text, then a checkbox), then today's
// dashboard, the diary (four levels with no neutral one, the level's question, notes once a record
// exists today, the history by day) and the four weeks with why a closed one is closed.
//
// The page's own words are in ui/messages/<lang>.json. The programme's texts (week names, the
// levels and their questions, the library, the research) are the module's content pack, in Czech,
// Slovak and English, in the participant's language setting: once the participant has consented,
// the page keeps that setting at the person's language (a pack without Slovak falls back to Czech
// in the module). The module's states and reason codes are mapped to sentences here.

import { request, callOperation, APIError } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { startPage } from "/console/page.js";
import { t, language } from "/console/i18n.js";
import { errorText, showError } from "/console/errors.js";
import { date, longDate, time, relative } from "/console/format.js";

const PLUGIN = "cz.tessera.stress";
const $ = (id) => document.getElementById(id);
let prompt = null;
let languageMatched = false;

/** The content pack's language for the person's: Slovak or English, else Czech. */
const contentLanguage = () => (["sk", "en"].includes(language()) ? language() : "cs");

/** Keeps the module's language setting at the person's language (it can be set once consented). */
async function matchLanguage() {
  if (languageMatched) return;
  const settings = await callOperation(PLUGIN, "settings-get", {});
  if (settings.language !== contentLanguage()) await callOperation(PLUGIN, "settings-set", { language: contentLanguage() });
  languageMatched = true;
}

/** The host's time (a virtual clock on a test deployment), or this browser's if not allowed to read it. */
async function hostNow() {
  try {
    const { now } = await request("GET", "/v1/clock");
    return now ? new Date(now) : new Date();
  } catch {
    return new Date();
  }
}

// MARK: The diary

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

async function refreshDiary() {
  prompt = await callOperation(PLUGIN, "diary-prompt", {});
  showPrompt(prompt.levels);
  $("note-form").hidden = !prompt.notesAllowed;
  const { days } = await callOperation(PLUGIN, "diary-list", {});
  clear($("history"));
  for (const day of days.slice(0, 7)) {
    const list = el("ul", {});
    for (const entry of day.entries) {
      const at = el("span", { class: "entry-time" }, time(entry.createdAt));
      list.append(entry.kind === "note"
        ? el("li", {}, at, " ", t("diary.note", { text: entry.text }))
        : el("li", {}, at, " ", el("strong", {}, levelLabel(entry.level)), " ", el("span", { class: "question" }, entry.question ?? ""), " ", entry.text));
    }
    $("history").append(el("h3", {}, longDate(day.day)), list);
  }
}

// MARK: The dashboard and the programme

function stepText(step, now) {
  switch (step.next) {
    case "entryQuestionnaires": return t("step.entryQuestionnaires");
    case "evaluation": return t("step.evaluation", { week: (step.evaluationOf ?? 0) + 1 });
    case "week": return t("step.week", { name: step.name });
    case "waiting": return t("step.waiting", { name: step.name, when: relative(step.opensAt, now) });
    case "exitQuestionnaires": return t("step.exitQuestionnaires");
    case "finished": return t("step.finished");
    case "ended": return t("step.ended");
    default: return "";
  }
}

function weekText(week, weeks, now) {
  if (week.state === "completed") return t("week.completed", { name: week.name });
  if (week.state === "open") return t("week.open", { name: week.name });
  switch (week.reason) {
    case "ENTRY_QUESTIONNAIRES_PENDING": return t("week.closedUntilEntry", { name: week.name });
    case "PREVIOUS_NOT_COMPLETED":
      return t("week.closedUntilPrevious", { name: week.name, previous: weeks[Number(week.reasonDetail)]?.name ?? "" });
    case "WAITING_UNTIL": return t("week.closedUntil", { name: week.name, when: relative(week.reasonDetail, now) });
    case "STUDY_ENDED": return t("week.closedStudyEnded", { name: week.name });
    default: return t("week.closed", { name: week.name });
  }
}

async function refreshDashboard(now) {
  const dashboard = await callOperation(PLUGIN, "dashboard", {});
  $("next-step").textContent = stepText(dashboard.programme, now);
  $("days-left").textContent = dashboard.daysLeft == null || !dashboard.lastDay ? ""
    : t("dashboard.daysLeft", { count: dashboard.daysLeft, lastDay: date(dashboard.lastDay) });
  $("library-suggestion").textContent = dashboard.library ? t("dashboard.read", { title: dashboard.library.title }) : "";
  const { weeks } = await callOperation(PLUGIN, "programme", {});
  clear($("weeks"));
  for (const week of weeks) $("weeks").append(el("li", { class: `week ${week.state}` }, weekText(week, weeks, now)));
}

async function refresh() {
  const account = await callOperation(PLUGIN, "account-state", {});
  const active = account.state === "active";
  $("consent-section").hidden = account.state !== "registered";
  for (const id of ["dashboard-section", "diary-section", "programme-section"]) $(id).hidden = !active;
  if (account.state === "revoked") $("status").textContent = t("account.revoked");
  if (account.state === "registered") {
    const research = await callOperation(PLUGIN, "about-research", {});
    clear($("consent-text"));
    // The research texts are the content pack's own HTML: shown as text, never parsed as HTML.
    for (const section of research.subsections) $("consent-text").append(el("h3", {}, section.name), el("p", {}, section.text.replace(/<[^>]*>/g, "")));
  }
  if (active) {
    await matchLanguage();
    await refreshDashboard(await hostNow());
    await refreshDiary();
  }
  document.body.dataset.ready = "true";
}

// MARK: Forms

/**
 * Sends `form` with `action`; a refusal is shown as a sentence in `output`, next to the form, and
 * the field at fault is marked. After a success the page is drawn again and `done` is said.
 */
function submit(form, output, done, action) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    $(output).textContent = "";
    $("status").textContent = "";
    try {
      await action(new FormData(form));
    } catch (error) {
      showError(error, { form, output: $(output) });
      return;
    }
    for (const control of form.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
    form.reset();
    document.body.dataset.ready = "false";
    try {
      await refresh();
      $("status").textContent = t(done);
    } catch (error) {
      $("status").textContent = errorText(error);
      document.body.dataset.ready = "true";
    }
  });
}

async function start() {
  const me = await startPage({ status: $("status") });
  if (!me) return;
  submit($("consent-form"), "consent-error", "consent.done", async () => {
    const { consentVersion } = await callOperation(PLUGIN, "about-research", {});
    await callOperation(PLUGIN, "consent-give", { consentVersion, accepted: $("consent-accept").checked });
  });
  submit($("record-form"), "record-error", "diary.saved", async (form) => {
    const level = Number(form.get("level"));
    const chosen = prompt?.levels.find((l) => l.level === level);
    // No level chosen: the same refusal the module gives for a level out of range.
    if (!chosen) throw new APIError(400, "invalid_input", "no level chosen", "$.level");
    await callOperation(PLUGIN, "diary-record", { level, questionId: chosen.questionId, text: form.get("text") });
  });
  submit($("note-form"), "note-error", "diary.noteAdded", async (form) => {
    await callOperation(PLUGIN, "diary-note", { text: form.get("text") });
  });
  try {
    await refresh();
  } catch (error) {
    $("status").textContent = errorText(error);
  }
}

start();
