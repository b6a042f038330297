// The questionnaires on the stress programme's page: the two entry ones before week 1 (the
// perceived-stress test on its 0–4 scale, and the screening questions with their options), the
// same test again at the end, and the app's evaluation. Their titles and questions are the content
// pack's, in the participant's language; each is answered whole and once (the module refuses a
// second one), so a form that was sent is shown as sent instead.

import { callOperation } from "/console/api.js";
import { t } from "/console/i18n.js";
import { PLUGIN, el, choiceField, scaleChoices, textField, chosenNumber, whenSubmitted, programmeScales } from "./common.js";

/** The form of questionnaire `kind` (`entry`, `screen`, `exit-retest`), or a line saying it was sent. */
export async function questionnaireForm(kind) {
  const questionnaire = await callOperation(PLUGIN, "questionnaire", { kind });
  if (questionnaire.submittedAt) return el("p", { class: "done" }, t("questionnaire.sent", { title: questionnaire.title }));
  const form = el("form", { id: `questionnaire-${kind}`, class: "questionnaire", novalidate: true },
    el("h3", {}, questionnaire.title));
  for (const item of questionnaire.items) form.append(questionField(kind, item, questionnaire.scale));
  form.append(el("button", { type: "submit" }, t("questionnaire.submit")));
  whenSubmitted(form, async () => {
    await callOperation(PLUGIN, "questionnaire-submit", { kind, answers: answersOf(form, questionnaire) });
    return { news: [t("questionnaire.thanks")] };
  });
  return form;
}

/** One item: the test's are numbers on its scale, the screening questions' are their options. */
function questionField(kind, item, scale) {
  const choices = item.options ? item.options.map((option) => ({ value: option.id, label: option.text })) : scaleChoices(scale);
  return choiceField({ name: `${kind}-${item.id}`, legend: item.text, choices });
}

/** The answers chosen so far; an unanswered item is left out, and the module names what is missing. */
function answersOf(form, questionnaire) {
  const answers = [];
  for (const item of questionnaire.items) {
    const value = chosenNumber(form, `${questionnaire.kind}-${item.id}`);
    if (value === undefined) continue;
    answers.push(item.options ? { questionId: item.id, optionId: value } : { questionId: item.id, value });
  }
  return answers;
}

// MARK: The app's evaluation (the second exit questionnaire)

/** The app's evaluation: stress before and after, whether it helped, a rating, and three notes. */
export async function exitEvaluationForm() {
  const scales = await programmeScales();
  const stress = { low: scales.stress[0], high: scales.stress[1] };
  const rating = { low: scales.appRating[0], high: scales.appRating[1] };
  const form = el("form", { id: "exit-form", novalidate: true },
    el("h3", {}, t("exit.heading")),
    choiceField({ name: "stressBefore", legend: t("exit.stressBefore"), hint: t("exit.stressHint", stress), choices: scaleChoices(scales.stress) }),
    choiceField({ name: "stressAfter", legend: t("exit.stressAfter"), hint: t("exit.stressHint", stress), choices: scaleChoices(scales.stress) }),
    choiceField({ name: "useful", legend: t("exit.useful"), choices: [{ value: "true", label: t("exit.yes") }, { value: "false", label: t("exit.no") }] }),
    textField({ id: "exit-comment", name: "comment", label: t("exit.comment") }),
    choiceField({ name: "appRating", legend: t("exit.appRating"), hint: t("exit.appRatingHint", rating), choices: scaleChoices(scales.appRating) }),
    textField({ id: "exit-rating-note", name: "ratingNote", label: t("exit.ratingNote") }),
    textField({ id: "exit-recommendation", name: "recommendation", label: t("exit.recommendation") }),
    el("button", { type: "submit" }, t("exit.submit")));
  whenSubmitted(form, async (data) => {
    const input = { stressBefore: chosenNumber(form, "stressBefore"), stressAfter: chosenNumber(form, "stressAfter"),
                    appRating: chosenNumber(form, "appRating") };
    if (data.get("useful") !== null) input.useful = data.get("useful") === "true";
    for (const name of ["comment", "ratingNote", "recommendation"]) if (data.get(name).trim()) input[name] = data.get(name);
    await callOperation(PLUGIN, "exit-evaluation-submit", input);
    return { news: [t("exit.thanks")] };
  });
  return form;
}
