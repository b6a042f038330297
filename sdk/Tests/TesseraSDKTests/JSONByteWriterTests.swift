import Testing
@_spi(TesseraHost) import TesseraSDK

// `serialized()` writes bytes now (one writer for the SDK and the process tier's frames). These
// tests hold it to the text the previous writer produced, which appended scalar by scalar into a
// `String`: that writer is kept below, verbatim, as the reference.
@Suite struct JSONByteWriterTests {
    static let strings: [String] = [
        "", "plain ascii", "quote \" and backslash \\ and slash /", "\n\r\t", "\u{0}\u{1}\u{7}\u{8}\u{b}\u{c}\u{1f}\u{7f}",
        "é, ß, 中文, Ελληνικά", "emoji 😀👩‍👩‍👧 and flags 🇫🇷", "mixed\u{1}é\"😀\\\n end", "\u{2028}\u{2029}\u{feff}",
        String(repeating: "long run without escapes ", count: 200), String(repeating: "\"", count: 50),
    ]

    static let numbers: [Double] = [
        0, -0.0, 1, -1, 0.1, -2.5, 1e300, -1e300, 1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 123456789012345.0,
        999999999999999.0, 1e15, -1e15, 1e16, 3.141592653589793, 2.0 / 3.0, 1e21, .infinity, -.infinity, .nan,
    ]

    static let integers: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, 12550, Int64(Int32.max), Int64(Int32.min), .max, .min, .max - 1, .min + 1]

    static var values: [JSONValue] {
        var all: [JSONValue] = [.null, true, false, [], [:]]
        all += strings.map(JSONValue.string) + numbers.map(JSONValue.number) + integers.map(JSONValue.integer)
        all.append(.array(all))
        var object: [String: JSONValue] = [:]
        for (i, s) in strings.enumerated() { object[s] = all[i % all.count] }
        object["nested"] = ["a": [1, 2.5, ["b": ["c": nil, "é": "😀"]]], "z": [[], [:], [[]]]]
        all.append(.object(object))
        all.append(["call": 7, "method": "operation", "params": ["operation": "echo", "input": ["amount": 12550, "tags": ["food", "cash"]]]])
        return all
    }

    @Test func compactTextIsByteForByteThePreviousWritersOnManyValues() {
        for value in Self.values {
            let reference = ReferenceWriter.text(value, indent: nil)
            #expect(value.serialized() == reference)
            #expect(Array(value.serialized().utf8) == Array(reference.utf8))
            var bytes: [UInt8] = []
            value.appendSerialized(to: &bytes)
            #expect(bytes == Array(reference.utf8), "\(reference.prefix(80))")
        }
    }

    @Test func prettyTextIsThePreviousWritersOnManyValues() {
        for value in Self.values {
            #expect(value.prettySerialized() == ReferenceWriter.text(value, indent: "  "))
        }
    }

    @Test func appendingKeepsWhatTheBufferHeld() {
        var bytes: [UInt8] = [1, 2, 3, 4]
        let value: JSONValue = ["a": "b"]
        value.appendSerialized(to: &bytes)
        #expect(bytes == [1, 2, 3, 4] + Array(#"{"a":"b"}"#.utf8))
    }

    /// The eight-bytes-at-a-time scan says what a byte-by-byte one says: for every byte value, at
    /// every position of texts of 1 to 24 bytes (both sides of a word's edge and the tail), among
    /// bytes that need no escaping.
    @Test func theEscapeScanFindsEveryByteThatNeedsEscapingWhereverItIs() {
        let filler = UInt8(ascii: "a")
        for length in 1...24 {
            for position in 0..<length {
                for value in UInt8(0)...UInt8(0x7F) {
                    var bytes = [UInt8](repeating: filler, count: length)
                    bytes[position] = value
                    let expected = value < 0x20 || value == UInt8(ascii: "\"") || value == UInt8(ascii: "\\")
                    let found = bytes.withUnsafeBufferPointer { JSONValue.needsEscaping($0) }
                    #expect(found == expected, "byte \(value) at \(position) of \(length)")
                }
            }
        }
        // Bytes at and above 0x80 (UTF-8 of other scripts) need none, next to ones just below a limit.
        let high = Array("žluťoučký kůň 🐎 !#[]~".utf8) + [0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x80, 0xFF]
        #expect(!high.withUnsafeBufferPointer { JSONValue.needsEscaping($0) })
    }

    @Test func everyControlCharacterIsEscapedAsBefore() {
        for scalar in (0..<0x80).compactMap(Unicode.Scalar.init) {
            let value = JSONValue.string("a" + String(Character(scalar)) + "b")
            #expect(value.serialized() == ReferenceWriter.text(value, indent: nil), "U+\(scalar.value)")
        }
    }
}

/// The writer `serialized()` used until 2026-11-26, unchanged: the reference the byte writer matches.
private enum ReferenceWriter {
    static func text(_ value: JSONValue, indent: String?) -> String {
        var out = ""
        write(value, to: &out, indent: indent, level: 0)
        return out
    }

    private static func write(_ value: JSONValue, to out: inout String, indent: String?, level: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .integer(let i): out += String(i)
        case .number(let d): out += format(d)
        case .string(let s): writeString(s, to: &out)
        case .array(let elements):
            if elements.isEmpty { out += "[]"; return }
            out += "["
            for (i, e) in elements.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                write(e, to: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            for (i, key) in members.keys.sorted().enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                writeString(key, to: &out)
                out += indent == nil ? ":" : ": "
                write(members[key]!, to: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ indent: String?, _ level: Int) {
        guard let indent else { return }
        out += "\n"
        for _ in 0..<level { out += indent }
    }

    private static func format(_ d: Double) -> String {
        if d.rounded() == d, abs(d) < 1e15 { return String(Int64(d)) + ".0" }
        return "\(d)"
    }

    private static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
