import Foundation

extension JSONValue {
    /// The compact JSON text of this value, with object keys sorted so equal values give equal bytes.
    public func serialized() -> String {
        var out: [UInt8] = []
        write(to: &out, indent: nil, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// The JSON text of this value, indented by two spaces per level, keys sorted.
    public func prettySerialized() -> String {
        var out: [UInt8] = []
        write(to: &out, indent: Array("  ".utf8), level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the UTF-8 bytes of ``serialized()`` to `out`: the same text, with no `String` in
    /// between. Host-only (the process tier writes its frames with it), hence SPI, not SDK API.
    @_spi(TesseraHost)
    public func appendSerialized(to out: inout [UInt8]) {
        write(to: &out, indent: nil, level: 0)
    }

    // One writer, into bytes: the frames of the process tier are written per call, and appending
    // scalar by scalar into a `String` cost a tenth of a round trip's CPU (docs/benchmarks.md).
    private func write(to out: inout [UInt8], indent: [UInt8]?, level: Int) {
        switch self {
        case .null: Self.append("null", to: &out)
        case .bool(let b): Self.append(b ? "true" : "false", to: &out)
        case .integer(let i): Self.appendDigits(of: i, to: &out)
        case .number(let d): Self.writeNumber(d, to: &out)
        case .string(let s): Self.writeString(s, to: &out)
        case .array(let elements):
            if elements.isEmpty { Self.append("[]", to: &out); return }
            out.append(UInt8(ascii: "["))
            for (i, e) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, level + 1)
                e.write(to: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty { Self.append("{}", to: &out); return }
            out.append(UInt8(ascii: "{"))
            // The members sorted by name with their values, so no name is looked up again (a
            // look-up hashes the whole name: for a two-member answer, a fifth of its writing).
            for (i, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, level + 1)
                Self.writeString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                member.value.write(to: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out.append(UInt8(ascii: "}"))
        }
    }

    private func newline(_ out: inout [UInt8], _ indent: [UInt8]?, _ level: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        for _ in 0..<level { out.append(contentsOf: indent) }
    }

    private static func append(_ text: StaticString, to out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// A whole number within ±1e15 as its integer digits and ".0"; any other as Swift prints it
    /// (shortest round-trip form, e.g. `1e+300`, `0.1`, `nan`).
    private static func writeNumber(_ d: Double, to out: inout [UInt8]) {
        if d.rounded() == d, abs(d) < 1e15 {
            appendDigits(of: Int64(d), to: &out)
            append(".0", to: &out)
        } else {
            out.append(contentsOf: "\(d)".utf8)
        }
    }

    /// The decimal digits of `value`, with a minus sign when negative (`Int64.min` included).
    private static func appendDigits(of value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 { out.append(UInt8(ascii: "0") + UInt8(magnitude)); return }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 20 digits at most, written backwards
        withUnsafeMutableBytes(of: &digits) { raw in
            var first = raw.count
            while magnitude > 0 {
                first -= 1
                raw[first] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            // As typed bytes: appending the raw slice took Array's generic path, byte by byte.
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[first...]).assumingMemoryBound(to: UInt8.self))
        }
    }

    /// A JSON string: a text with nothing to escape is copied at once (most are: names, ids,
    /// words); otherwise runs of bytes that need no escape are, and `"`, `\\` and the control
    /// characters are escaped (`\u00XX` in lower-case hex but for `\n`, `\r`, `\t`); everything
    /// else, non-ASCII included, is copied as its UTF-8 bytes.
    private static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // A native string's bytes are read where they are; only a bridged one is copied first
        // (a copy to call the mutating `withUTF8` on retained and released every string).
        if s.utf8.withContiguousStorageIfAvailable({ writeStringBytes($0, to: &out) }) == nil {
            var s = s
            s.withUTF8 { writeStringBytes($0, to: &out) }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The bytes of a JSON string between its quotes, escaped where they must be.
    private static func writeStringBytes(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        guard needsEscaping(bytes) else {
            out.append(contentsOf: bytes)
            return
        }
        var runStart = 0
        for i in 0..<bytes.count {
            let byte = bytes[i]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<i])) }
            runStart = i + 1
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
            case UInt8(ascii: "\n"): out.append(UInt8(ascii: "n"))
            case UInt8(ascii: "\r"): out.append(UInt8(ascii: "r"))
            case UInt8(ascii: "\t"): out.append(UInt8(ascii: "t"))
            default:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xf)]])
            }
        }
        if runStart < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...])) }
    }

    /// Appends `text` as a JSON string, quotes included: the bytes ``serialized()`` writes for
    /// `.string(text)`. Host-only (the change log writes its cells with it), hence SPI.
    @_spi(TesseraHost)
    public static func appendString(_ text: String, to out: inout [UInt8]) {
        writeString(text, to: &out)
    }

    /// Appends the bytes ``serialized()`` writes for `.integer(value)`. Host-only (the change log
    /// writes its integer cells with it, without a `String` per number), hence SPI.
    @_spi(TesseraHost)
    public static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        appendDigits(of: value, to: &out)
    }

    /// Appends the bytes ``serialized()`` writes for `.number(value)`, for a finite `value`.
    /// Host-only (the change log's real cells), hence SPI.
    @_spi(TesseraHost)
    public static func appendNumber(_ value: Double, to out: inout [UInt8]) {
        writeNumber(value, to: &out)
    }

    /// Whether `bytes` hold a byte a JSON string must escape: a control character (below 0x20), a
    /// quote or a backslash. Eight bytes at a time (a byte-by-byte loop was a fifth of writing an
    /// echo's input, and the change log's largest cost): for a word `w`, a byte below `n`
    /// (n ≤ 0x80) sets its top bit in `(w - 0x01…01 × n) & ~w & 0x80…80`, and a byte equal to `c` is
    /// a zero byte of `w ^ (0x01…01 × c)`. Both tests are exact as a whole (a borrow can only mark
    /// bytes above one already found), so the answer is too. SPI for the host's tests.
    @_spi(TesseraHost)
    public static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            func word(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
            // Four words, then one branch: a branch per test per word was most of the scan's cost.
            while offset + 32 <= bytes.count {
                let marks = escapeMarks(word(offset)) | escapeMarks(word(offset + 8))
                    | escapeMarks(word(offset + 16)) | escapeMarks(word(offset + 24))
                if marks != 0 { return true }
                offset += 32
            }
            while offset + 8 <= bytes.count {
                if escapeMarks(word(offset)) != 0 { return true }
                offset += 8
            }
        }
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return true }
            offset += 1
        }
        return false
    }

    /// The top bit of each byte of `word` that is below 0x20, a quote or a backslash, set (and
    /// perhaps of bytes above a marked one, where a borrow ran on: zero exactly when none is).
    private static func escapeMarks(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22), backslashes = word ^ (ones &* 0x5C)
        return ((word &- ones &* 0x20) & ~word | (quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes) & highs
    }
}

extension JSONValue: Codable {
    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .integer(i) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    /// Encodes this value as itself.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .integer(let i): try c.encode(i)
        case .number(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}

extension JSONValue {
    /// Decodes a `Decodable` value from this JSON value.
    ///
    /// Follows `JSONDecoder`'s rules, working on the tree directly (see JSONValueDecoder.swift).
    /// Dates are read as ISO 8601 strings, as every Tessera surface writes them; a fraction of a
    /// second is accepted. Errors are `DecodingError`s whose coding path names the member at fault.
    public func decode<T: Decodable>(as type: T.Type = T.self) throws -> T {
        try JSONValueDecoder(value: self).decodeValue(T.self)
    }

    /// The JSON value of an `Encodable` value.
    ///
    /// Follows `JSONEncoder`'s rules, building the tree directly (see JSONValueEncoder.swift).
    /// Dates are written as ISO 8601 strings in UTC, with milliseconds unless the date is on a
    /// whole second.
    public init(encoding value: some Encodable) throws {
        self = try JSONValueEncoder.encodeTopLevel(value)
    }
}
