// The virtual clock panel: shown on a deployment with a virtual clock; advancing it fires what
// falls due (POST /v1/clock/advance, admin tokens only).

import { request, APIError } from "./api.js";

export async function startClock({ section, now, form, input, error, result }) {
  const clock = await request("GET", "/v1/clock");
  if (clock.kind !== "virtual") return;
  section.hidden = false;
  now.textContent = clock.now;
  now.setAttribute("datetime", clock.now);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    input.removeAttribute("aria-invalid");
    try {
      const answer = await request("POST", "/v1/clock/advance", { by: input.value.trim() });
      now.textContent = answer.now;
      now.setAttribute("datetime", answer.now);
      result.textContent = `Now ${answer.now}; ${answer.fired.length} timer firing(s).`;
    } catch (problem) {
      if (!(problem instanceof APIError)) throw problem;
      error.textContent = problem.message;
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
  });
}
