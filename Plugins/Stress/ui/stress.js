// The stress programme's page: consent first (the research text, then a checkbox), then today's
// dashboard, the diary (four levels with no neutral one, the level's question, notes once a record
// exists today, the history by day) and the four weeks with why a closed one is closed. It calls
// the module through the console's API client with the token the console keeps for this tab.

import { token, callOperation, APIError } from "/console/api.js";
import { el, clear } from "/console/dom.js";

const PLUGIN = "cz.tessera.stress";
const $ = (id) => document.getElementById(id);
let prompt = null;

const STEPS = {
  entryQuestionnaires: "Fill in the two entry questionnaires to open week 1.",
  evaluation: "Rate the previous week to go on.",
  week: "A week is open.",
  waiting: "The next week opens soon.",
  exitQuestionnaires: "Fill in the two exit questionnaires.",
  finished: "You have finished the programme.",
  ended: "The study has ended.",
};
const REASONS = {
  ENTRY_QUESTIONNAIRES_PENDING: "after the entry questionnaires",
  PREVIOUS_NOT_COMPLETED: "after the previous week",
  WAITING_UNTIL: "opens",
  STUDY_ENDED: "the study has ended",
};

function showPrompt(levels) {
  const box = $("levels");
  for (const old of box.querySelectorAll("label")) old.remove();
  for (const level of levels) {
    const input = el("input", { type: "radio", name: "level", value: String(level.level), required: "" });
    input.addEventListener("change", () => { $("question").textContent = level.question; });
    box.append(el("label", {}, input, el("span", {}, ` ${level.label}`)));
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
      const text = entry.kind === "note" ? `Note: ${entry.text}` : `Level ${entry.level} — ${entry.question} ${entry.text}`;
      list.append(el("li", {}, text));
    }
    $("history").append(el("h3", {}, day.day), list);
  }
}

async function refreshDashboard() {
  const dashboard = await callOperation(PLUGIN, "dashboard", {});
  const step = dashboard.programme;
  $("next-step").textContent = (step.name ? `${step.name}: ` : "") + (STEPS[step.next] ?? step.next);
  $("days-left").textContent = dashboard.daysLeft == null ? "" : `${dashboard.daysLeft} days left until ${dashboard.lastDay}.`;
  $("library-suggestion").textContent = dashboard.library ? `Read today: ${dashboard.library.title}` : "";
  const { weeks } = await callOperation(PLUGIN, "programme", {});
  clear($("weeks"));
  for (const week of weeks) {
    const why = week.reason ? ` — ${REASONS[week.reason] ?? week.reason}${week.reason === "WAITING_UNTIL" ? ` ${new Date(week.reasonDetail).toLocaleString()}` : ""}` : "";
    $("weeks").append(el("li", { class: `week ${week.state}` }, `${week.name}: ${week.state}${why}`));
  }
}

async function refresh() {
  const account = await callOperation(PLUGIN, "account-state", {});
  const active = account.state === "active";
  $("consent-section").hidden = account.state !== "registered";
  for (const id of ["dashboard-section", "diary-section", "programme-section"]) $(id).hidden = !active;
  if (account.state === "revoked") $("status").textContent = "This account was cancelled and its data deleted.";
  if (account.state === "registered") {
    const research = await callOperation(PLUGIN, "about-research", {});
    clear($("consent-text"));
    // The research texts are the content pack's own HTML: shown as text, never parsed as HTML.
    for (const section of research.subsections) $("consent-text").append(el("h3", {}, section.name), el("p", {}, section.text.replace(/<[^>]*>/g, "")));
  }
  if (active) { await refreshDashboard(); await refreshDiary(); }
  document.body.dataset.ready = "true";
}

async function submit(form, errorBox, action) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    $(errorBox).textContent = "";
    try {
      await action(new FormData(form));
      form.reset();
      document.body.dataset.ready = "false";
      await refresh();
    } catch (error) {
      $(errorBox).textContent = error instanceof APIError ? error.message : String(error);
    }
  });
}

async function start() {
  if (!token()) {
    $("status").append("Sign in on the ", el("a", { href: "/" }, "Tessera console"), " first; this page uses the same token.");
    return;
  }
  submit($("consent-form"), "status", async () => {
    const { consentVersion } = await callOperation(PLUGIN, "about-research", {});
    await callOperation(PLUGIN, "consent-give", { consentVersion, accepted: $("consent-accept").checked });
  });
  submit($("record-form"), "record-error", async (form) => {
    const level = Number(form.get("level"));
    const chosen = prompt.levels.find((l) => l.level === level);
    await callOperation(PLUGIN, "diary-record", { level, questionId: chosen.questionId, text: form.get("text") });
    $("status").textContent = "Saved.";
  });
  submit($("note-form"), "note-error", async (form) => {
    await callOperation(PLUGIN, "diary-note", { text: form.get("text") });
    $("status").textContent = "Note added.";
  });
  try { await refresh(); } catch (error) { $("status").textContent = `Could not load: ${error.message}`; }
}

start();
