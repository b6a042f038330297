// Study results on the IS/STAG page (spec §5.2.3–4): the statistics over the whole study from
// `results` (credits earned against the programme's target, the weighted average, subjects passed,
// how many of each grade), the latest grades from `grades`, and each academic year with its own
// statistics and its subjects by semester. Grades keep their digits and letters, with the word
// where one exists ("2 (velmi dobře)").

import { callOperation } from "/console/api.js";
import { clear, el } from "/console/dom.js";
import { language, t } from "/console/i18n.js";
import { date, list } from "/console/format.js";
import { $, PLUGIN, failure, gradeText, named, staleNote } from "./common.js";

/** How many latest grades are listed. */
const LATEST = 5;
/** Grades in the order a student reads them: the best first, letters after digits, credits last. */
const GRADE_ORDER = ["1", "2", "3", "4", "A", "B", "C", "D", "E", "F", "S", "N"];

/** "1,93", "2,00": an average always to two places, as universities print it. */
function average(value) {
  return value == null ? t("results.noAverage")
    : new Intl.NumberFormat(language(), { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);
}

function statistic(labelKey, value) {
  return el("div", {}, el("dt", {}, t(labelKey)), el("dd", {}, value));
}

/** The study's (or a year's) figures as a list of labelled values: the study's credits against its target, a year's against those enrolled. */
function statistics(data, target = data.creditsTarget) {
  const credits = target != null
    ? t("results.creditsOf", { earned: data.creditsEarned, target })
    : t("results.creditsEarned", { count: data.creditsEarned });
  return el("dl", { class: "stats" },
    statistic("results.credits", credits),
    statistic("results.average", average(data.weightedAverage)),
    statistic("results.passed", t("results.passedOf", { passed: data.passed, count: data.enrolled })));
}

/** "1× výborně, 1× velmi dobře, 1× splněno": how many of each grade. */
function gradeCounts(counts) {
  const grades = Object.keys(counts).sort((a, b) => GRADE_ORDER.indexOf(a) - GRADE_ORDER.indexOf(b));
  if (grades.length === 0) return null;
  return el("p", {}, t("results.gradeCounts", { counts: list(grades.map((grade) => t("results.gradeCount", { count: counts[grade], grade: gradeText(grade) }))) }));
}

/** "zkouška, 18. 12. 2025, 2. pokus": how and when a grade was given. */
function gradeDetails(grade) {
  const parts = [named("results.kinds", grade.kind, "")];
  if (grade.date) parts.push(date(grade.date));
  if (Number(grade.attempt) > 1) parts.push(t("results.attempt", { count: Number(grade.attempt) }));
  return parts.filter(Boolean).join(", ");
}

/** The latest grades, newest first. */
function latestGrades(grades) {
  if (grades.length === 0) return [el("p", { class: "muted" }, t("results.noGrades"))];
  const latest = [...grades].sort((a, b) => String(b.date ?? "").localeCompare(String(a.date ?? ""))).slice(0, LATEST);
  return [el("h3", {}, t("results.latestHeading")),
    el("ul", { class: "plain grades" }, latest.map((grade) => el("li", { "data-subject": grade.subject },
      el("strong", {}, grade.subjectName), " ", gradeText(grade.grade), el("br"), el("span", { class: "muted" }, gradeDetails(grade)))))];
}

/** One semester's subjects: name and code, credits, and the result or that there is none yet. */
function semesterTable(subjects) {
  const rows = subjects.map((subject) => el("tr", { "data-subject": subject.subject },
    el("td", {}, subject.name, el("br"), el("span", { class: "muted" }, subject.subject)),
    el("td", {}, t("results.creditsShort", { count: subject.credits })),
    el("td", {}, subject.grade ? gradeText(subject.grade) : el("span", { class: "muted" }, t("results.notYet")),
      subject.grade && subject.date ? [el("br"), el("span", { class: "muted" }, date(subject.date))] : null)));
  return el("div", { class: "table-wrap" }, el("table", {},
    el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t("results.subject")), el("th", { scope: "col" }, t("results.creditsColumn")),
      el("th", { scope: "col" }, t("results.result")))),
    el("tbody", {}, rows)));
}

/** An academic year, folded: its figures in the summary line, its semesters inside. */
function yearPart(year, open) {
  const semesters = Object.keys(year.semesters).sort((a, b) => ["ZS", "LS"].indexOf(a) - ["ZS", "LS"].indexOf(b));
  return el("details", { class: "year", open },
    el("summary", {}, t("results.yearSummary", { year: year.label, average: average(year.weightedAverage), earned: year.creditsEarned, enrolled: year.creditsEnrolled })),
    statistics(year, year.creditsEnrolled),
    semesters.flatMap((semester) => [el("h4", {}, named("semesters", semester, t("semesters.unknown"))), semesterTable(year.semesters[semester])]));
}

/** Reads and draws the results and the latest grades. */
export async function showResults() {
  const box = $("results");
  try {
    const [results, grades] = await Promise.all([callOperation(PLUGIN, "results", {}), callOperation(PLUGIN, "grades", {})]);
    clear(box);
    box.append(...[staleNote(results)].filter(Boolean),
      statistics(results.data), ...[gradeCounts(results.data.countsByGrade)].filter(Boolean),
      ...latestGrades(grades.data),
      el("h3", {}, t("results.yearsHeading")),
      ...results.data.years.map((year, index) => yearPart(year, index === 0)));
  } catch (error) {
    clear(box);
    box.append(failure(error));
  }
}
