// The programme on the stress programme's page: the next step as a sentence (what is open now,
// or when the next week opens: "Relaxácia sa otvorí v nedeľu 8. marca o 0:00 (o 6 dní)"), the
// work of that step below it (the entry questionnaires, the rating of the week before, the open
// week's form, the exit questionnaires), and the four weeks with what is done, why a closed one
// is closed, and each completed week's summary. The module's states and reason codes become
// sentences here; the weeks' names, questions and next steps are the content pack's.

import { callOperation } from "/console/api.js";
import { t } from "/console/i18n.js";
import { errorText } from "/console/errors.js";
import { date, duration } from "/console/format.js";
import { PLUGIN, $, el, clear, moment, fromNow, choiceField, scaleChoices, textField, chosenNumber, whenSubmitted,
         programmeScales } from "./common.js";
import { questionnaireForm, exitEvaluationForm } from "./questionnaires.js";
import { relaxationPanel, stopTick } from "./relaxation.js";

// The weeks whose questions are answered in words, with the operations that save and complete them.
const TEXT_WEEKS = { 0: { save: "goal-save", complete: "goal-complete" }, 2: { save: "time-management-save", complete: "time-management-complete" } };

// MARK: The next step

/** The sentence for the dashboard's next step. */
export function stepText(step) {
  switch (step.next) {
    case "entryQuestionnaires": return t("step.entryQuestionnaires");
    case "evaluation": return t("step.evaluation", { week: (step.evaluationOf ?? 0) + 1 });
    case "week": return t("step.week", { name: step.name });
    case "waiting": return step.opensAt ? t("step.waiting", { name: step.name, when: moment(step.opensAt), relative: fromNow(step.opensAt) }) : "";
    case "exitQuestionnaires": return t("step.exitQuestionnaires");
    case "finished": return t("step.finished");
    case "ended": return t("step.ended");
    default: return "";
  }
}

/** Draws the work of the next step into #step. */
export async function showStep(step, overview) {
  stopTick();
  const parts = await stepParts(step, overview);
  clear($("step"));
  $("step").append(...parts);
}

async function stepParts(step, overview) {
  switch (step.next) {
    case "entryQuestionnaires":
      return [await questionnaireForm("entry"), await questionnaireForm("screen")];
    case "evaluation":
      return [await evaluationForm(overview.weeks[step.evaluationOf])];
    case "week":
      return weekParts(step.order);
    case "waiting":
      return [el("p", { class: "help" }, t("step.meanwhile"))];
    case "exitQuestionnaires":
      return [await questionnaireForm("exit-retest"),
              overview.exit.evaluation ? el("p", { class: "done" }, t("exit.sent")) : await exitEvaluationForm()];
    default:
      return [];
  }
}

/** The open week: its name and introduction, and its form or panel. */
async function weekParts(order) {
  const view = await callOperation(PLUGIN, "programme-week", { order });
  if (view.view !== "content") return [];
  const { content } = view;
  const heading = [el("h3", {}, t("week.heading", { week: order + 1, name: content.name })), el("p", {}, content.intro)];
  if (order === 1) return [...heading, await relaxationPanel(content)];
  if (order === 3) return [...heading, await meaningForm(content)];
  return [...heading, textWeekForm(order, content)];
}

// MARK: Rating a week

/** The rating of `week` (how feasible, how hard, a note), asked when the next week has opened. */
async function evaluationForm(week) {
  const scale = (await programmeScales()).evaluation;
  const ends = { low: scale[0], high: scale[1] };
  const form = el("form", { id: "evaluation-form", novalidate: true },
    el("h3", {}, t("evaluation.heading", { week: week.order + 1, name: week.name })),
    choiceField({ name: "feasibility", legend: t("evaluation.feasibility"), hint: t("evaluation.feasibilityHint", ends), choices: scaleChoices(scale) }),
    choiceField({ name: "difficulty", legend: t("evaluation.difficulty"), hint: t("evaluation.difficultyHint", ends), choices: scaleChoices(scale) }),
    textField({ id: "evaluation-note", name: "note", label: t("evaluation.note") }),
    el("button", { type: "submit" }, t("evaluation.submit")));
  whenSubmitted(form, async (data) => {
    const input = { order: week.order, feasibility: chosenNumber(form, "feasibility"), difficulty: chosenNumber(form, "difficulty") };
    if (data.get("note").trim()) input.note = data.get("note");
    await callOperation(PLUGIN, "week-evaluate", input);
    return { news: [t("evaluation.thanks", { week: week.order + 1 })] };
  });
  return form;
}

// MARK: Weeks 1 and 3: questions answered in words

/**
 * Week 1's goal or week 3's time management: each answer is kept as a draft as soon as it is
 * written (so nothing is lost on another device or a reload), and the week is completed with all.
 */
function textWeekForm(order, content) {
  const ops = TEXT_WEEKS[order];
  const form = el("form", { id: "week-form", novalidate: true });
  for (const question of content.questions) {
    const field = textField({ id: `week-answer-${question.id}`, name: `answer-${question.id}`, label: question.text,
                              value: question.draft, multiline: question.multiline });
    const control = field.querySelector("input, textarea");
    control.addEventListener("change", () => saveDraft(form, ops.save, question.id, control));
    field.append(el("p", { class: "help saved", hidden: true }, t("week.draftSaved")));
    form.append(field);
  }
  form.append(el("p", { class: "help" }, t("week.draftsKept")), el("button", { type: "submit" }, t("week.complete")));
  whenSubmitted(form, async (data) => {
    const answers = content.questions.map((question) => ({ questionId: question.id, text: data.get(`answer-${question.id}`) }));
    const completion = await callOperation(PLUGIN, ops.complete, { answers });
    return { news: [completion.goal ? t("goal.yours", { goal: completion.goal }) : null, completion.nextSteps] };
  });
  return form;
}

/** Keeps one answer as a draft and says so under it; a refusal is said there instead. */
async function saveDraft(form, operation, questionId, control) {
  const field = control.closest(".field");
  const output = field.querySelector("[data-error-for]"), saved = field.querySelector(".saved");
  output.textContent = "";
  saved.hidden = true;
  control.removeAttribute("aria-invalid");
  try {
    await callOperation(PLUGIN, operation, { questionId, text: control.value });
    saved.hidden = false;
  } catch (error) {
    output.textContent = errorText(error, { form });
    control.setAttribute("aria-invalid", "true");
  }
}

// MARK: Week 4: searching for meaning

/** Week 4: one stressful event, what good it brought, and every statement on the 1–7 scale. */
async function meaningForm(content) {
  const ends = { low: content.scale[0], high: content.scale[1] };
  const form = el("form", { id: "meaning-form", novalidate: true },
    textField({ id: "meaning-event", name: "stressEvent", label: t("meaning.stressEvent"), required: true }),
    textField({ id: "meaning-positives", name: "positives", label: t("meaning.positives"), required: true }),
    el("p", { class: "help" }, t("meaning.scaleHint", ends)));
  for (const question of content.questions) {
    form.append(choiceField({ name: `meaning-${question.id}`, legend: question.text, choices: scaleChoices(content.scale) }));
  }
  form.append(el("button", { type: "submit" }, t("week.complete")));
  whenSubmitted(form, async (data) => {
    const results = content.questions.map((q) => ({ questionId: q.id, answer: chosenNumber(form, `meaning-${q.id}`) }))
      .filter((result) => result.answer !== undefined);
    const completion = await callOperation(PLUGIN, "meaning-complete", { stressEvent: data.get("stressEvent"), positives: data.get("positives"), results });
    return { news: [completion.nextSteps] };
  });
  return form;
}

// MARK: The four weeks

/** One week's state as a sentence. */
function weekText(week, weeks) {
  if (week.state === "completed") return t(week.evaluated ? "week.completedRated" : "week.completed", { name: week.name, date: date(week.completedAt) });
  if (week.state === "open") return t("week.open", { name: week.name });
  switch (week.reason) {
    case "entry_questionnaires_pending": return t("week.closedUntilEntry", { name: week.name });
    case "previous_not_completed":
      return t("week.closedUntilPrevious", { name: week.name, previous: weeks[Number(week.reasonDetail)]?.name ?? "" });
    case "waiting_until": return t("week.closedUntil", { name: week.name, when: moment(week.reasonDetail), relative: fromNow(week.reasonDetail) });
    case "study_ended": return t("week.closedStudyEnded", { name: week.name });
    default: return t("week.closed", { name: week.name });
  }
}

/** The four weeks, each with its state; a completed one with its summary, week 2 with practice. */
export async function showWeeks(overview) {
  const items = [];
  for (const week of overview.weeks) {
    const item = el("li", { class: `week ${week.state}` }, el("span", {}, weekText(week, overview.weeks)));
    if (week.state === "completed" && (week.hasSummary || week.order === 1)) item.append(summaryDetails(week));
    // Relaxation stays open for practice once completed (the week is repeatable).
    if (week.order === 1 && week.state === "completed") {
      const practice = await practiceDetails();
      if (practice) item.append(practice);
    }
    items.push(item);
  }
  clear($("weeks"));
  $("weeks").append(...items);
}

/** "Show the summary": read when opened (a summary is only for the curious). */
function summaryDetails(week) {
  const body = el("div", { class: "summary" });
  const details = el("details", {}, el("summary", {}, t("summary.show", { name: week.name })), body);
  details.addEventListener("toggle", async () => {
    if (!details.open || body.childElementCount) return;
    body.append(...summaryParts(await callOperation(PLUGIN, "week-summary", { order: week.order })));
  });
  return details;
}

/** A summary's lines: the answers of weeks 1 and 3, the minutes relaxed, week 4's scores. */
function summaryParts(summary) {
  const parts = [];
  if (summary.goal) parts.push(el("p", {}, t("goal.yours", { goal: summary.goal })));
  if (summary.answers) {
    const list = el("dl", {});
    for (const answer of summary.answers) list.append(el("dt", {}, answer.question), el("dd", {}, answer.answer));
    parts.push(list);
  }
  if (summary.order === 1) {
    if (summary.relaxationDurationInSeconds != null) parts.push(el("p", {}, t("summary.relaxed", { duration: duration(summary.relaxationDurationInSeconds) })));
    parts.push(el("p", {}, t("summary.practice", { count: summary.practiceSessions, duration: duration(summary.practiceSeconds) })));
  }
  if (summary.order === 3) {
    parts.push(el("dl", {}, el("dt", {}, t("meaning.stressEvent")), el("dd", {}, summary.stressEvent),
                            el("dt", {}, t("meaning.positives")), el("dd", {}, summary.positives)),
               el("p", {}, t("summary.meaningScores", { present: summary.scoreOfPresent, searching: summary.scoreOfSearching })));
  }
  return parts;
}

/** Relaxing again after week 2: the techniques and the stopwatch, open while a session runs. */
async function practiceDetails() {
  const view = await callOperation(PLUGIN, "programme-week", { order: 1 });
  if (view.view !== "content") return null;
  const panel = await relaxationPanel(view.content, { practice: true });
  const running = Boolean(panel.querySelector("#relax-stop"));
  return el("details", { open: running }, el("summary", {}, t("relax.again")), panel);
}
