@_spi(TesseraHost) import TesseraSDK

/// One message of the host–child protocol (``PeerConnection``), as read from a frame.
///
/// Only the payload (`params`, `error`) becomes a ``JSONValue``: the envelope around it — the
/// call's number, the method's name — is read straight from the frame's bytes, without a
/// dictionary for the object that holds them (docs/isolation.md, "The frame format"). An answer's
/// `result` is not read at all: it is kept as its text (``AnswerText``) for the caller.
public enum PeerMessage: Sendable, Equatable {
    /// `{"call": N, "method": "…", "params": …}`; `N` = 0 asks for no answer.
    case call(id: Int64, method: String, params: JSONValue)
    /// `{"call": N, "method": "operation", "params": {"operation", "principal", "input"}}`: an
    /// operation call, its input kept as the JSON text it is (``OperationFrame``). A call of the
    /// method `operation` with a number other than 0 is always read as this.
    case operation(id: Int64, OperationFrame)
    /// `{"reply": N, "result": …}`, as this side writes it.
    case reply(id: Int64, result: JSONValue)
    /// `{"reply": N, "result": …}` as read: the result kept as its text, not yet read or checked.
    case answer(id: Int64, AnswerText)
    /// `{"reply": N, "error": …}` (``WireError``).
    case failure(id: Int64, error: JSONValue)
    /// A JSON object that is neither: nothing answers it (as before, it is dropped).
    case other

    /// Reads a frame's body. Its envelope is read in one pass over the bytes; each payload is
    /// parsed from its own bytes by the SDK's strict parser, except an answer's result, which is
    /// kept as text (``AnswerText``: its reader checks it). A body that is not one JSON object, or
    /// a call's or an error's payload that is not JSON, throws.
    public init(frame body: ArraySlice<UInt8>) throws(FrameError) {
        let fields: EnvelopeFields
        do { fields = try body.withUnsafeBufferPointer { bytes in try EnvelopeScanner(bytes).fields() } } catch {
            throw FrameError.notJSON((error as? EnvelopeScanner.Malformed)?.reason ?? "\(error)")
        }
        func payload(_ range: Range<Int>?) throws(FrameError) -> JSONValue {
            guard let range else { return .null }
            do { return try JSONValue(parsing: body[(body.startIndex + range.lowerBound)..<(body.startIndex + range.upperBound)]) } catch {
                throw FrameError.notJSON("\(error)")
            }
        }
        if let id = fields.reply {
            if fields.error != nil {
                self = .failure(id: id, error: try payload(fields.error))
            } else {
                // Copied out of the read buffer: a slice kept would hold the whole buffer, and the
                // buffer's next write would copy it.
                let text = fields.result.map { Array(body[(body.startIndex + $0.lowerBound)..<(body.startIndex + $0.upperBound)]) }
                self = .answer(id: id, AnswerText(bytes: text ?? Array("null".utf8)))
            }
        } else if let id = fields.call, let method = fields.method {
            if method == ChildMethod.operation, id != 0, let params = fields.params {
                do {
                    self = .operation(id: id, try body.withUnsafeBufferPointer { bytes throws(EnvelopeScanner.Malformed) in
                        try OperationFrame(params: EnvelopeScanner(bytes).scanner(of: params))
                    })
                } catch { throw FrameError.notJSON(error.reason) }
                return
            }
            self = .call(id: id, method: method, params: try payload(fields.params))
        } else {
            self = .other
        }
    }

    /// The message as one JSON object (tests, and the frames' documentation).
    public var json: JSONValue {
        switch self {
        case .call(let id, let method, let params): return ["call": .integer(id), "method": .string(method), "params": params]
        case .operation(let id, let frame): return ["call": .integer(id), "method": .string(ChildMethod.operation), "params": frame.params]
        case .reply(let id, let result): return ["reply": .integer(id), "result": result]
        case .answer(let id, let text): return ["reply": .integer(id), "result": (try? text.value()) ?? .null]
        case .failure(let id, let error): return ["reply": .integer(id), "error": error]
        case .other: return .object([:])
        }
    }

    /// Appends the message's JSON to `out`: the envelope written as bytes around the payload's own
    /// serialisation, the same text ``json`` would serialise to.
    public func appendSerialized(to out: inout [UInt8]) {
        switch self {
        case .call(let id, let method, let params):
            out += #"{"call":"#.utf8
            out += String(id).utf8
            out += #","method":"#.utf8
            JSONValue.string(method).appendSerialized(to: &out)
            out += #","params":"#.utf8
            params.appendSerialized(to: &out)
        case .operation(let id, let frame):
            out += #"{"call":"#.utf8
            out += String(id).utf8
            out += #","method":"#.utf8
            JSONValue.string(ChildMethod.operation).appendSerialized(to: &out)
            out += #","params":"#.utf8
            frame.appendParams(to: &out)
        case .reply(let id, let result):
            out += #"{"reply":"#.utf8
            out += String(id).utf8
            out += #","result":"#.utf8
            result.appendSerialized(to: &out)
        case .answer(let id, let text):
            out += #"{"reply":"#.utf8
            out += String(id).utf8
            out += #","result":"#.utf8
            out += text.bytes
        case .failure(let id, let error):
            out += #"{"reply":"#.utf8
            out += String(id).utf8
            out += #","error":"#.utf8
            error.appendSerialized(to: &out)
        case .other:
            out += "{".utf8
        }
        out += "}".utf8
    }
}

/// Where a frame's envelope fields are: the numbers and the method read, the payloads as ranges of
/// the body (offsets from its start).
struct EnvelopeFields {
    var call: Int64?
    var reply: Int64?
    var method: String?
    var params: Range<Int>?
    var result: Range<Int>?
    var error: Range<Int>?
}

/// One pass over a frame's top-level object. It finds where each value starts and ends; it checks
/// the object's own punctuation, and leaves checking a payload to the strict parser that then
/// reads it (``PeerMessage/init(frame:)``). A field this protocol does not name is parsed too, so
/// a body is refused exactly when it is not JSON.
struct EnvelopeScanner {
    struct Malformed: Error { let reason: String }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var at = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func fields() throws(Malformed) -> EnvelopeFields {
        var fields = EnvelopeFields()
        var walker = self
        try walker.members { key, value throws(Malformed) in try record(key, value, in: &fields) }
        return fields
    }

    /// Walks the top-level object, handing `each` every member's key (its bytes, quotes included)
    /// and value (its bytes), then checks that nothing follows the object.
    mutating func members(_ each: (Range<Int>, Range<Int>) throws(Malformed) -> Void) throws(Malformed) {
        skipSpace()
        try expect(UInt8(ascii: "{"))
        skipSpace()
        if peek() == UInt8(ascii: "}") { at += 1 } else {
            while true {
                let key = try keyBytes()
                skipSpace()
                try expect(UInt8(ascii: ":"))
                skipSpace()
                let value = try skipValue()
                try each(key, value)
                skipSpace()
                if peek() == UInt8(ascii: ",") { at += 1; skipSpace(); continue }
                try expect(UInt8(ascii: "}"))
                break
            }
        }
        skipSpace()
        guard at == bytes.count else { throw Malformed(reason: "bytes after the message's object, at offset \(at)") }
    }

    /// A scanner of the object at `range` (a member's value).
    func scanner(of range: Range<Int>) -> EnvelopeScanner { EnvelopeScanner(UnsafeBufferPointer(rebasing: bytes[range])) }

    /// The bytes at `range`.
    func bytes(_ range: Range<Int>) -> [UInt8] { Array(bytes[range]) }

    private func record(_ key: Range<Int>, _ value: Range<Int>, in fields: inout EnvelopeFields) throws(Malformed) {
        switch name(key) {
        case "call": fields.call = try integer(value)
        case "reply": fields.reply = try integer(value)
        case "method": fields.method = try string(value)
        case "params": fields.params = value
        case "result": fields.result = value
        case "error": fields.error = value
        default: _ = try json(value)
        }
    }

    /// A key's name; one with an escape is read by the parser (none of the protocol's has one).
    func name(_ key: Range<Int>) -> String? {
        let inner = bytes[(key.lowerBound + 1)..<(key.upperBound - 1)]
        if inner.contains(UInt8(ascii: "\\")) { return (try? json(key))?.stringValue }
        return String(decoding: inner, as: UTF8.self)
    }

    /// A whole number written plainly (`7`, `-1`); any other spelling is read by the parser, as
    /// ``JSONValue/integerValue`` would read it.
    private func integer(_ range: Range<Int>) throws(Malformed) -> Int64? {
        var value: Int64 = 0, index = range.lowerBound
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        var plain = index < range.upperBound && range.count <= 18
        while plain, index < range.upperBound {
            let digit = bytes[index] &- UInt8(ascii: "0")
            if digit > 9 { plain = false } else { value = value * 10 + Int64(digit); index += 1 }
        }
        if plain { return negative ? -value : value }
        return try json(range).integerValue
    }

    /// A string without escapes, all ASCII, is taken as it stands; any other is read by the parser.
    func string(_ range: Range<Int>) throws(Malformed) -> String? {
        guard bytes[range.lowerBound] == UInt8(ascii: "\"") else { return try json(range).stringValue }
        let inner = bytes[(range.lowerBound + 1)..<(range.upperBound - 1)]
        if inner.allSatisfy({ $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\\") }) { return String(decoding: inner, as: UTF8.self) }
        return try json(range).stringValue
    }

    func json(_ range: Range<Int>) throws(Malformed) -> JSONValue {
        do { return try JSONValue(parsing: UnsafeBufferPointer(rebasing: bytes[range])) } catch { throw Malformed(reason: "\(error)") }
    }

    private func peek() -> UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func expect(_ byte: UInt8) throws(Malformed) {
        guard peek() == byte else {
            throw Malformed(reason: "expected '\(Character(Unicode.Scalar(byte)))' at offset \(at)")
        }
        at += 1
    }

    private mutating func skipSpace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { at += 1 }
    }

    /// A key: a string, quotes included.
    private mutating func keyBytes() throws(Malformed) -> Range<Int> {
        guard peek() == UInt8(ascii: "\"") else { throw Malformed(reason: "expected a key at offset \(at)") }
        let start = at
        try skipString()
        return start..<at
    }

    /// Past one value: a string, an object or array (strings inside them skipped whole), or a
    /// number or literal up to the next delimiter. Returns the value's bytes.
    private mutating func skipValue() throws(Malformed) -> Range<Int> {
        let start = at
        guard let first = peek() else { throw Malformed(reason: "a value is missing at the end") }
        switch first {
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            repeat {
                guard let byte = peek() else { throw Malformed(reason: "an object or array is not closed") }
                switch byte {
                case UInt8(ascii: "\""): try skipString(); continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                default: break
                }
                at += 1
            } while depth > 0
        default:
            while let byte = peek(), byte != UInt8(ascii: ","), byte != UInt8(ascii: "}"), byte != UInt8(ascii: "]"),
                  byte != 0x20, byte != 0x0A, byte != 0x0D, byte != 0x09 { at += 1 }
        }
        guard at > start else { throw Malformed(reason: "a value is missing at offset \(start)") }
        return start..<at
    }

    /// Past a string, from its opening quote to after its closing one.
    private mutating func skipString() throws(Malformed) {
        at += 1
        while true {
            guard let byte = peek() else { throw Malformed(reason: "a string is not closed") }
            at += 1
            if byte == UInt8(ascii: "\"") { return }
            if byte == UInt8(ascii: "\\") { at += 1 }
        }
    }
}
