// Bringing the care log over from Baby Buddy, in the Daily care tab (`care-import`): the files a
// parent saved from Baby Buddy are read in the browser and checked first (a dry run says what would
// be added and what cannot be, in sentences), then imported with one press. Importing the same
// files again adds nothing, and the page says so.

import { callOperation } from "/console/api.js";
import { t } from "/console/i18n.js";
import { list as listOf } from "/console/format.js";
import { PLUGIN, $, sayUnder, clearFormError } from "./common.js";

const KINDS = ["feed", "sleep", "nappy", "tummy", "pumping"];
let checked = null;  // the files' contents after a check, imported as they were checked

/** The chosen files' JSON, each as read; a file that is not JSON is said by its name. */
async function readFiles(files) {
  const contents = [];
  for (const file of files) {
    try {
      contents.push(JSON.parse(await file.text()));
    } catch {
      throw new Error(t("care.importUnreadable", { file: file.name }));
    }
  }
  return contents;
}

/** The answers of all files as one: counts by kind, entries imported before, skipped entries by why. */
function merged(answers) {
  const counts = {}, why = {};
  let already = 0;
  for (const answer of answers) {
    for (const [kind, count] of Object.entries(answer.imported || {})) counts[kind] = (counts[kind] || 0) + count;
    already += answer.alreadyImported || 0;
    for (const skipped of answer.skipped || []) why[skipped.code] = (why[skipped.code] || 0) + 1;
  }
  return { counts, already, why };
}

/** What a check or an import did, in sentences. */
function sentences({ counts, already, why }, done) {
  const what = listOf(KINDS.filter((kind) => counts[kind]).map((kind) => t(`care.importKind.${kind}`, { count: counts[kind] })));
  const lines = [what ? t(done ? "care.importAdded" : "care.importWould", { what }) : t("care.importNothing")];
  if (already) lines.push(t("care.importAlready", { count: already }));
  const skipped = Object.values(why).reduce((sum, count) => sum + count, 0);
  if (skipped) lines.push(t("care.importSkipped", { count: skipped, why: listOf(Object.keys(why).map((code) => t(`care.importWhy.${code}`))) }));
  return lines.join(" ");
}

/** Sends every file's contents to `care-import` for the chosen child. */
async function send(childId, contents, dryRun) {
  const answers = [];
  for (const data of contents) answers.push(await callOperation(PLUGIN, "care-import", { childId, data, dryRun }));
  return merged(answers);
}

/** Binds the import form to the chosen child (`childId()`); `done` shows the page again after the import. */
export function bindCareImport(childId, done) {
  const form = $("care-import-form");
  const reset = () => {
    checked = null;
    $("care-import-go").hidden = true;
    $("care-import-preview").textContent = "";
  };
  $("care-import-files").addEventListener("change", reset);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    reset();
    clearFormError(form);
    const files = [...$("care-import-files").files];
    if (!files.length) {
      sayUnder(form, t("care.importNoFiles"));
      return;
    }
    try {
      const contents = await readFiles(files);
      const outcome = await send(childId(), contents, true);
      $("care-import-preview").textContent = sentences(outcome, false);
      checked = Object.keys(outcome.counts).length ? contents : null;
      $("care-import-go").hidden = !checked;
    } catch (error) {
      if (error.code) await done(Promise.reject(error), "", form);
      else sayUnder(form, error.message);
    }
  });
  $("care-import-go").addEventListener("click", async () => {
    if (!checked) return;
    const contents = checked;
    const imported = send(childId(), contents, false);
    if (await done(imported, (outcome) => sentences(outcome, true), form)) {
      form.reset();
      reset();
    }
  });
}
