// The virtual clock panel: shown on a deployment with a virtual clock; advancing it fires what
// falls due (POST /v1/clock/advance, admin tokens only).

import { request, APIError } from "./api.js";
import { t } from "./i18n.js";
import { dateTime } from "./format.js";
import { errorText } from "./errors.js";

export async function startClock({ section, now, form, input, error, result }) {
  const clock = await request("GET", "/v1/clock");
  if (clock.kind !== "virtual") return;
  section.hidden = false;
  now.textContent = dateTime(clock.now);
  now.setAttribute("datetime", clock.now);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    input.removeAttribute("aria-invalid");
    try {
      const answer = await request("POST", "/v1/clock/advance", { by: input.value.trim() });
      now.textContent = dateTime(answer.now);
      now.setAttribute("datetime", answer.now);
      result.textContent = t("clock.result", { time: dateTime(answer.now), count: answer.fired.length });
    } catch (problem) {
      if (!(problem instanceof APIError)) throw problem;
      error.textContent = problem.field === "$.by" ? t("clock.invalid") : errorText(problem);
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
  });
}
