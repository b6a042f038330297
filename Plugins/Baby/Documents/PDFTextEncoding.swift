import Foundation

/// How text becomes bytes for the standard fonts.
///
/// Every character WinAnsiEncoding holds is written in it (all of ASCII and Latin-1, and from
/// Czech and Slovak: á é í ó ú ý ä ô š ž and their capitals). The Central European letters it
/// lacks (č ď ě ň ř ť ů ĺ ľ ŕ, Polish ą ć ę ł ń ś ź ż, Hungarian ő ű, and capitals) exist in the
/// standard fonts' glyph sets, so they are written through a second resource of the same face
/// whose encoding is WinAnsi with /Differences naming those glyphs. Anything else falls back: a
/// letter with a diacritic neither holds loses the diacritic (ǎ → a), and the rest becomes "?".
enum PDFTextEncoding {
    /// Which of the two encodings a run of bytes is in.
    enum Encoding: Hashable, Sendable {
        case winAnsi
        case supplement
    }

    /// Bytes of one encoding, in order.
    struct Run: Equatable {
        let encoding: Encoding
        var bytes: [UInt8]
    }

    private static let supplementCodes: [UInt32: UInt8] = {
        var codes: [UInt32: UInt8] = [:]
        for (offset, glyph) in HelveticaMetrics.supplement.enumerated() {
            codes[glyph.scalar] = HelveticaMetrics.supplementFirstCode + UInt8(offset)
        }
        return codes
    }()

    /// `text` as runs of bytes, each run in one encoding.
    static func runs(_ text: String) -> [Run] {
        var runs: [Run] = []
        for scalar in text.unicodeScalars {
            for (encoding, byte) in encode(scalar) {
                if runs.last?.encoding == encoding {
                    runs[runs.count - 1].bytes.append(byte)
                } else {
                    runs.append(Run(encoding: encoding, bytes: [byte]))
                }
            }
        }
        return runs
    }

    /// One scalar as bytes: itself if either encoding holds it, else its fallback.
    static func encode(_ scalar: Unicode.Scalar) -> [(Encoding, UInt8)] {
        if let direct = encodeDirectly(scalar) { return [direct] }
        if let replacement = replacements[scalar.value] { return [(.winAnsi, replacement)] }
        // Decompose (NFD) and keep the base letters the fonts have, without the marks they lack.
        let decomposed = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars
        let bases = decomposed.filter { !(0x0300...0x036F).contains($0.value) }
        if decomposed.count > 1, !bases.isEmpty, let encoded = try? bases.map({ try encodeOrThrow($0) }) {
            return encoded
        }
        return [(.winAnsi, UInt8(ascii: "?"))]
    }

    private static func encodeDirectly(_ scalar: Unicode.Scalar) -> (Encoding, UInt8)? {
        let value = scalar.value
        if (0x20...0x7E).contains(value) || (0xA0...0xFF).contains(value) { return (.winAnsi, UInt8(value)) }
        if let code = HelveticaMetrics.winAnsiHigh[value] { return (.winAnsi, code) }
        if let code = supplementCodes[value] { return (.supplement, code) }
        return nil
    }

    private struct NotEncodable: Error {}

    private static func encodeOrThrow(_ scalar: Unicode.Scalar) throws -> (Encoding, UInt8) {
        guard let direct = encodeDirectly(scalar) else { throw NotEncodable() }
        return direct
    }

    /// Characters with a close WinAnsi stand-in: white space as a space, the minus sign as a hyphen.
    private static let replacements: [UInt32: UInt8] = [
        0x09: 0x20, 0x0A: 0x20, 0x0D: 0x20, 0x2002: 0x20, 0x2003: 0x20, 0x2009: 0x20, 0x202F: 0x20,
        0x2212: 0x2D, 0x2010: 0x2D, 0x2011: 0x2D,
    ]
}
