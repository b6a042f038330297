// What the IS/STAG page shows beside the timetable and exams (docs/stag.md, "Subject details,
// theses and the canteen"): a subject's details, opened from a class of the timetable; the theses
// a teacher supervises, opposes or consults; and the ZČU canteen's menu for a day. IS/STAG writes
// its texts in Czech or English: an English reader gets English, everyone else Czech.

import { callOperation } from "/console/api.js";
import { clear, el } from "/console/dom.js";
import { language, t } from "/console/i18n.js";
import { date, list, longDate, money } from "/console/format.js";
import { $, PLUGIN, addDays, failure, staleNote } from "./common.js";
import { studentList } from "./teacher.js";

/** IS/STAG's language for the person: English, or Czech (it has no Slovak). */
const stagLanguage = () => (language() === "en" ? "en" : "cs");

// MARK: A subject's details

function row(label, value) {
  if (value === null || value === undefined || value === "" || (Array.isArray(value) && value.length === 0)) return null;
  return [el("dt", {}, label), el("dd", {}, Array.isArray(value) ? value.join(", ") : String(value))];
}

/**
 * Shows the details of `subject` ("KMI/PRG") in the subject part, and moves there; for a class the
 * person teaches (`teaching`, with the class's `action` id), its students too.
 */
export async function openSubject(subject, { action, teaching } = {}) {
  const section = $("subject-section"), box = $("subject-info");
  section.hidden = false;
  clear(box);
  box.append(el("p", { class: "muted" }, t("subject.loading")));
  $("subject-heading").textContent = subject;
  $("subject-heading").focus();
  try {
    const read = await callOperation(PLUGIN, "subject-info", { subject, language: stagLanguage() });
    const info = read.data;
    $("subject-heading").textContent = t("subject.heading", { name: info.name ?? subject, code: subject });
    const hours = [info.hours.lectures && t("subject.lectures", { count: info.hours.lectures }),
      info.hours.practicals && t("subject.practicals", { count: info.hours.practicals }),
      info.hours.seminars && t("subject.seminars", { count: info.hours.seminars })].filter(Boolean);
    const completion = [info.completion, info.examForm ? t("subject.examForm", { form: info.examForm }) : null,
      info.creditBeforeExam ? t("subject.creditFirst") : null].filter(Boolean).join("; ");
    const rows = [row(t("subject.credits"), info.credits), row(t("subject.hours"), hours), row(t("subject.completion"), completion),
      row(t("subject.guarantors"), info.guarantors), row(t("subject.lecturers"), info.lecturers), row(t("subject.practicalTeachers"), info.practicals),
      row(t("subject.prerequisites"), info.prerequisites), row(t("subject.goal"), info.goal), row(t("subject.requirements"), info.requirements),
      row(t("subject.content"), info.content), row(t("subject.literature"), info.literature)].filter(Boolean).flat();
    clear(box);
    box.append(...[staleNote(read)].filter(Boolean), el("dl", { class: "subject-info" }, ...rows));
    if (info.url) box.append(el("p", {}, el("a", { href: info.url, rel: "noopener", target: "_blank" }, t("subject.courseware"))));
    if (teaching && action) box.append(...await classStudents(action));
  } catch (error) {
    clear(box);
    box.append(failure(error));
  }
}

/** The students of a class the person teaches: a heading with their number, and the list. */
async function classStudents(action) {
  const read = await callOperation(PLUGIN, "class-students", { action });
  return [...[staleNote(read)].filter(Boolean), el("h3", {}, t("subject.students", { count: read.data.length })),
    read.data.length ? studentList(read.data) : el("p", { class: "muted" }, t("subject.noStudents"))];
}

// MARK: A teacher's theses

export async function showTheses() {
  const box = $("theses");
  try {
    const read = await callOperation(PLUGIN, "theses", { language: stagLanguage() });
    clear(box);
    const items = read.data.map((thesis) => el("li", { class: "thesis" },
      el("p", { class: "thesis-title" }, thesis.title),
      el("p", {}, [thesis.type, thesis.student?.name, thesis.programme].filter(Boolean).join(" · ")),
      el("p", {}, [thesis.role ? t(`theses.role.${thesis.role}`) : null,
        thesis.dueOn ? t("theses.due", { day: date(thesis.dueOn) }) : null,
        thesis.submittedOn ? t("theses.submitted", { day: date(thesis.submittedOn) }) : null].filter(Boolean).join(" · "))));
    box.append(...[staleNote(read)].filter(Boolean),
      items.length ? el("ul", { class: "plain" }, items) : el("p", { class: "muted" }, t("theses.none")));
  } catch (error) {
    clear(box);
    box.append(failure(error));
  }
}

// MARK: The canteen

function meal(item) {
  const prices = ["student", "employee", "external"].filter((diner) => item.prices[diner])
    .map((diner) => t(`canteen.price.${diner}`, { price: money(item.prices[diner], "CZK") }));
  const allergens = item.allergens.map((allergen) => `${allergen.number} ${allergen.name}`);
  return el("li", { class: "meal" }, el("p", { class: "meal-name" }, item.name), el("p", {}, prices.join(" · ")),
    allergens.length ? el("p", { class: "muted" }, t("canteen.allergens", { list: list(allergens) })) : null);
}

async function showCanteen() {
  const box = $("canteen-menu");
  try {
    const read = await callOperation(PLUGIN, "canteen", { canteen: $("canteen-place").value, daysShift: Number($("canteen-day").value), language: stagLanguage() });
    const menu = read.data;
    clear(box);
    const parts = [];
    if (menu.soups.length) parts.push(el("h3", {}, t("canteen.soups")), el("ul", { class: "plain" }, menu.soups.map(meal)));
    if (menu.mainCourses.length) parts.push(el("h3", {}, t("canteen.mains")), el("ul", { class: "plain" }, menu.mainCourses.map(meal)));
    box.append(...[staleNote(read)].filter(Boolean), ...(parts.length ? parts : [el("p", { class: "muted" }, t("canteen.none"))]));
  } catch (error) {
    clear(box);
    box.append(failure(error));
  }
}

let canteenBound = false;

/** Offers this week's days (today first) and shows today's menu. */
export async function startCanteen(today) {
  const days = $("canteen-day");
  clear(days);
  if (!canteenBound) {
    for (const id of ["canteen-place", "canteen-day"]) $(id).addEventListener("change", showCanteen);
    canteenBound = true;
  }
  for (let shift = 0; shift < 7; shift++) {
    const label = shift === 0 ? t("canteen.today") : shift === 1 ? t("canteen.tomorrow") : longDate(addDays(today, shift));
    days.append(el("option", { value: String(shift) }, label));
  }
  await showCanteen();
}
