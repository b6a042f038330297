// The trip on a map with tiles, where the deployment names a tile server (`http.mapTiles`, which
// GET /v1/session passes on only when the host has Leaflet to serve): Leaflet from the host's copy
// of Debian's libjs-leaflet (/console/vendor/leaflet/, never a CDN), loaded on first use. The
// route dashed, the positions walked in red, the destination's 100 m arrival circle in green, the
// last position as a dot; the view fits them all. Without a tile server the page draws its own
// SVG instead (travel.js, drawTrack).

let loading = null;
let map = null;
let layer = null;

/** Leaflet's `L`, once its script and styles are in the page. */
function loadLeaflet() {
  if (window.L) return Promise.resolve(window.L);
  loading ??= new Promise((resolve, reject) => {
    const styles = document.createElement("link");
    styles.rel = "stylesheet";
    styles.href = "/console/vendor/leaflet/leaflet.css";
    document.head.append(styles);
    const script = document.createElement("script");
    script.src = "/console/vendor/leaflet/leaflet.js";
    script.addEventListener("load", () => resolve(window.L));
    script.addEventListener("error", () => reject(new Error("Leaflet did not load")));
    document.head.append(script);
  });
  return loading;
}

/** The attribution as text: Leaflet puts it in as HTML, and the deployment's text is not markup. */
function escaped(text) {
  const span = document.createElement("span");
  span.textContent = text;
  return span.innerHTML;
}

/**
 * Draws `route` ([[lat, lon]]), `walked` ([[lat, lon]]) and `destination` ({lat, lon} or null) on
 * the map in `container`, made the first time with `tiles` ({url, attribution}).
 */
export async function drawOnMap(container, tiles, { route, walked, destination }) {
  const L = await loadLeaflet();
  if (!map) {
    map = L.map(container, { scrollWheelZoom: false });
    L.tileLayer(tiles.url, { attribution: escaped(tiles.attribution), maxZoom: 19 }).addTo(map);
    layer = L.layerGroup().addTo(map);
  }
  layer.clearLayers();
  const points = [...route, ...walked, ...(destination ? [[destination.lat, destination.lon]] : [])];
  if (route.length >= 2) L.polyline(route, { className: "route", color: "#6a7fb0", weight: 4, dashArray: "8 6" }).addTo(layer);
  if (walked.length >= 1) L.polyline(walked, { className: "walked", color: "#c0392b", weight: 3 }).addTo(layer);
  if (destination) L.circle([destination.lat, destination.lon], { className: "destination", radius: 100, color: "#2e7d32", weight: 2, fill: false }).addTo(layer);
  if (walked.length) L.circleMarker(walked.at(-1), { className: "last", radius: 6, color: "#c0392b", fillOpacity: 1 }).addTo(layer);
  if (points.length === 1) map.setView(points[0], 15);
  else if (points.length > 1) map.fitBounds(L.latLngBounds(points), { padding: [24, 24], maxZoom: 17 });
  container.dataset.drawn = "true";
}
