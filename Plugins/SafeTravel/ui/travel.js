// Safe travel's page for the traveller: set up (username, PIN), start a trip, see it on its route as
// an SVG (no map tiles: the route, the positions walked and the destination's arrival circle, in a
// local equirectangular projection), copy its live-view link, upload a photo, send a message, end it
// with the PIN, hold the SOS button (then the PIN in a dialog, or "alert now"), list and add places
// (geofences), and the alerts raised. It calls the module through the console's API client; the
// person is signed in by the console's session cookie. Every text is in the person's language
// (ui/messages/), every refusal a sentence, every time and distance formatted (docs/safetravel.md,
// "The console page").

import { callOperation, authHeaders, APIError } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { startPage } from "/console/page.js";
import { t } from "/console/i18n.js";
import { dateTime, relative, distance, coordinates, list } from "/console/format.js";
import { svg, projection } from "./track-map.js";
import { drawOnMap } from "./leaflet-map.js";
import { PLUGIN, hostNow, percent, alertLine, refusalText, showRefusal } from "./travel-common.js";

const $ = (id) => document.getElementById(id);

/** A problem the page finds before asking the module (a form sent without its photo). */
class Missing extends Error {
  constructor(key, control) {
    super(key);
    this.key = key;
    this.control = control;
  }
}

/** The trip on the tile map where the deployment has one, else as the page's own SVG. */
async function drawTrip(trip, positions) {
  if (session.mapTiles) {
    $("track").setAttribute("hidden", "");  // an SVG element has no `hidden` property
    $("map").hidden = false;
    await drawOnMap($("map"), session.mapTiles, {
      route: trip.route ? JSON.parse(trip.route) : [], walked: positions.map((p) => [p.lat, p.lon]),
      destination: trip.dest_lat != null ? { lat: trip.dest_lat, lon: trip.dest_lon } : null,
    });
  } else {
    drawTrack(trip, positions);
  }
}

/** Draws the route, the positions and the destination, scaled to fit with a margin. */
function drawTrack(trip, positions) {
  const box = $("track");
  for (const node of [...box.children]) if (node.tagName !== "title") node.remove();
  const route = trip.route ? JSON.parse(trip.route) : [];
  const points = [...route, ...positions.map((p) => [p.lat, p.lon])];
  if (trip.dest_lat != null) points.push([trip.dest_lat, trip.dest_lon]);
  if (points.length === 0) return;
  const { at, line, scale } = projection(points);
  if (route.length >= 2) box.append(line(route, "route", "#6a7fb0", 4, "8 6"));
  if (positions.length >= 1) box.append(line(positions.map((p) => [p.lat, p.lon]), "walked", "#c0392b", 3, "none"));
  if (trip.dest_lat != null) {
    const [x, y] = at([trip.dest_lat, trip.dest_lon]);
    const radius = Math.max(3, (100 / 111320) * scale);  // the 100 m arrival radius, in degrees of latitude
    box.append(svg("circle", { class: "destination", fill: "none", stroke: "#2e7d32", "stroke-width": 2, cx: x.toFixed(1), cy: y.toFixed(1), r: radius.toFixed(1) }));
  }
  if (positions.length) {
    const [x, y] = at([positions.at(-1).lat, positions.at(-1).lon]);
    box.append(svg("circle", { class: "last", fill: "#c0392b", cx: x.toFixed(1), cy: y.toFixed(1), r: 5 }));
  }
}

/** The trip in sentences: where to, by when (and how long from now), how far, and its flags. */
function tripSummary(trip, now) {
  const parts = [trip.destination_name ? t("trip.to", { destination: trip.destination_name }) : t("trip.noDestination")];
  if (trip.expected_arrival_at) {
    parts.push(t("trip.expected", { time: dateTime(trip.expected_arrival_at), relative: relative(trip.expected_arrival_at, now) }));
  }
  if (trip.distanceToDestination != null) parts.push(t("trip.toGo", { distance: distance(trip.distanceToDestination) }));
  if (trip.arrived_at) parts.push(t("trip.arrived"));
  if (trip.eta_passed_at) parts.push(t("trip.etaPassed"));
  if (trip.off_route_since) parts.push(t("trip.offRoute"));
  return parts.join(" ");
}

async function refreshTrip(trip, now) {
  $("start-form").hidden = trip.active;
  $("active-trip").hidden = !trip.active;
  if (!trip.active) return;
  $("trip-summary").textContent = tripSummary(trip, now);
  $("live-link-box").hidden = !trip.liveLink;
  $("live-link").value = trip.liveLink ? new URL(trip.liveLink.path, location.origin).href : "";
  $("live-link-expiry").textContent = trip.liveLink
    ? t("trip.linkExpires", { time: dateTime(trip.liveLink.expiresAt), relative: relative(trip.liveLink.expiresAt, now) }) : "";
  const { activities } = await callOperation(PLUGIN, "trip-activities", { tripId: trip.id });
  const positions = activities.filter((a) => a.lat != null && a.lon != null);
  await drawTrip(trip, positions);
  clear($("positions"));
  for (const p of positions) {
    $("positions").append(el("tr", {},
      el("td", {}, el("time", { datetime: p.created_at }, dateTime(p.created_at))),
      el("td", {}, coordinates(p.lat, p.lon)),
      el("td", {}, p.battery != null ? percent(p.battery) : "")));
  }
}

/** A person's pairing as a list item: their name, its state, and what can be done with it. */
function personItem(name, state, ...buttons) {
  return el("li", {}, el("span", {}, state ? t("guardians.row", { name, state }) : name), ...buttons);
}

/** A button that calls `operation` with `input`, then loads the page again (a refusal goes to `output`). */
function actionButton(label, ariaLabel, operation, input, output, done) {
  const button = el("button", { type: "button", class: "secondary", "aria-label": ariaLabel }, label);
  button.addEventListener("click", async () => {
    output.textContent = "";
    try {
      await callOperation(PLUGIN, operation, input);
      $("status").textContent = done;
      document.body.dataset.ready = "false";
      await load();
    } catch (error) { await showRefusal(error, null, output); }
  });
  return button;
}

/** Guardians, requests waiting for this person, and the people they guard; or, with no hub, why not. */
async function refreshGuardians(hub) {
  $("no-hub").hidden = Boolean(hub);
  $("with-hub").hidden = !hub;
  if (!hub) return;
  const { guardians, guarding } = await callOperation(PLUGIN, "guardians", {});
  const { requests } = await callOperation(PLUGIN, "guardian-requests", {});
  const output = $("guardian-error");
  clear($("guardians"));
  for (const g of guardians) {
    const state = t(g.status === "ACCEPTED" ? "guardians.accepted" : "guardians.pending");
    $("guardians").append(personItem(g.username, state,
      actionButton(t("guardians.remove"), t("guardians.removeLabel", { name: g.username }), "guardian-remove", { username: g.username },
        output, t("guardians.removed", { name: g.username }))));
  }
  $("no-guardians").hidden = guardians.some((g) => g.status === "ACCEPTED");
  clear($("guardian-requests"));
  for (const r of requests) {
    $("guardian-requests").append(personItem(t("guardians.requestFrom", { name: r.from, relative: relative(r.expiresAt, await hostNow()) }), null,
      actionButton(t("guardians.accept"), t("guardians.acceptLabel", { name: r.from }), "guardian-accept", { requestId: r.requestId },
        output, t("guardians.acceptedDone", { name: r.from })),
      actionButton(t("guardians.decline"), t("guardians.declineLabel", { name: r.from }), "guardian-decline", { requestId: r.requestId },
        output, t("guardians.declined", { name: r.from }))));
  }
  $("no-requests").hidden = requests.length > 0;
  clear($("guarded"));
  for (const g of guarding) {
    $("guarded").append(personItem(g.username, t(g.status === "ACCEPTED" ? "guardians.youGuard" : "guardians.pending"),
      actionButton(t("guardians.stop"), t("guardians.stopLabel", { name: g.username }), "guardian-remove", { username: g.username },
        output, t("guardians.removed", { name: g.username }))));
  }
  $("no-guarded").hidden = guarding.length > 0;
}

async function refresh() {
  const account = await callOperation(PLUGIN, "account-state", {});
  $("setup-section").hidden = account.setUp;
  for (const id of ["guardians-section", "trip-section", "places-section", "alerts-section"]) $(id).hidden = !account.setUp;
  if (account.setUp) {
    const now = await hostNow();
    try { await refreshGuardians(session.hub); } catch (error) { $("guardian-error").textContent = await refusalText(error); }
    await refreshTrip(await callOperation(PLUGIN, "trip-status", {}), now);
    await refreshPlaces(account.username);
    const { alerts } = await callOperation(PLUGIN, "alerts", {});
    clear($("alerts"));
    for (const alert of alerts) {
      $("alerts").append(el("li", { class: "alert" }, alertLine(alert, alert.due_at, now)));
    }
    $("no-alerts").hidden = alerts.length > 0;
  }
  document.body.dataset.ready = "true";
}

/** Loads the page again; a failure is said in the status line. */
async function load() {
  try {
    await refresh();
  } catch (error) {
    $("status").textContent = t("travel.loadFailed", { reason: await refusalText(error) });
  }
}

/** The traveller's own places (a guardian's device also holds those of whom they guard: not listed here). */
async function refreshPlaces(username) {
  const { places } = await callOperation(PLUGIN, "places", {});
  const mine = places.filter((p) => p.traveller === username);
  clear($("places"));
  for (const place of mine) {
    const remove = el("button", { type: "button", class: "secondary", "aria-label": t("places.removeLabel", { name: place.name }) }, t("places.remove"));
    remove.addEventListener("click", async () => {
      $("place-error").textContent = "";
      try {
        await callOperation(PLUGIN, "place-remove", { placeId: place.id });
        document.body.dataset.ready = "false";
        await load();
      } catch (error) { await showRefusal(error, null, $("place-error")); }
    });
    const told = place.notifyOn.map((event) => t(`places.notify.${event === "arrive" ? "arrive" : "leave"}`));
    const presence = ["inside", "outside"].includes(place.presence) ? place.presence : "unknown";
    $("places").append(el("tr", {}, el("td", {}, place.name), el("td", {}, distance(place.radius)), el("td", {}, list(told)),
      el("td", {}, t(`places.presence.${presence}`)), el("td", {}, remove)));
  }
  $("no-places").hidden = mine.length > 0;
}

/**
 * A number the person typed, for the module: "50.088" or "50,088" (a decimal comma, as Czech and
 * Slovak write it) as a number; anything else as typed, which the module refuses naming the field.
 */
function numberInput(text) {
  const value = String(text ?? "").trim();
  return /^[+-]?\d+([.,]\d+)?$/.test(value) ? Number(value.replace(",", ".")) : value;
}

/**
 * Sends a form: on success it is emptied, `action`'s answer (a sentence, if any) goes to the
 * status line, and the page loads again; a refusal is shown at the form as a sentence.
 */
function submit(form, output, action) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    output.textContent = "";
    for (const control of form.querySelectorAll("[aria-invalid]")) control.removeAttribute("aria-invalid");
    let said;
    try {
      said = await action(new FormData(form));
    } catch (error) {
      // A refused PIN is not kept in the field.
      for (const input of form.querySelectorAll("input[type=password]")) input.value = "";
      if (error instanceof Missing) {
        output.textContent = t(error.key);
        error.control.setAttribute("aria-invalid", "true");
        error.control.focus();
      } else {
        await showRefusal(error, form, output);
      }
      return;
    }
    form.reset();
    $("status").textContent = said || "";
    document.body.dataset.ready = "false";
    await load();
  });
}

/** The SOS's state after a press, a release or the PIN, as a sentence. */
function sosText(answer) {
  if (answer.aborted) return t("sos.state.IDLE");
  if (answer.state === "ALERTED" && answer.reportedSafeAt) return t("sos.reportedSafe");
  return ["ARMING", "HOLDING", "RELEASED", "SAFE", "ALERTED", "IDLE"].includes(answer.state) ? t(`sos.state.${answer.state}`) : t("sos.state.other");
}

/** The SOS button: pressed sends touch-down, released touch-up (the module times the 3 s hold).
 *  Released after the hold, the PIN dialog opens: the PIN says "safe", or "alert now". A keyboard
 *  holds it with Space or Enter. */
function wireSOS() {
  const button = $("sos");
  const dialog = $("sos-dialog");
  const send = async (operation) => {
    try {
      const answer = await callOperation(PLUGIN, operation, {});
      $("status").textContent = sosText(answer);
      if (answer.state === "RELEASED") {
        const seconds = Math.max(0, Math.round((Date.parse(answer.pinWindowEndsAt) - (await hostNow()).getTime()) / 1000));
        $("sos-dialog-text").textContent = t("sos.enterPin", { count: seconds });
        $("sos-error").textContent = "";
        if (!dialog.open) dialog.showModal();
      }
    } catch (error) { $("status").textContent = await refusalText(error); }
  };
  button.addEventListener("pointerdown", () => send("sos-touch-down"));
  button.addEventListener("pointerup", () => send("sos-touch-up"));
  button.addEventListener("contextmenu", (event) => event.preventDefault());  // a long press is the SOS, not a menu
  button.addEventListener("keydown", (event) => {
    if (event.key !== " " && event.key !== "Enter") return;
    event.preventDefault();
    if (!event.repeat) send("sos-touch-down");
  });
  button.addEventListener("keyup", (event) => {
    if (event.key !== " " && event.key !== "Enter") return;
    event.preventDefault();
    send("sos-touch-up");
  });
  const close = async (answer) => {
    dialog.close();
    $("status").textContent = sosText(answer);
    document.body.dataset.ready = "false";
    await load();
  };
  $("sos-pin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("sos-error").textContent = "";
    let answer;
    try { answer = await callOperation(PLUGIN, "sos-enter-pin", { pin: $("sos-pin").value }); } catch (error) {
      $("sos-pin").value = "";
      await showRefusal(error, $("sos-pin-form"), $("sos-error"));
      return;
    }
    $("sos-pin").value = "";
    await close(answer);
  });
  $("sos-alert-now").addEventListener("click", async () => {
    let answer;
    try { answer = await callOperation(PLUGIN, "sos-alert-now", {}); } catch (error) {
      await showRefusal(error, $("sos-pin-form"), $("sos-error"));
      return;
    }
    await close(answer);
  });
}

/** A photo goes as the raw request body (the host sniffs its type), its caption as a query parameter. */
async function uploadPhoto(form) {
  const file = form.get("photo");
  if (!(file instanceof File) || file.size === 0) throw new Missing("invalid.photo", $("photo"));
  const query = form.get("text") ? `?text=${encodeURIComponent(form.get("text"))}` : "";
  const response = await fetch(`/v1/plugins/${PLUGIN}/ops/trip-photo${query}`, {
    method: "POST", headers: authHeaders({ "Content-Type": file.type || "application/octet-stream" }), body: file, cache: "no-store",
    credentials: "same-origin",
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new APIError(response.status, answer.error?.code ?? `http_${response.status}`, answer.error?.message ?? response.statusText, answer.error?.field, undefined, answer.error?.reason);
  return answer.lat != null && answer.lon != null ? t("trip.photoAdded", { position: coordinates(answer.lat, answer.lon) }) : t("trip.photoAddedNoPosition");
}

/** Copies the live view's address (selected in its field as well, for a browser without clipboard access). */
async function copyLiveLink() {
  $("live-link").select();
  try { await navigator.clipboard.writeText($("live-link").value); $("status").textContent = t("trip.copied"); } catch {
    $("status").textContent = t("trip.copyManually");
  }
}

/** The trip form's input: a new destination by name and position, and the arrival time as an instant. */
function tripInput(form) {
  const name = String(form.get("name") ?? "").trim(), lat = String(form.get("lat") ?? "").trim(), lon = String(form.get("lon") ?? "").trim();
  // Nothing of the destination given: the module says a destination needs all three.
  const destination = name || lat || lon ? { name, lat: numberInput(lat), lon: numberInput(lon) } : {};
  const input = { destination };
  const eta = form.get("expectedArrivalAt");
  if (eta) input.expectedArrivalAt = new Date(eta).toISOString();  // the local time the person chose
  return input;
}

/** Who is signed in, and the device's hub (null: guardians cannot be reached). */
let session = { hub: null };

async function start() {
  const me = await startPage({ status: $("status") });
  if (!me) return;
  session = me;
  submit($("guardian-form"), $("guardian-error"), async (form) => {
    const username = String(form.get("username") ?? "").trim();
    await callOperation(PLUGIN, "guardian-add", { username });
    return t("guardians.asked", { name: username });
  });
  submit($("setup-form"), $("setup-error"), async (form) => {
    await callOperation(PLUGIN, "account-setup", { username: String(form.get("username") ?? "").trim(), pin: form.get("pin") });
    return t("setup.done");
  });
  submit($("start-form"), $("start-error"), async (form) => {
    await callOperation(PLUGIN, "trip-start", tripInput(form));
    return t("trip.started");
  });
  submit($("photo-form"), $("photo-error"), uploadPhoto);
  submit($("place-form"), $("place-error"), async (form) => {
    await callOperation(PLUGIN, "place-add", {
      name: form.get("name"), lat: numberInput(form.get("lat")), lon: numberInput(form.get("lon")), radius: numberInput(form.get("radius")),
    });
    return t("places.added");
  });
  $("copy-link").addEventListener("click", copyLiveLink);
  submit($("message-form"), $("message-error"), async (form) => {
    await callOperation(PLUGIN, "trip-message", { text: form.get("text") });
    return t("trip.messageSent");
  });
  submit($("end-form"), $("end-error"), async (form) => {
    await callOperation(PLUGIN, "trip-end", { pin: form.get("pin") });
    return t("trip.ended");
  });
  wireSOS();
  await load();
}

start();
