// The stress programme's page: consent first (the research text, then a checkbox); then today's
// next step with its work right under it (weeks.js: the entry questionnaires, a week's rating, the
// open week's form or the relaxation stopwatch, the exit questionnaires), the diary (diary.js),
// the four weeks with their summaries, the library and the about pages (library.js), and the
// settings, feedback and withdrawal (account.js). Each change draws the page again from what the
// module answers, so the page never guesses a state the module did not give.
//
// The page's own words are in ui/messages/<lang>.json. The programme's texts (week names,
// questions, the library, the research) are the module's content pack, in the participant's
// language setting: once the participant has consented, the page keeps that setting at the
// person's language, so a page never mixes two.

import { callOperation } from "/console/api.js";
import { startPage } from "/console/page.js";
import { t } from "/console/i18n.js";
import { errorText } from "/console/errors.js";
import { date } from "/console/format.js";
import { PLUGIN, $, el, clear, page, readClock, contentLanguage, paragraphs, whenSubmitted } from "./common.js";
import { stepText, showStep, showWeeks } from "./weeks.js";
import { stopTick } from "./relaxation.js";
import { showDiary, bindDiaryForms } from "./diary.js";
import { showLibrary, showAbout } from "./library.js";
import { showSettings, bindAccountForms } from "./account.js";

const ACTIVE_SECTIONS = ["sections-nav", "dashboard-section", "diary-section", "programme-section", "library-section", "about-section",
                         "settings-section"];
let languageMatched = false;
let aboutShown = false;

/** Keeps the module's language setting at the person's language (it can be set once consented). */
async function matchLanguage() {
  if (languageMatched) return;
  const settings = await callOperation(PLUGIN, "settings-get", {});
  if (settings.language !== contentLanguage()) await callOperation(PLUGIN, "settings-set", { language: contentLanguage() });
  languageMatched = true;
}

/** Today: the next step as a sentence, its work, the days left and something to read. */
async function showToday() {
  const [dashboard, overview] = await Promise.all([callOperation(PLUGIN, "dashboard", {}), callOperation(PLUGIN, "programme", {})]);
  $("next-step").textContent = stepText(dashboard.programme);
  $("days-left").textContent = dashboard.daysLeft == null || !dashboard.lastDay ? ""
    : t("dashboard.daysLeft", { count: dashboard.daysLeft, lastDay: date(dashboard.lastDay) });
  showSuggestion(dashboard.library);
  await showStep(dashboard.programme, overview);
  await showWeeks(overview);
}

/** Today's library section, with a button that opens it in the library below. */
function showSuggestion(suggestion) {
  clear($("library-suggestion"));
  if (!suggestion) return;
  const open = el("button", { type: "button", class: "link-button" }, t("dashboard.openInLibrary"));
  open.addEventListener("click", () => showLibrary(suggestion.id, { focus: true }));
  $("library-suggestion").append(t("dashboard.read", { title: suggestion.title }), " ", open);
}

/** The research text to consent to (before consenting, in the module's language: Czech by default). */
async function showConsent() {
  const research = await callOperation(PLUGIN, "about-research", {});
  clear($("consent-text"));
  for (const section of research.subsections) $("consent-text").append(el("h3", {}, section.name), ...paragraphs(section.text));
}

/** Draws the whole page from the module's state. */
async function refresh() {
  stopTick();
  const account = await callOperation(PLUGIN, "account-state", {});
  const active = account.state === "active";
  $("consent-section").hidden = account.state !== "registered";
  for (const id of ACTIVE_SECTIONS) $(id).hidden = !active;
  if (account.state === "revoked") $("status").textContent = t("account.revoked");
  if (account.state === "registered") await showConsent();
  if (active) {
    await matchLanguage();
    await readClock();
    await showToday();
    await showDiary();
    await showLibrary();
    if (!aboutShown) await showAbout();
    aboutShown = true;
    await showSettings();
  }
}

/**
 * After a change: the page drawn again, then what happened said: `status` at the top, `news` (a
 * step done: what the module answered, such as the week's next steps) above the next step, where
 * the person is taken.
 */
async function redraw({ status = "", news = [] } = {}) {
  document.body.dataset.ready = "false";
  $("status").textContent = "";
  try {
    await refresh();
  } catch (error) {
    $("status").textContent = errorText(error);
    document.body.dataset.ready = "true";
    return;
  }
  $("status").textContent = status;
  const said = news.filter(Boolean);
  clear($("step-news"));
  for (const text of said) $("step-news").append(el("p", {}, text));
  if (said.length) $("dashboard-section").scrollIntoView({ block: "start" });
  document.body.dataset.ready = "true";  // after the news, so that what waits for the page reads it whole
}

async function start() {
  const me = await startPage({ status: $("status") });
  if (!me) return;
  page.redraw = redraw;
  whenSubmitted($("consent-form"), async () => {
    const { consentVersion } = await callOperation(PLUGIN, "about-research", {});
    await callOperation(PLUGIN, "consent-give", { consentVersion, accepted: $("consent-accept").checked });
    return { status: t("consent.done") };
  });
  bindDiaryForms();
  bindAccountForms();
  try {
    await refresh();
  } catch (error) {
    $("status").textContent = errorText(error);
  }
  document.body.dataset.ready = "true";
}

start();
