import Foundation

/// One page being drawn: text, lines, rectangles and paths, recorded as a PDF content stream.
///
/// Coordinates are in points from the page's top-left corner, y downwards (the writer turns them
/// into PDF's bottom-up space). Text is placed by its baseline.
public struct PDFPage: Sendable {
    /// The page's size.
    public let size: PDFPageSize
    private(set) var content: [UInt8] = []
    private(set) var fonts: Set<PDFFontResource> = []

    init(size: PDFPageSize) {
        self.size = size
    }

    /// Writes one line of `text` with its baseline at `y`; `alignment` places it against `x`.
    /// Line breaks and tabs become spaces (see `textBlock` for wrapped text).
    public mutating func text(_ text: String, x: Double, y: Double, font: PDFFont = .helvetica, size: Double = 11,
                              color: PDFColor = .black, alignment: PDFTextAlignment = .left) {
        let runs = PDFTextEncoding.runs(text)
        guard !runs.isEmpty else { return }
        let width = font.width(of: text, size: size)
        let left = switch alignment {
        case .left: x
        case .center: x - width / 2
        case .right: x - width
        }
        var ops = "BT \(fill(color)) \(number(left)) \(number(self.size.height - y)) Td"
        for run in runs {
            let resource = PDFFontResource(font: font, encoding: run.encoding)
            fonts.insert(resource)
            ops += " /\(resource.name) \(number(size)) Tf " + PDFLiteral.string(run.bytes) + " Tj"
        }
        append(ops + " ET")
    }

    /// Writes `text` wrapped at word boundaries to fit `width`, first baseline at `y`; a line break in
    /// `text` starts a new line. Returns the baseline y of the next line after it.
    @discardableResult
    public mutating func textBlock(_ text: String, x: Double, y: Double, width: Double, font: PDFFont = .helvetica,
                                   size: Double = 11, lineHeight: Double? = nil, color: PDFColor = .black) -> Double {
        var baseline = y
        for line in PDFTextWrapping.lines(text, width: width, font: font, size: size) {
            self.text(line, x: x, y: baseline, font: font, size: size, color: color)
            baseline += lineHeight ?? size * 1.25
        }
        return baseline
    }

    /// A straight line.
    public mutating func line(from start: PDFPoint, to end: PDFPoint, width: Double = 1, color: PDFColor = .black, dash: [Double] = []) {
        polyline([start, end], width: width, color: color, dash: dash)
    }

    /// Connected straight segments through `points`.
    public mutating func polyline(_ points: [PDFPoint], width: Double = 1, color: PDFColor = .black, dash: [Double] = []) {
        guard let first = points.first, points.count > 1 else { return }
        var ops = "q \(stroke(color)) \(number(width)) w [\(dash.map(number).joined(separator: " "))] 0 d 1 j \(point(first)) m"
        for next in points.dropFirst() { ops += " \(point(next)) l" }
        append(ops + " S Q")
    }

    /// A rectangle, filled and/or stroked (neither: nothing is drawn).
    public mutating func rectangle(_ rect: PDFRect, fill fillColor: PDFColor? = nil, stroke strokeColor: PDFColor? = .black, lineWidth: Double = 1) {
        let paint = switch (fillColor, strokeColor) {
        case (nil, nil): ""
        case (.some, nil): "f"
        case (nil, .some): "S"
        case (.some, .some): "B"
        }
        guard !paint.isEmpty else { return }
        var ops = "q \(number(lineWidth)) w"
        if let fillColor { ops += " \(fill(fillColor))" }
        if let strokeColor { ops += " \(stroke(strokeColor))" }
        ops += " \(number(rect.x)) \(number(size.height - rect.maxY)) \(number(rect.width)) \(number(rect.height)) re \(paint) Q"
        append(ops)
    }

    /// A filled circle (four Bézier arcs), e.g. a measurement on a chart.
    public mutating func circle(center: PDFPoint, radius: Double, fill fillColor: PDFColor = .black) {
        let k = 0.5523 * radius  // the control-point distance that makes a quarter arc round
        let cx = center.x, cy = size.height - center.y
        var ops = "q \(fill(fillColor)) \(number(cx + radius)) \(number(cy)) m"
        let arcs: [(Double, Double, Double, Double, Double, Double)] = [
            (cx + radius, cy + k, cx + k, cy + radius, cx, cy + radius),
            (cx - k, cy + radius, cx - radius, cy + k, cx - radius, cy),
            (cx - radius, cy - k, cx - k, cy - radius, cx, cy - radius),
            (cx + k, cy - radius, cx + radius, cy - k, cx + radius, cy),
        ]
        for a in arcs { ops += " \(number(a.0)) \(number(a.1)) \(number(a.2)) \(number(a.3)) \(number(a.4)) \(number(a.5)) c" }
        append(ops + " f Q")
    }

    private mutating func append(_ ops: String) {
        content.append(contentsOf: Array(ops.utf8))
        content.append(0x0A)
    }

    private func point(_ p: PDFPoint) -> String { "\(number(p.x)) \(number(size.height - p.y))" }
    private func fill(_ c: PDFColor) -> String { "\(number(c.red)) \(number(c.green)) \(number(c.blue)) rg" }
    private func stroke(_ c: PDFColor) -> String { "\(number(c.red)) \(number(c.green)) \(number(c.blue)) RG" }
    private func number(_ value: Double) -> String { PDFLiteral.number(value) }
}
