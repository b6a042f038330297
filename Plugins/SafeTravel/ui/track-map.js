// The drawing both safe travel pages share: an SVG element maker and the projection of
// positions into the 400 × 300 track box (no map tiles: a plain grid under the lines).

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element with its attributes. */
export function svg(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

/** For `points` ([lat, lon] pairs, at least one): `at` places a position in the box, fitted into
 *  360 × 260 and centred, the same scale on both axes (a local equirectangular projection:
 *  longitude scaled by the cosine of the mean latitude); `line` draws a list of positions; `scale` is box units per degree of latitude. */
export function projection(points) {
  const midLat = points.reduce((sum, p) => sum + p[0], 0) / points.length;
  const k = Math.cos((midLat * Math.PI) / 180);  // metres per degree of longitude shrink with latitude
  const xs = points.map((p) => p[1] * k), ys = points.map((p) => p[0]);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const scale = Math.min(360 / Math.max(maxX - minX, 1e-5), 260 / Math.max(maxY - minY, 1e-5));
  const [midX, midY] = [(minX + maxX) / 2, (minY + maxY) / 2];
  const at = ([lat, lon]) => [200 + (lon * k - midX) * scale, 150 - (lat - midY) * scale];
  // Presentation attributes as well as classes, so the drawing reads the same without the style sheet.
  const line = (list, cls, stroke, width, dash) => svg("polyline", {
    class: cls, fill: "none", stroke, "stroke-width": width, "stroke-dasharray": dash,
    points: list.map((p) => at(p).map((v) => v.toFixed(1)).join(",")).join(" "),
  });
  return { at, line, scale };
}
