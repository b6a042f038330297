// The record forms on the baby diary's page: a milestone (a preset or a name of one's own), a
// post with photos (each file uploaded through `photo-upload` first, then the post names their
// addresses), and a temperature (in an illness or injury, or alone). Each reports through
// `done(promise, message, form)`: a refusal is said under its form.

import { callOperation } from "/console/api.js";
import { t } from "/console/i18n.js";
import { PLUGIN, $, numberIn } from "./common.js";
import { uploadPhoto } from "./photos.js";

/** Binds the record forms to the chosen child (`childId()`). */
export function bindRecordForms(childId, done) {
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
