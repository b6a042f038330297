/// Breaks text into lines that fit a width, at spaces; a word longer than the width is cut.
enum PDFTextWrapping {
    static func lines(_ text: String, width: Double, font: PDFFont, size: Double) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var current = ""
            for word in paragraph.split(separator: " ") {
                let candidate = current.isEmpty ? String(word) : current + " " + word
                if font.width(of: candidate, size: size) <= width {
                    current = candidate
                    continue
                }
                if !current.isEmpty { lines.append(current) }
                current = String(word)
                while font.width(of: current, size: size) > width, current.count > 1 {
                    let cut = fittingPrefix(current, width: width, font: font, size: size)
                    lines.append(String(current.prefix(cut)))
                    current = String(current.dropFirst(cut))
                }
            }
            lines.append(current)
        }
        return lines
    }

    /// How many characters of `text` fit in `width` (at least one, so wrapping always advances).
    static func fittingPrefix(_ text: String, width: Double, font: PDFFont, size: Double) -> Int {
        var count = 0
        var used = 0.0
        for character in text {
            used += font.width(of: String(character), size: size)
            if used > width { break }
            count += 1
        }
        return max(1, count)
    }
}
