import Foundation

// Decodes `Decodable` values straight from JSON text, without a `JSONValue` tree.
//
// A plugin in the process tier gets each call's input as the text the host sent (the host parsed and
// validated it; it hands the same bytes on). Building a tree for it only to walk it once made a
// dictionary per object — every key hashed on insert and again on look-up — and freed it again
// (issue 48: the input's parse and decode were about two fifths of the child's time per echo). The
// text is read instead into a tape: one flat array of its values in document order, where an object
// or array records how many members it has and where it ends, so a decoder can skip over it.
//
// The rules are JSONValueDecoder's, and mostly its code: a scalar on the tape is a `JSONValue`
// scalar, converted by the same `JSONScalar` functions, and a value of the wrong kind is reported
// through them too. Only the containers differ: a member is found by comparing the keys of its
// object in order (the last one of a name wins, as the parser keeps the last; an object whose names
// are all different, as nearly all are, stops at the first match), an element by stepping over the
// ones before it.

/// A JSON text read into a flat array, for decoding without a tree.
struct JSONTape {
    enum Entry {
        /// `null`, a Boolean, a number or a string.
        case scalar(JSONValue)
        /// An object of `members` key–value pairs; its entries end before `end`. `unique`: no two
        /// members share a name, so a look-up may stop at the first match.
        case object(members: Int, end: Int, unique: Bool)
        /// An array of `elements`; its entries end before `end`.
        case array(elements: Int, end: Int)
        /// A member's name written with an escape or a byte beyond ASCII, decoded; its value is
        /// the next entry.
        case key(String)
        /// A member's name as plain ASCII, the text's bytes `start..<end`: compared in place, never
        /// made into a `String` unless asked for (``name(at:)``); its value is the next entry.
        case plainKey(start: Int, end: Int)
    }

    let entries: [Entry]
    /// The text the entries were read from (plain keys point into it).
    let text: [UInt8]

    /// Reads `bytes` strictly, with the parser's rules and errors (``JSONValue/init(parsing:maxDepth:)``).
    init(parsing bytes: [UInt8], maxDepth: Int = 128) throws(JSONParseError) {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        var entries: [Entry] = []
        entries.reserveCapacity(bytes.count / 8 + 4)
        try parser.parseDocument(into: &entries)
        self.entries = entries
        text = bytes
    }

    /// The name of the member whose key is at `position`.
    func name(at position: Int) -> String? {
        text.withUnsafeBufferPointer { JSONTape.name(at: position, in: entries, text: $0) }
    }

    /// The same on entries still being read, or with the text at hand: the one place a plain key
    /// becomes a `String`.
    static func name(at position: Int, in entries: [Entry], text: UnsafeBufferPointer<UInt8>) -> String? {
        switch entries[position] {
        case .key(let name): return name
        case .plainKey(let start, let end):
            return String(decoding: UnsafeBufferPointer(rebasing: text[start..<end]), as: UTF8.self)
        case .scalar, .object, .array: return nil
        }
    }

    /// Whether the key at `position` is `name`: for a plain key, `ascii` (the name's UTF-8, when
    /// it is all ASCII) against its bytes in `text`. A name beyond ASCII is compared as a `String`,
    /// as the tree's dictionary compares it (canonically: the Kelvin sign is a "K" there).
    static func key(at position: Int, in entries: [Entry], text: UnsafeBufferPointer<UInt8>,
                    is name: String, ascii: UnsafeBufferPointer<UInt8>?) -> Bool {
        switch entries[position] {
        case .key(let key): return key == name
        case .plainKey(let start, let end):
            guard let ascii else { return name == JSONTape.name(at: position, in: entries, text: text) }
            return sameBytes(ascii, text, start, end)
        case .scalar, .object, .array: return false
        }
    }

    /// Whether the keys at `a` and `b` are the same name.
    static func sameKeys(_ a: Int, _ b: Int, in entries: [Entry], text: UnsafeBufferPointer<UInt8>) -> Bool {
        if case .plainKey(let start, let end) = entries[a], case .plainKey(let other, let otherEnd) = entries[b] {
            return sameBytes(UnsafeBufferPointer(rebasing: text[other..<otherEnd]), text, start, end)
        }
        guard let name = name(at: a, in: entries, text: text) else { return false }
        return name == self.name(at: b, in: entries, text: text)
    }

    /// Whether `text[start..<end]` is `wanted`, byte by byte: names are short, shorter than a call
    /// of `memcmp` is worth.
    @inline(__always)
    static func sameBytes(_ wanted: UnsafeBufferPointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>,
                          _ start: Int, _ end: Int) -> Bool {
        guard end - start == wanted.count else { return false }
        var i = 0
        while i < wanted.count {
            if wanted[i] != text[start + i] { return false }
            i += 1
        }
        return true
    }

    /// Decodes `T` from the whole text.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONTapeDecoder(tape: self, position: 0).decodeValue(type)
    }

    /// The entry after the value at `position` (after all of a container's entries).
    func next(after position: Int) -> Int { JSONTape.next(after: position, in: entries) }

    /// The same on entries still being read (the parser's, before the tape exists).
    static func next(after position: Int, in entries: [Entry]) -> Int {
        switch entries[position] {
        case .object(_, let end, _), .array(_, let end): return end
        case .scalar, .key, .plainKey: return position + 1
        }
    }

    /// Where the value of the member named `name` of the object at `object` is: the last of that
    /// name, as the parser keeps; the first when the object's names all differ. Not generic (the
    /// keyed container is, over its keys): specialised, the walk retains nothing per member.
    func position(of name: String, inObjectAt object: Int) -> Int? {
        guard case .object(let members, _, let unique) = entries[object] else { return nil }
        var utf8 = name
        return utf8.withUTF8 { wanted in
            let ascii = wanted.allSatisfy { $0 < 0x80 } ? wanted : nil
            return text.withUnsafeBufferPointer { text in
                var found: Int?
                var at = object + 1
                for _ in 0..<members {
                    if JSONTape.key(at: at, in: entries, text: text, is: name, ascii: ascii) {
                        if unique { return at + 1 }
                        found = at + 1
                    }
                    at = next(after: at + 1)
                }
                return found
            }
        }
    }

    /// Whether the `members` names of the object at `object` all differ: compared pairwise for a
    /// small object (nothing allocated; its names are a few short strings), through a set for a
    /// large one. Runs as the parser closes the object.
    static func namesDiffer(in entries: [Entry], text: [UInt8], object: Int, members: Int) -> Bool {
        guard members > 1 else { return true }
        return text.withUnsafeBufferPointer { namesDiffer(in: entries, text: $0, object: object, members: members) }
    }

    private static func namesDiffer(in entries: [Entry], text: UnsafeBufferPointer<UInt8>, object: Int, members: Int) -> Bool {
        // A member's key is at `object + 1`, and then right after the value before it.
        if members > 16 {
            var seen = Set<String>(minimumCapacity: members)
            var at = object + 1
            for _ in 0..<members {
                guard let name = name(at: at, in: entries, text: text), seen.insert(name).inserted else { return false }
                at = next(after: at + 1, in: entries)
            }
            return true
        }
        var at = next(after: object + 2, in: entries)
        for i in 1..<members {
            var earlier = object + 1
            for _ in 0..<i {
                if sameKeys(earlier, at, in: entries, text: text) { return false }
                earlier = next(after: earlier + 1, in: entries)
            }
            at = next(after: at + 1, in: entries)
        }
        return true
    }

    /// The value at `position` as a scalar to convert, or, for a container, an empty one of its
    /// kind: the conversions only read a container's kind, to say what was found instead.
    func node(at position: Int) -> JSONValue {
        switch entries[position] {
        case .scalar(let value): return value
        case .object: return .object([:])
        case .array: return .array([])
        case .key, .plainKey: return .string(name(at: position) ?? "")
        }
    }

    /// The value at `position` as a tree (a plugin may decode a member as a `JSONValue`).
    func value(at position: Int) -> JSONValue {
        switch entries[position] {
        case .scalar(let value): return value
        case .key, .plainKey: return .string(name(at: position) ?? "")
        case .array(let count, _):
            var elements: [JSONValue] = []
            elements.reserveCapacity(count)
            var at = position + 1
            for _ in 0..<count {
                elements.append(value(at: at))
                at = next(after: at)
            }
            return .array(elements)
        case .object(let count, _, _):
            var members: [(String, JSONValue)] = []
            members.reserveCapacity(count)
            var at = position + 1
            for _ in 0..<count {
                guard let name = name(at: at) else { break }
                members.append((name, value(at: at + 1)))
                at = next(after: at + 1)
            }
            return .object(Dictionary(members, uniquingKeysWith: { _, last in last }))
        }
    }
}

extension JSONParser {
    /// One document onto a tape; the same checks, in the same order, as ``parseDocument()``.
    mutating func parseDocument(into entries: inout [JSONTape.Entry]) throws(JSONParseError) {
        skipWhitespace()
        try parseValue(into: &entries)
        skipWhitespace()
        if index != bytes.count { throw fail("unexpected text after the value") }
    }

    mutating func parseValue(into entries: inout [JSONTape.Entry]) throws(JSONParseError) {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try parseObject(into: &entries)
        case UInt8(ascii: "["): try parseArray(into: &entries)
        default: entries.append(.scalar(try parseValue()))
        }
    }

    mutating func parseObject(into entries: inout [JSONTape.Entry]) throws(JSONParseError) {
        try enter()
        defer { depth -= 1 }
        index += 1
        let at = entries.count
        entries.append(.object(members: 0, end: 0, unique: true))
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            entries[at] = .object(members: 0, end: entries.count, unique: true)
            return
        }
        var members = 0
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
            entries.append(try parseKey())
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after a member name") }
            index += 1
            skipWhitespace()
            try parseValue(into: &entries)
            members += 1
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                let unique = JSONTape.namesDiffer(in: entries, text: bytes, object: at, members: members)
                entries[at] = .object(members: members, end: entries.count, unique: unique)
                return
            }
            throw fail("expected ',' or '}' in an object")
        }
    }

    /// A member's name: its place in the text when it is plain ASCII (the usual case), else the
    /// string decoded, with ``parseString()``'s checks and errors.
    mutating func parseKey() throws(JSONParseError) -> JSONTape.Entry {
        let start = index + 1
        let end = bytes.withUnsafeBufferPointer { buffer -> Int? in
            var at = start
            while at < buffer.count {
                let b = buffer[at]
                if b == UInt8(ascii: "\"") { return at }
                if b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { return nil }
                at += 1
            }
            return nil
        }
        guard let end else { return .key(try parseString()) }
        index = end + 1
        return .plainKey(start: start, end: end)
    }

    mutating func parseArray(into entries: inout [JSONTape.Entry]) throws(JSONParseError) {
        try enter()
        defer { depth -= 1 }
        index += 1
        let at = entries.count
        entries.append(.array(elements: 0, end: 0))
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            entries[at] = .array(elements: 0, end: entries.count)
            return
        }
        var elements = 0
        while true {
            skipWhitespace()
            try parseValue(into: &entries)
            elements += 1
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                entries[at] = .array(elements: elements, end: entries.count)
                return
            }
            throw fail("expected ',' or ']' in an array")
        }
    }
}

/// The `Decoder` for one value on the tape. A scalar is handed to ``JSONValueDecoder``, which then
/// decodes exactly as from a tree; a container is read here.
struct JSONTapeDecoder: Decoder {
    let tape: JSONTape
    let position: Int
    private let parentPath: [any CodingKey]
    private let key: (any CodingKey)?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(tape: JSONTape, position: Int, parentPath: [any CodingKey] = [], key: (any CodingKey)? = nil) {
        self.tape = tape
        self.position = position
        self.parentPath = parentPath
        self.key = key
    }

    var codingPath: [any CodingKey] {
        guard let key else { return parentPath }
        return parentPath + [key]
    }

    /// As ``JSONValueDecoder/decodeValue(_:)``: a scalar (or a container asked for as a scalar,
    /// which is refused there) goes to the tree's decoder; `JSONValue` is the subtree; anything
    /// else reads its containers from the tape.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if case .scalar(let value) = tape.entries[position] {
            return try JSONValueDecoder(value: value, parentPath: parentPath, key: key).decodeValue(type)
        }
        if T.self == JSONValue.self { return tape.value(at: position) as! T }
        if JSONTapeDecoder.isScalarType(T.self) {
            return try JSONValueDecoder(value: tape.node(at: position), parentPath: parentPath, key: key).decodeValue(type)
        }
        // The elements of a list of scalars are the entries after the array's: element `i` is at
        // `position + 1 + i` while the ones before it were scalars, and the first that is not one
        // fails to convert, so no entry after a nested container is read.
        if JSONScalar.isList(T.self), case .array(let count, _) = tape.entries[position] {
            return try JSONScalar.list(T.self, count: count, element: { tape.node(at: position + 1 + $0) }, at: codingPath)
        }
        return try T(from: self)
    }

    /// The types ``JSONValueDecoder/decodeValue(_:)`` converts from a scalar itself.
    private static func isScalarType(_ type: Any.Type) -> Bool {
        type == String.self || type == Int.self || type == Double.self || type == Bool.self || type == Date.self
            || type == Data.self || type == URL.self || type == Decimal.self
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members, _, _) = tape.entries[position] else {
            throw JSONScalar.mismatch([String: Any].self, tape.node(at: position), at: codingPath, expected: "keyed decoding container")
        }
        return KeyedDecodingContainer(JSONTapeKeyedDecodingContainer<Key>(tape: tape, object: position, members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements, _) = tape.entries[position] else {
            throw JSONScalar.mismatch([Any].self, tape.node(at: position), at: codingPath, expected: "unkeyed decoding container")
        }
        return JSONTapeUnkeyedDecodingContainer(tape: tape, first: position + 1, count: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }
}

extension JSONTapeDecoder: SingleValueDecodingContainer {
    private var node: JSONValue { tape.node(at: position) }

    func decodeNil() -> Bool {
        if case .scalar(.null) = tape.entries[position] { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try JSONScalar.bool(node, at: codingPath) }
    func decode(_ type: String.Type) throws -> String { try JSONScalar.string(node, at: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try JSONScalar.float(type, node, at: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try JSONScalar.float(type, node, at: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try JSONScalar.integer(type, node, at: codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try JSONScalar.integer(type, node, at: codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try JSONScalar.integer(type, node, at: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try JSONScalar.integer(type, node, at: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try JSONScalar.integer(type, node, at: codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try JSONScalar.integer(type, node, at: codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try JSONScalar.integer(type, node, at: codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try JSONScalar.integer(type, node, at: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try JSONScalar.integer(type, node, at: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try JSONScalar.integer(type, node, at: codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }
}

/// The members of one object on the tape, found by name in order.
///
/// A class, not a struct: the standard library's box around a keyed container (unspecialised, in a
/// library built with library evolution) copies it for each member decoded, and a copy of a class
/// is one reference counted where the struct's three (the tape's two arrays and the path) were.
final class JSONTapeKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let tape: JSONTape
    /// The object's entry.
    let object: Int
    let members: Int
    let codingPath: [any CodingKey]

    init(tape: JSONTape, object: Int, members: Int, codingPath: [any CodingKey]) {
        self.tape = tape
        self.object = object
        self.members = members
        self.codingPath = codingPath
    }

    /// Each member's name and where its value is, in document order.
    private func forEachMember(_ body: (String, Int) -> Void) {
        var at = object + 1
        for _ in 0..<members {
            guard let name = tape.name(at: at) else { return }
            body(name, at + 1)
            at = tape.next(after: at + 1)
        }
    }

    /// Where the value of the member named `name` is (``JSONTape/position(of:inObjectAt:)``).
    private func position(of name: String) -> Int? { tape.position(of: name, inObjectAt: object) }

    var allKeys: [Key] {
        var seen = Set<String>()
        var keys: [Key] = []
        forEachMember { name, _ in
            if seen.insert(name).inserted, let key = Key(stringValue: name) { keys.append(key) }
        }
        return keys
    }

    func contains(_ key: Key) -> Bool { position(of: key.stringValue) != nil }

    private func member(_ key: Key) throws -> Int {
        guard let at = position(of: key.stringValue) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return at
    }

    private func node(_ key: Key) throws -> JSONValue { tape.node(at: try member(key)) }

    private func decoder(for key: Key, at position: Int) -> JSONTapeDecoder {
        JSONTapeDecoder(tape: tape, position: position, parentPath: codingPath, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .scalar(.null) = tape.entries[try member(key)] { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try JSONScalar.bool(node(key), at: codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try JSONScalar.string(node(key), at: codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try float(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try float(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder(for: key, at: member(key)).decodeValue(type)
    }

    // One look-up for an optional member, as JSONValueKeyedDecodingContainer does.
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let at = presentMember(key) else { return nil }
        return try JSONScalar.string(tape.node(at: at), at: codingPath + [key])
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let at = presentMember(key) else { return nil }
        return try decoder(for: key, at: at).decodeValue(type)
    }

    /// Where the member is, unless it is missing or `null`.
    private func presentMember(_ key: Key) -> Int? {
        guard let at = position(of: key.stringValue) else { return nil }
        if case .scalar(.null) = tape.entries[at] { return nil }
        return at
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        try JSONScalar.integer(type, node(key), at: codingPath + [key])
    }

    private func float<T: BinaryFloatingPoint>(_ type: T.Type, _ key: Key) throws -> T {
        try JSONScalar.float(type, node(key), at: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(for: key, at: member(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key, at: member(key)).unkeyedContainer()
    }

    // A missing member gives a decoder of `null`, as JSONValueKeyedDecodingContainer's does.
    func superDecoder() throws -> any Decoder {
        guard let at = position(of: JSONCodingKey.super.stringValue) else {
            return JSONValueDecoder(value: .null, parentPath: codingPath, key: JSONCodingKey.super)
        }
        return JSONTapeDecoder(tape: tape, position: at, parentPath: codingPath, key: JSONCodingKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        guard let at = position(of: key.stringValue) else { return JSONValueDecoder(value: .null, parentPath: codingPath, key: key) }
        return decoder(for: key, at: at)
    }
}

/// The elements of one array on the tape, read in order; as JSONValueUnkeyedDecodingContainer, the
/// index only moves past an element once it decoded.
struct JSONTapeUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let tape: JSONTape
    let codingPath: [any CodingKey]
    let count: Int?
    private(set) var currentIndex = 0
    /// The current element's entry.
    private var at: Int

    init(tape: JSONTape, first: Int, count: Int, codingPath: [any CodingKey]) {
        self.tape = tape
        self.at = first
        self.count = count
        self.codingPath = codingPath
    }

    var isAtEnd: Bool { currentIndex >= (count ?? 0) }

    private var currentPath: [any CodingKey] { codingPath + [JSONCodingKey.index(currentIndex)] }

    /// The current element's entry; past the end, the error names the `type` that was asked for.
    private func current(_ type: Any.Type) throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: currentPath, debugDescription: "Unkeyed container is at end."))
        }
        return at
    }

    private func node(_ type: Any.Type) throws -> JSONValue { tape.node(at: try current(type)) }

    /// Moves past the current element, returning what was decoded from it.
    private mutating func advance<T>(_ decoded: T) -> T {
        at = tape.next(after: at)
        currentIndex += 1
        return decoded
    }

    mutating func decodeNil() throws -> Bool {
        guard case .scalar(.null) = tape.entries[try current(Any?.self)] else { return false }
        return advance(true)
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { advance(try JSONScalar.bool(node(type), at: currentPath)) }
    mutating func decode(_ type: String.Type) throws -> String { advance(try JSONScalar.string(node(type), at: currentPath)) }
    mutating func decode(_ type: Double.Type) throws -> Double { advance(try JSONScalar.float(type, node(type), at: currentPath)) }
    mutating func decode(_ type: Float.Type) throws -> Float { advance(try JSONScalar.float(type, node(type), at: currentPath)) }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        advance(try elementDecoder(type).decodeValue(type))
    }

    private mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        advance(try JSONScalar.integer(type, node(type), at: currentPath))
    }

    private func elementDecoder(_ type: Any.Type) throws -> JSONTapeDecoder {
        JSONTapeDecoder(tape: tape, position: try current(type), parentPath: codingPath, key: JSONCodingKey.index(currentIndex))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        advance(try elementDecoder(KeyedDecodingContainer<NestedKey>.self).container(keyedBy: type))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        advance(try elementDecoder((any UnkeyedDecodingContainer).self).unkeyedContainer())
    }

    mutating func superDecoder() throws -> any Decoder {
        advance(try elementDecoder((any Decoder).self))
    }
}
