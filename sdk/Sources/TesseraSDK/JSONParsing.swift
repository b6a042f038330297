import Foundation

/// Why a text is not JSON: what was wrong, and the byte offset where it was found.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was expected or found, in plain words.
    public let reason: String
    /// The byte offset into the input.
    public let offset: Int

    /// Creates an error.
    public init(reason: String, offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// `invalid JSON at byte N: reason`.
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// Parses a JSON text (RFC 8259) strictly: one value, optional surrounding whitespace.
    ///
    /// Nesting deeper than `maxDepth` is refused rather than risking the stack.
    public init(parsing bytes: some Collection<UInt8>, maxDepth: Int = 128) throws(JSONParseError) {
        // Copied at once where the bytes are contiguous (an array, a slice of one: the process
        // tier's frames), not element by element through the generic collection's iterator.
        let array = bytes.withContiguousStorageIfAvailable { Array($0) } ?? Array(bytes)
        var parser = JSONParser(bytes: array, maxDepth: maxDepth)
        self = try parser.parseDocument()
    }

    /// Parses a JSON text already in an array, without copying it (the host keeps an operation's
    /// input text to hand on to the process tier: ``OperationCall/inputText``).
    @_spi(TesseraHost)
    public init(parsing bytes: [UInt8], maxDepth: Int = 128) throws(JSONParseError) {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        self = try parser.parseDocument()
    }

    /// Parses a JSON text held in a string.
    public init(parsing text: String, maxDepth: Int = 128) throws(JSONParseError) {
        try self.init(parsing: Array(text.utf8), maxDepth: maxDepth)
    }

    /// Checks that `bytes` are one JSON text by the rules of ``init(parsing:maxDepth:)`` — the same
    /// errors at the same offsets — without building the value: for text the host hands on as it
    /// came (a process-tier plugin's answer, written to an HTTP response as it is).
    @_spi(TesseraHost)
    public static func check(text bytes: [UInt8], maxDepth: Int = 128) throws(JSONParseError) {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        try parser.skipDocument()
    }
}

/// A recursive-descent JSON parser over bytes. Kept small and strict: no comments, no trailing
/// commas, no NaN, no leading zeros, no unpaired surrogates.
struct JSONParser {
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0
    var depth = 0

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index != bytes.count { throw fail("unexpected text after the value") }
        return value
    }

    func fail(_ reason: String) -> JSONParseError { JSONParseError(reason: reason, offset: index) }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
        }
    }

    mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        // Compared in place: copying both into arrays made two allocations per `true`, `false` or `null`.
        let count = word.utf8CodeUnitCount
        let matches = index + count <= bytes.count && word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[index + $0] == expected[$0] }
        }
        guard matches else { throw fail("expected '\(word)'") }
        index += count
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth { throw fail("nesting deeper than \(maxDepth)") }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        // Members are gathered first and the dictionary made once at its size: inserting one by
        // one grew it (and hashed every key again) at 1, 2, 4 and 8 members.
        var members: [(String, JSONValue)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object([:]) }
        members.reserveCapacity(8)  // grown one by one, six members took four allocations
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                // A name given twice keeps its last value, as before.
                return .object(Dictionary(members, uniquingKeysWith: { _, last in last }))
            }
            throw fail("expected ',' or '}' in an object")
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
        elements.reserveCapacity(4)
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            throw fail("expected ',' or ']' in an array")
        }
    }

    mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        // Fast path: most strings have no escapes; make the String straight from the input bytes.
        // The scan runs over the buffer with a local index (no bounds check or store of `index`
        // per byte: this loop was a seventh of a typed handler's decode from text). `plain` is the
        // string when it ended without an escape, holding `nil` when its bytes are not UTF-8.
        let start = index
        let (stop, plain) = bytes.withUnsafeBufferPointer { buffer -> (Int, String??) in
            var at = start
            var seen: UInt8 = 0  // every byte or-ed in: its top bit says whether one was not ASCII
            while at < buffer.count {
                let b = buffer[at]
                if b == UInt8(ascii: "\"") {
                    // ASCII needs no validation, and decoding from a buffer is specialised in the
                    // standard library; `String(validating:)` over a slice instantiated generic
                    // metadata at run time for every string (0.7% of a no-op call).
                    let text = UnsafeBufferPointer(rebasing: buffer[start..<at])
                    return (at, seen < 0x80 ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self))
                }
                if b == UInt8(ascii: "\\") || b < 0x20 { break }
                seen |= b
                at += 1
            }
            return (at, nil)
        }
        index = stop
        if let plain {
            guard let s = plain else { throw fail("string is not valid UTF-8") }
            index += 1
            return s
        }
        var out = Array(bytes[start..<index])
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                index += 1
                guard let s = String(validating: out, as: UTF8.self) else { throw fail("string is not valid UTF-8") }
                return s
            }
            if b < 0x20 { throw fail("control character in a string") }
            if b == UInt8(ascii: "\\") {
                try parseEscape(into: &out)
            } else {
                out.append(b)
                index += 1
            }
        }
        throw fail("unterminated string")
    }

    mutating func parseEscape(into out: inout [UInt8]) throws(JSONParseError) {
        index += 1
        guard index < bytes.count else { throw fail("unterminated escape") }
        let e = bytes[index]
        index += 1
        switch e {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "/"): out.append(0x2F)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw fail("unpaired surrogate in a \\u escape")
                }
                index += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate in a \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw fail("unpaired surrogate in a \\u escape")
            }
            guard let u = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
            out.append(contentsOf: Array(String(Character(u)).utf8))
        default:
            index -= 1
            throw fail("invalid escape '\\\(Character(Unicode.Scalar(e)))'")
        }
    }

    mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[index]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw fail("invalid hex digit in a \\u escape")
            }
            v = v << 4 | d
            index += 1
        }
        return v
    }

    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw fail("leading zero in a number") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit in the exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let i = Int64(text) { return .integer(i) }
        guard let d = Double(text), d.isFinite else { throw fail("number out of range") }
        return .number(d)
    }

    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}

// Checking without building (``JSONValue/check(text:maxDepth:)``): the containers are walked
// without collecting their members; every scalar is read by the parser's own functions and
// dropped, so a text passes exactly when parsing it would.
extension JSONParser {
    mutating func skipDocument() throws(JSONParseError) {
        skipWhitespace()
        try skipValue()
        skipWhitespace()
        if index != bytes.count { throw fail("unexpected text after the value") }
    }

    mutating func skipValue() throws(JSONParseError) {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try skipObject()
        case UInt8(ascii: "["): try skipArray()
        default: _ = try parseValue()  // a scalar: a short string or a number's text, nothing more
        }
    }

    mutating func skipObject() throws(JSONParseError) {
        try enter()
        defer { depth -= 1 }
        if skipOpening(closing: "}") { return }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
            _ = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            try skipValue()
            if try skipSeparator(closing: "}", in: "an object") { return }
        }
    }

    mutating func skipArray() throws(JSONParseError) {
        try enter()
        defer { depth -= 1 }
        if skipOpening(closing: "]") { return }
        while true {
            skipWhitespace()
            try skipValue()
            if try skipSeparator(closing: "]", in: "an array") { return }
        }
    }

    /// Steps over a container's opening bracket; `true` if the closing one follows (it is empty).
    private mutating func skipOpening(closing: Unicode.Scalar) -> Bool {
        index += 1
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: closing) else { return false }
        index += 1
        return true
    }

    /// Reads what follows a member: a ',' (`false`: another comes) or the container's closing
    /// bracket (`true`), with the parser's errors for anything else.
    private mutating func skipSeparator(closing: Unicode.Scalar, in container: String) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { throw fail("unexpected end of input in \(container)") }
        if bytes[index] == UInt8(ascii: ",") { index += 1; return false }
        if bytes[index] == UInt8(ascii: closing) { index += 1; return true }
        throw fail("expected ',' or '\(closing)' in \(container)")
    }
}
