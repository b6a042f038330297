// Safe travel's live view for a guardian: one trip (or one SOS outside a trip), read-only, opened from the link an alert
// carries (live.html#<token>). The token is the only credential: it stays in the fragment (never
// sent as a URL to a server, never in a Referer) and is sent only in the path of the capability
// link GET /v1/links/cz.tessera.safetravel/live-view/<token> (docs/http.md). No bearer token, no
// external tiles or scripts: the track is drawn as SVG on a plain grid, refreshed every 15 s.

import { el, clear } from "/console/dom.js";
import { svg, projection } from "./track-map.js";

const REFRESH_MS = 15000;
const $ = (id) => document.getElementById(id);
const token = decodeURIComponent(location.hash.slice(1));


/** A plain grid every 40 units, under everything else. */
function drawGrid(box) {
  for (let x = 0; x <= 400; x += 40) box.append(svg("line", { class: "grid", x1: x, y1: 0, x2: x, y2: 300, stroke: "#d8d2c4", "stroke-width": 1 }));
  for (let y = 0; y <= 300; y += 40) box.append(svg("line", { class: "grid", x1: 0, y1: y, x2: 400, y2: y, stroke: "#d8d2c4", "stroke-width": 1 }));
}

/** The route, the track, the destination, the photos and the last position, scaled to fit
 *  (a local equirectangular projection: longitude scaled by the cosine of the mean latitude). */
function drawTrack(view) {
  const box = $("track");
  for (const node of [...box.children]) if (node.tagName !== "title") node.remove();
  drawGrid(box);
  const track = view.track.map((p) => [p.lat, p.lon]);
  // The newest fix, when it is newer than the last position recorded on the trip (at most one a minute).
  const end = track.at(-1);
  if (view.last && !(end && end[0] === view.last.lat && end[1] === view.last.lon)) track.push([view.last.lat, view.last.lon]);
  const points = [...view.route, ...track, ...view.photos.filter((p) => p.lat != null).map((p) => [p.lat, p.lon])];
  if (view.destination) points.push([view.destination.lat, view.destination.lon]);
  if (points.length === 0) return;
  const { at, line, scale } = projection(points);
  if (view.route.length >= 2) box.append(line(view.route, "route", "#6a7fb0", 4, "8 6"));
  if (track.length >= 1) box.append(line(track, "walked", "#c0392b", 3, "none"));
  if (view.destination) {
    const [x, y] = at([view.destination.lat, view.destination.lon]);
    const radius = Math.max(3, (view.destination.radius / 111320) * scale);
    box.append(svg("circle", { class: "destination", fill: "none", stroke: "#2e7d32", "stroke-width": 2, cx: x.toFixed(1), cy: y.toFixed(1), r: radius.toFixed(1) }));
  }
  for (const photo of view.photos.filter((p) => p.lat != null)) {
    const [x, y] = at([photo.lat, photo.lon]);
    box.append(svg("rect", { class: "photo", fill: "#f0b400", stroke: "#333", x: (x - 4).toFixed(1), y: (y - 4).toFixed(1), width: 8, height: 8 }));
  }
  if (track.length) {
    const [x, y] = at(track.at(-1));
    box.append(svg("circle", { class: "last", fill: "#c0392b", cx: x.toFixed(1), cy: y.toFixed(1), r: 5 }));
  }
}

/** A trip's summary line, or an SOS's (a link of an SOS pressed outside a trip). */
function summary(view) {
  if (view.kind === "sos") {
    const safe = view.state === "SAFE" || view.reportedSafeAt ? `, reported safe${view.reportedSafeAt ? ` at ${view.reportedSafeAt}` : ""}` : "";
    return `SOS pressed at ${view.pressedAt}${view.releasedAt ? `, released at ${view.releasedAt}` : ", button held"}: ${view.state.toLowerCase()}${safe}.`;
  }
  const to = view.destination ? ` to ${view.destination.name}` : "";
  const eta = view.expectedArrivalAt ? `, expected by ${view.expectedArrivalAt}` : "";
  const state = view.state === "ACTIVE" ? (view.arrivedAt ? "arrived" : "on the way") : "ended";
  return `Trip${to}${eta}: ${state}.`;
}

// Photos already fetched, by their token: a refresh every 15 s asks only for new ones.
const photoSources = new Map();

/** The trip's photos as images, each fetched once through its own capability link
 *  (GET /v1/links/cz.tessera.safetravel/live-photo/<photo token>) and sized by CSS. */
async function showPhotos(photos) {
  const list = $("photos");
  $("photos-section").hidden = photos.length === 0;
  for (const photo of photos) {
    if (!photo.photo || photoSources.has(photo.photo)) continue;
    const response = await fetch(`/v1/links/cz.tessera.safetravel/live-photo/${encodeURIComponent(photo.photo)}`, { cache: "no-store", referrerPolicy: "no-referrer" });
    if (!response.ok) continue;
    const body = await response.json();
    photoSources.set(photo.photo, `data:${body.mediaType};base64,${body.data}`);
  }
  clear(list);
  for (const photo of photos) {
    const source = photoSources.get(photo.photo);
    if (!source) continue;
    list.append(el("li", {}, el("figure", {}, el("img", { class: "thumbnail", src: source, alt: `Photo taken at ${photo.at}` }),
      el("figcaption", {}, photo.at))));
  }
}

function show(view) {
  $("view").hidden = false;
  $("view-kind").textContent = view.kind === "sos" ? "SOS" : "Trip";
  $("traveller").textContent = view.traveller;
  $("summary").textContent = summary(view);
  $("last").textContent = view.last
    ? `Last position at ${view.last.at}${view.battery != null ? `, battery ${view.battery} %` : ""}.`
    : "No position yet.";
  clear($("alerts"));
  for (const alert of view.alerts) {
    $("alerts").append(el("li", { class: "alert" }, `${alert.kind} at ${alert.dueAt}${alert.acknowledged ? " (acknowledged)" : ""}`));
  }
  drawTrack(view);
  const rows = $("positions").tBodies[0];
  clear(rows);
  for (const p of view.track) rows.append(el("tr", {}, el("td", {}, p.at), el("td", {}, String(p.lat)), el("td", {}, String(p.lon))));
  $("expiry").textContent = `This link works until ${view.linkExpiresAt}.`;
  $("status").textContent = `Updated ${view.now}.`;
  return showPhotos(view.photos);
}

async function refresh() {
  if (!/^[A-Za-z0-9_-]{32}$/.test(token)) return gone();
  try {
    const response = await fetch(`/v1/links/cz.tessera.safetravel/live-view/${encodeURIComponent(token)}`, { cache: "no-store", referrerPolicy: "no-referrer" });
    if (response.status === 404) return gone();
    if (!response.ok) throw new Error(`the host answered ${response.status}`);
    await show(await response.json());
  } catch (error) {
    $("status").textContent = `Could not refresh: ${error.message}. Trying again.`;
  }
  setTimeout(refresh, REFRESH_MS);
}

/** Expired, revoked or unknown: the host does not say which, and the page shows nothing of the trip. */
function gone() {
  $("view").hidden = true;
  photoSources.clear();
  $("status").textContent = "This live view is not available: the link has expired or was revoked.";
}

refresh();
