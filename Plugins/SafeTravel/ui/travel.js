// Safe travel's page for the traveller: set up (username, PIN), start a trip, see it on its route as
// an SVG (no map tiles: the route, the positions walked and the destination's arrival circle, in a
// local equirectangular projection), copy its live-view link, upload a photo, send a message, end it
// with the PIN, hold the SOS button (then the PIN in a dialog, or "alert now"), list and add places (geofences), and the alerts raised. It calls the module through the console's API client and the tab's token.

import { token, callOperation, authHeaders, APIError } from "/console/api.js";
import { el, clear } from "/console/dom.js";
import { svg, projection } from "./track-map.js";

const PLUGIN = "cz.tessera.safetravel";
const $ = (id) => document.getElementById(id);


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

async function refreshTrip(trip) {
  $("start-form").hidden = trip.active;
  $("active-trip").hidden = !trip.active;
  if (!trip.active) return;
  const eta = trip.expected_arrival_at ? `, expected by ${trip.expected_arrival_at}` : "";
  const distance = trip.distanceToDestination != null ? ` ${Math.round(trip.distanceToDestination)} m to go.` : "";
  const flags = [trip.arrived_at && "arrived", trip.eta_passed_at && "arrival time passed", trip.off_route_since && "off route"].filter(Boolean);
  $("trip-summary").textContent = `To ${trip.destination_name || "no destination"}${eta}.${distance}${flags.length ? ` (${flags.join(", ")})` : ""}`;
  $("live-link-box").hidden = !trip.liveLink;
  $("live-link").value = trip.liveLink ? new URL(trip.liveLink.path, location.origin).href : "";
  const { activities } = await callOperation(PLUGIN, "trip-activities", { tripId: trip.id });
  const positions = activities.filter((a) => a.lat != null && a.lon != null);
  drawTrack(trip, positions);
  clear($("positions"));
  for (const p of positions) $("positions").append(el("tr", {}, el("td", {}, p.created_at), el("td", {}, p.lat), el("td", {}, p.lon), el("td", {}, p.battery ?? "")));
}

async function refresh() {
  const account = await callOperation(PLUGIN, "account-state", {});
  $("setup-section").hidden = account.setUp;
  for (const id of ["trip-section", "places-section", "alerts-section"]) $(id).hidden = !account.setUp;
  if (account.setUp) {
    await refreshTrip(await callOperation(PLUGIN, "trip-status", {}));
    await refreshPlaces(account.username);
    const { alerts } = await callOperation(PLUGIN, "alerts", {});
    clear($("alerts"));
    for (const alert of alerts) $("alerts").append(el("li", { class: "alert" }, `${alert.due_at}: ${alert.summary}`));
  }
  document.body.dataset.ready = "true";
}

/** The traveller's own places (a guardian's device also holds those of whom they guard: not listed here). */
async function refreshPlaces(username) {
  const { places } = await callOperation(PLUGIN, "places", {});
  clear($("places"));
  for (const place of places.filter((p) => p.traveller === username)) {
    const remove = el("button", { type: "button", "aria-label": `Remove ${place.name}` }, "Remove");
    remove.addEventListener("click", async () => {
      try {
        await callOperation(PLUGIN, "place-remove", { placeId: place.id });
        document.body.dataset.ready = "false";
        await refresh();
      } catch (error) { $("place-error").textContent = error.message; }
    });
    $("places").append(el("tr", {}, el("td", {}, place.name), el("td", {}, String(place.radius)), el("td", {}, place.notifyOn.join(", ")),
      el("td", {}, place.presence), el("td", {}, remove)));
  }
}

function submit(form, errorBox, action) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    $(errorBox).textContent = "";
    try {
      await action(new FormData(form));
      form.reset();
      document.body.dataset.ready = "false";
      await refresh();
    } catch (error) {
      $(errorBox).textContent = error instanceof APIError ? error.message : String(error);
      // A refused PIN is not kept in the field.
      for (const input of form.querySelectorAll("input[type=password]")) input.value = "";
    }
  });
}

/** The SOS button: pressed sends touch-down, released touch-up (the module times the 3 s hold).
 *  Released after the hold, the PIN dialog opens: the PIN says "safe", or "alert now". */
function wireSOS() {
  const button = $("sos");
  const dialog = $("sos-dialog");
  const send = async (operation) => {
    try {
      const answer = await callOperation(PLUGIN, operation, {});
      $("status").textContent = `SOS: ${answer.state}`;
      if (answer.state === "RELEASED") {
        $("sos-dialog-text").textContent = `Enter your PIN before ${answer.pinWindowEndsAt}, or your guardians are alerted.`;
        $("sos-error").textContent = "";
        if (!dialog.open) dialog.showModal();
      }
    } catch (error) { $("status").textContent = error.message; }
  };
  button.addEventListener("pointerdown", () => send("sos-touch-down"));
  button.addEventListener("pointerup", () => send("sos-touch-up"));
  const close = async (answer) => {
    dialog.close();
    $("status").textContent = answer.state === "SAFE" ? "SOS: SAFE. Nobody was alerted." : `SOS: ${answer.state}`;
    document.body.dataset.ready = "false";
    await refresh();
  };
  $("sos-pin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try { await close(await callOperation(PLUGIN, "sos-enter-pin", { pin: $("sos-pin").value })); } catch (error) {
      $("sos-error").textContent = error instanceof APIError ? error.message : String(error);
    }
    $("sos-pin").value = "";
  });
  $("sos-alert-now").addEventListener("click", async () => {
    try { await close(await callOperation(PLUGIN, "sos-alert-now", {})); } catch (error) { $("sos-error").textContent = error.message; }
  });
}

/** A photo goes as the raw request body (the host sniffs its type), its caption as a query parameter. */
async function uploadPhoto(form) {
  const file = form.get("photo");
  const query = form.get("text") ? `?text=${encodeURIComponent(form.get("text"))}` : "";
  const response = await fetch(`/v1/plugins/${PLUGIN}/ops/trip-photo${query}`, {
    method: "POST", headers: authHeaders({ "Content-Type": file.type || "application/octet-stream" }), body: file, cache: "no-store",
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new APIError(response.status, answer.error?.code ?? `http_${response.status}`, answer.error?.message ?? response.statusText, answer.error?.field);
  $("status").textContent = `Photo added at ${answer.lat ?? "no position"}, ${answer.lon ?? ""}.`;
}

/** Copies the live view's address (selected in its field as well, for a browser without clipboard access). */
async function copyLiveLink() {
  $("live-link").select();
  try { await navigator.clipboard.writeText($("live-link").value); $("status").textContent = "Link copied."; } catch {
    $("status").textContent = "Select the link and copy it.";
  }
}

async function start() {
  if (!token()) {
    $("status").append("Sign in on the ", el("a", { href: "/" }, "Tessera console"), " first; this page uses the same token.");
    return;
  }
  submit($("setup-form"), "status", (form) => callOperation(PLUGIN, "account-setup", { username: form.get("username"), pin: form.get("pin") }));
  submit($("start-form"), "start-error", (form) => {
    const input = { destination: { name: form.get("name"), lat: Number(form.get("lat")), lon: Number(form.get("lon")) } };
    if (form.get("eta")) input.expectedArrivalAt = form.get("eta");
    return callOperation(PLUGIN, "trip-start", input);
  });
  submit($("photo-form"), "status", uploadPhoto);
  submit($("place-form"), "place-error", (form) => callOperation(PLUGIN, "place-add", {
    name: form.get("name"), lat: Number(form.get("lat")), lon: Number(form.get("lon")), radius: Number(form.get("radius")),
  }));
  $("copy-link").addEventListener("click", copyLiveLink);
  submit($("message-form"), "status", (form) => callOperation(PLUGIN, "trip-message", { text: form.get("text") }));
  submit($("end-form"), "end-error", (form) => callOperation(PLUGIN, "trip-end", { pin: form.get("pin") }));
  wireSOS();
  try { await refresh(); } catch (error) { $("status").textContent = `Could not load: ${error.message}`; }
}

start();
