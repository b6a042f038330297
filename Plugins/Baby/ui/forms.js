// The record forms on the baby diary's page: a milestone (a preset, shown in the person's words and
// sent as its key, or a name of one's own, with the names the person used before offered by
// `suggestions`; the module's presets among them are left out, since the list above has them), a
// post with photos (each file uploaded through `photo-upload` first, then the post names their
// addresses), and a temperature (in an illness or injury, or alone). Each reports through
// `done(promise, message, form)`: a refusal is said in its form, below the field at fault.

import { callOperation } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { t } from "/console/i18n.js";
import { PLUGIN, $, numberIn } from "./common.js";
import { uploadPhoto } from "./photos.js";

/** The preset milestones' keys (the module's `milestonePresets`), as the milestone list offers them. */
const presets = () => [...$("milestone-preset").options].map((option) => option.value).filter(Boolean);

/** Offers the milestone names the person gave before (not the presets: their keys are no words). */
export async function showMilestoneSuggestions() {
  const { values } = await callOperation(PLUGIN, "suggestions", { field: "milestone" });
  const keys = new Set(presets().map((key) => key.toLowerCase()));
  clear($("milestone-names"));
  for (const value of values.filter((v) => !keys.has(String(v).toLowerCase()))) $("milestone-names").append(el("option", { value }));
}

/** Shows the field for a milestone of one's own only when "Something else" is chosen. */
function showCustomField() {
  $("milestone-custom-field").hidden = $("milestone-preset").value !== "";
}

/** Binds the record forms to the chosen child (`childId()`). */
export function bindRecordForms(childId, done) {
  $("milestone-preset").addEventListener("change", showCustomField);
  showCustomField();
  $("milestone-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const preset = $("milestone-preset").value;
    const input = { childId: childId(), date: $("milestone-date").value, note: $("milestone-note").value };
    if (preset) input.preset = preset; else input.custom = $("milestone-custom").value;
    await done(callOperation(PLUGIN, "milestone-add", input), t("records.milestoneAdded"), event.currentTarget);
  });
  $("post-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const files = [...$("post-photos").files];
    await done((async () => {
      const photos = [];
      for (const file of files) photos.push(await uploadPhoto(file));
      return callOperation(PLUGIN, "post-add", { childId: childId(), text: $("post-text").value, date: $("post-date").value, photos });
    })(), t("records.postAdded"), event.currentTarget);
  });
  $("temperature-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = { childId: childId(), celsius: numberIn($("temperature-value")), at: $("temperature-at").value.slice(0, 16) };
    if ($("temperature-problem").value) input.problemId = $("temperature-problem").value;
    await done(callOperation(PLUGIN, "temperature-add", input), t("records.temperatureAdded"), event.currentTarget);
  });
}
