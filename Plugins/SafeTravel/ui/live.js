// Safe travel's live view for a guardian: one trip (or one SOS outside a trip), read-only, opened from the link an alert
// carries (live.html#<token>). The token is the only credential: it stays in the fragment (never
// sent as a URL to a server, never in a Referer) and is sent only in the path of the capability
// link GET /v1/links/cz.tessera.safetravel/live-view/<token> (docs/http.md). No bearer token, no
// sign-in (whoever holds the link may see it), no external tiles or scripts: the track is drawn as
// SVG on a plain grid, refreshed every 15 s. In the person's language (ui/messages/); times are
// relative to the host's clock, which the view carries (`now`).

import { el, clear } from "/console/dom.js";
import { startLanguage, t } from "/console/i18n.js";
import { dateTime, time, relative, coordinates } from "/console/format.js";
import { svg, projection } from "./track-map.js";
import { percent, alertLine } from "./travel-common.js";

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

/** What the view is about, in sentences: an SOS's press, release and state, or the trip's
 *  destination, arrival time and state (a link of an SOS pressed outside a trip, or of a trip). */
function summary(view) {
  const now = view.now;
  const when = (value) => ({ time: dateTime(value), relative: relative(value, now) });
  if (view.kind === "sos") {
    const parts = [view.releasedAt
      ? t("live.sosReleased", { pressed: dateTime(view.pressedAt), released: dateTime(view.releasedAt) })
      : t("live.sosHeld", { pressed: dateTime(view.pressedAt) })];
    if (["HOLDING", "RELEASED", "SAFE", "ALERTED"].includes(view.state)) parts.push(t(`live.sosState.${view.state}`));
    if (view.reportedSafeAt) parts.push(t("live.reportedSafe", when(view.reportedSafeAt)));
    return parts.join(" ");
  }
  const parts = [view.destination ? t("live.tripTo", { destination: view.destination.name }) : t("live.tripNoDestination")];
  if (view.expectedArrivalAt) parts.push(t("trip.expected", when(view.expectedArrivalAt)));
  if (view.state === "ACTIVE") parts.push(view.arrivedAt ? t("live.arrived", when(view.arrivedAt)) : t("live.onTheWay"));
  else parts.push(view.endedAt ? t("live.endedAt", when(view.endedAt)) : t("live.ended"));
  return parts.join(" ");
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
    list.append(el("li", {}, el("figure", {},
      el("img", { class: "thumbnail", src: source, alt: t("live.photoAlt", { time: dateTime(photo.at) }) }),
      el("figcaption", {}, el("time", { datetime: photo.at }, dateTime(photo.at))))));
  }
}

function show(view) {
  $("view").hidden = false;
  $("view-heading").textContent = t(view.kind === "sos" ? "live.headingSOS" : "live.headingTrip", { traveller: view.traveller });
  $("summary").textContent = summary(view);
  if (view.last) {
    const params = { position: coordinates(view.last.lat, view.last.lon), relative: relative(view.last.at, view.now), time: dateTime(view.last.at) };
    $("last").textContent = view.battery != null ? t("live.lastWithBattery", { ...params, battery: percent(view.battery) }) : t("live.last", params);
  } else {
    $("last").textContent = t("live.noPosition");
  }
  clear($("alerts"));
  for (const alert of view.alerts) {
    const line = alertLine({ kind: alert.kind, traveller: view.traveller }, alert.dueAt, view.now);
    $("alerts").append(el("li", { class: alert.acknowledged ? "" : "alert" }, alert.acknowledged ? t("live.acknowledged", { alert: line }) : line));
  }
  drawTrack(view);
  const rows = $("positions").tBodies[0];
  clear(rows);
  for (const p of view.track) {
    rows.append(el("tr", {}, el("td", {}, el("time", { datetime: p.at }, dateTime(p.at))), el("td", {}, coordinates(p.lat, p.lon))));
  }
  $("expiry").textContent = t("live.expires", { time: dateTime(view.linkExpiresAt), relative: relative(view.linkExpiresAt, view.now) });
  $("status").textContent = t("live.updated", { time: time(view.now) });
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
    console.warn(error);
    $("status").textContent = t("live.retrying");
  }
  setTimeout(refresh, REFRESH_MS);
}

/** Expired, revoked or unknown: the host does not say which, and the page shows nothing of the trip. */
function gone() {
  $("view").hidden = true;
  photoSources.clear();
  $("status").textContent = t("live.gone");
}

/** No sign-in here: the link is the credential. Only the language, then the view. */
async function start() {
  await startLanguage([new URL("messages", location.href).pathname]);
  await refresh();
}

start();
