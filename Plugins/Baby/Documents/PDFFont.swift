/// The standard Helvetica faces a PDF viewer always has (no font is embedded).
public enum PDFFont: String, CaseIterable, Sendable, Hashable {
    /// Helvetica.
    case helvetica = "Helvetica"
    /// Helvetica-Bold.
    case helveticaBold = "Helvetica-Bold"
    /// Helvetica-Oblique.
    case helveticaOblique = "Helvetica-Oblique"
    /// Helvetica-BoldOblique.
    case helveticaBoldOblique = "Helvetica-BoldOblique"

    var isBold: Bool { self == .helveticaBold || self == .helveticaBoldOblique }

    /// The width of `text` set in this font at `size` points, in points.
    public func width(of text: String, size: Double) -> Double {
        PDFTextEncoding.runs(text).reduce(0) { sum, run in
            sum + run.bytes.reduce(0) { $0 + Double(glyphWidth(run.encoding, $1)) }
        } * size / 1000
    }

    func glyphWidth(_ encoding: PDFTextEncoding.Encoding, _ code: UInt8) -> UInt16 {
        switch encoding {
        case .winAnsi:
            return (isBold ? HelveticaMetrics.winAnsiBold : HelveticaMetrics.winAnsiRegular)[Int(code)]
        case .supplement:
            let glyph = HelveticaMetrics.supplement[Int(code - HelveticaMetrics.supplementFirstCode)]
            return isBold ? glyph.bold : glyph.regular
        }
    }
}

/// A font resource of a page: one face in one of the two encodings.
struct PDFFontResource: Hashable, Comparable, Sendable {
    let font: PDFFont
    let encoding: PDFTextEncoding.Encoding

    /// The resource name used in content streams, e.g. `/F2s`.
    var name: String {
        "F\(PDFFont.allCases.firstIndex(of: font)! + 1)\(encoding == .winAnsi ? "w" : "s")"
    }

    static func < (a: Self, b: Self) -> Bool { a.name < b.name }
}
