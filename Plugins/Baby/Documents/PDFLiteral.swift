import Foundation

/// PDF's literal syntax: numbers and strings as they appear in content streams and objects.
enum PDFLiteral {
    /// A real number with at most three decimals and no exponent (PDF has no exponent syntax).
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// A literal string `( … )`: backslash and parentheses escaped, bytes outside printable ASCII
    /// written as three-digit octal escapes, so the stream stays 7-bit.
    static func string(_ bytes: [UInt8]) -> String {
        var out = "("
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\\"), UInt8(ascii: "("), UInt8(ascii: ")"):
                out += "\\" + String(UnicodeScalar(byte))
            case 0x20...0x7E:
                out += String(UnicodeScalar(byte))
            default:
                out += "\\" + String(byte, radix: 8).leftPadded(to: 3)
            }
        }
        return out + ")"
    }

    /// A text string for the document information dictionary: UTF-16BE with a byte-order mark, hex.
    static func textString(_ text: String) -> String {
        "<FEFF" + text.utf16.map { String(format: "%04X", $0) }.joined() + ">"
    }
}

private extension String {
    func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
