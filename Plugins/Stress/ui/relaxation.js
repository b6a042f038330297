// Week 2, relaxation: the introduction (shown until the participant says it is read), the
// technique pages, and a stopwatch. The module keeps the time on the host's clock: `relaxation-
// start` records the start, `relaxation-stop` measures the session and, the first time, completes
// the week. What the page shows while it runs is only a display: the elapsed seconds the module
// answered, counted on from that answer by the page's own tick. The same panel serves practice
// once the week is completed (the week is repeatable).

import { callOperation } from "/console/api.js";
import { t } from "/console/i18n.js";
import { showError } from "/console/errors.js";
import { PLUGIN, el, page, minutesAndSeconds } from "./common.js";

let ticking = null;

/** Stops the display's tick (the panel is about to be drawn again, or the session stopped). */
export function stopTick() {
  clearInterval(ticking);
  ticking = null;
}

/** The relaxation panel for the week's `content` (from `programme-week`). */
export async function relaxationPanel(content, { practice = false } = {}) {
  const panel = el("div", { class: "relaxation" });
  const output = el("p", { class: "error", role: "alert" });
  if (!content.introRead) {
    for (const pageOfIntro of content.introPages ?? []) panel.append(el("h4", {}, pageOfIntro.title), el("p", {}, pageOfIntro.text));
    const read = el("button", { type: "button", id: "relax-intro-read" }, t("relax.introRead"));
    read.addEventListener("click", () => act(output, async () => { await callOperation(PLUGIN, "relaxation-intro-read", {}); return {}; }));
    panel.append(read, output);
    return panel;
  }
  for (const technique of content.techniques) panel.append(el("h4", {}, technique.title), el("p", {}, technique.text));
  const status = await callOperation(PLUGIN, "relaxation-status", {});
  panel.append(stopwatch(status, output, practice), output);
  return panel;
}

/** The stopwatch: its display and the button that starts or stops it. */
function stopwatch(status, output, practice) {
  const display = el("p", { id: "relax-timer", class: "timer", role: "timer", "aria-live": "off" }, minutesAndSeconds(0));
  const box = el("div", { class: "stopwatch" }, el("p", { class: "help" }, t(practice ? "relax.practiceHint" : "relax.hint")), display);
  if (status.running) {
    tick(display, status.elapsedSeconds ?? 0);
    const stop = el("button", { type: "button", id: "relax-stop" }, t("relax.stop"));
    stop.addEventListener("click", () => act(output, () => stopped(practice)));
    box.append(stop);
  } else {
    const start = el("button", { type: "button", id: "relax-start" }, t("relax.start"));
    start.addEventListener("click", () => act(output, async () => { await callOperation(PLUGIN, "relaxation-start", {}); return {}; }));
    box.append(start);
  }
  return box;
}

/** Shows `elapsed` seconds and counts on from now, once a second, on the page's own clock. */
function tick(display, elapsed) {
  stopTick();
  const from = performance.now();
  const show = () => { display.textContent = minutesAndSeconds(elapsed + (performance.now() - from) / 1000); };
  show();
  ticking = setInterval(show, 1000);
}

/** Stops the session: the module measures it; the first one completes the week. */
async function stopped(practice) {
  const completion = await callOperation(PLUGIN, "relaxation-stop", {});
  stopTick();
  const news = [t("relax.lasted", { duration: minutesAndSeconds(completion.seconds ?? 0) })];
  // A practice session answers the week's next steps too; they were news only the first time
  // (the module says which session completed the week; an older one does not, the panel does).
  if ((completion.completesWeek ?? !practice) && completion.nextSteps) news.push(completion.nextSteps);
  return { news };
}

/** Runs a button's `call` (its answer: what to say); a refusal is said in `output`, a success draws the page again. */
async function act(output, call) {
  output.textContent = "";
  let said;
  try {
    said = await call();
  } catch (error) {
    showError(error, { output });
    return;
  }
  await page.redraw(said);
}
