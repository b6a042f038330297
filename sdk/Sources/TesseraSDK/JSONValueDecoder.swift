import Foundation

// Decodes `Decodable` values straight from a `JSONValue` tree.
//
// Typed operation handlers decode every call's input, and the input is already a parsed and validated
// `JSONValue`; going back to text for Foundation's `JSONDecoder` cost more than the rest of a call.
// The rules follow `JSONDecoder` configured with `.iso8601` dates, so plugins see the same results:
//
// - integers decode from `.integer`, and from `.number` when it has no fraction; a value that does not
//   fit the type is `dataCorrupted` at the member's path, its description the rule it broke ("must be an
//   integer between … and …"), as are the other descriptions this decoder writes;
// - floating point decodes from `.integer` and `.number`; `Bool` only from `.bool`;
// - `null` where a value is needed is `valueNotFound`; a missing member is `keyNotFound`;
// - `Date` is an ISO 8601 string (a fraction of a second is accepted), `Data` a base64 string,
//   `URL` a string, `Decimal` a number, `JSONValue` itself is taken as it is.
//
// Errors carry the coding path of the member at fault, because the host reports it to the caller.

/// The `Decoder` for one value of the tree, at one coding path. Also its own single-value container.
struct JSONValueDecoder: Decoder {
    let value: JSONValue
    // The path is kept as the parent's path and this value's key, and only joined when asked for
    // (by a container, or for an error): most values are scalars that never need it.
    private let parentPath: [any CodingKey]
    private let key: (any CodingKey)?
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(value: JSONValue, parentPath: [any CodingKey] = [], key: (any CodingKey)? = nil) {
        self.value = value
        self.parentPath = parentPath
        self.key = key
    }

    var codingPath: [any CodingKey] {
        guard let key else { return parentPath }
        return parentPath + [key]
    }

    /// Decodes `T`. The common scalars are converted here rather than through `T.init(from:)`, which
    /// would ask for a single-value container first. The types with a JSON-specific representation
    /// must be taken out here, since their own `Codable` conformances would read keyed containers
    /// or numbers instead of strings.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == String.self { return try JSONScalar.string(value, at: codingPath) as! T }
        if T.self == Int.self { return try JSONScalar.integer(Int.self, value, at: codingPath) as! T }
        if T.self == Double.self { return try JSONScalar.float(Double.self, value, at: codingPath) as! T }
        if T.self == Bool.self { return try JSONScalar.bool(value, at: codingPath) as! T }
        if T.self == JSONValue.self { return value as! T }
        if T.self == Date.self { return try JSONScalar.date(value, at: codingPath) as! T }
        if T.self == Data.self { return try JSONScalar.data(value, at: codingPath) as! T }
        if T.self == URL.self { return try JSONScalar.url(value, at: codingPath) as! T }
        if T.self == Decimal.self { return try JSONScalar.decimal(value, at: codingPath) as! T }
        if JSONScalar.isList(T.self), case .array(let elements) = value {
            return try JSONScalar.list(T.self, count: elements.count, element: { elements[$0] }, at: codingPath)
        }
        return try T(from: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw JSONScalar.mismatch([String: Any].self, value, at: codingPath, expected: "keyed decoding container")
        }
        return KeyedDecodingContainer(JSONValueKeyedDecodingContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw JSONScalar.mismatch([Any].self, value, at: codingPath, expected: "unkeyed decoding container")
        }
        return JSONValueUnkeyedDecodingContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }
}

extension JSONValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try JSONScalar.bool(value, at: codingPath) }
    func decode(_ type: String.Type) throws -> String { try JSONScalar.string(value, at: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try JSONScalar.float(type, value, at: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try JSONScalar.float(type, value, at: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try JSONScalar.integer(type, value, at: codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try JSONScalar.integer(type, value, at: codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try JSONScalar.integer(type, value, at: codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try JSONScalar.integer(type, value, at: codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try JSONScalar.integer(type, value, at: codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try JSONScalar.integer(type, value, at: codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try JSONScalar.integer(type, value, at: codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try JSONScalar.integer(type, value, at: codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try JSONScalar.integer(type, value, at: codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try JSONScalar.integer(type, value, at: codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }
}

/// The members of one object. Scalars are converted in place; only nested values get a decoder of
/// their own. The member's coding path is only built when an error needs it.
///
/// A class for the reason ``JSONTapeKeyedDecodingContainer`` is one: the standard library's box
/// copies a keyed container for each member decoded, and a class's copy is one reference counted.
final class JSONValueKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    init(members: [String: JSONValue], codingPath: [any CodingKey]) {
        self.members = members
        self.codingPath = codingPath
    }

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return value
    }

    private func decoder(for key: Key, value: JSONValue) -> JSONValueDecoder {
        JSONValueDecoder(value: value, parentPath: codingPath, key: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try member(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try JSONScalar.bool(member(key), at: codingPath + [key])
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try JSONScalar.string(member(key), at: codingPath + [key])
    }
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
        try decoder(for: key, value: member(key)).decodeValue(type)
    }

    // Optional members are the common case in operation inputs; one lookup instead of the three
    // (contains, decodeNil, decode) that the protocol's default implementation makes.
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = presentMember(key) else { return nil }
        return try JSONScalar.string(value, at: codingPath + [key])
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = presentMember(key) else { return nil }
        return try decoder(for: key, value: value).decodeValue(type)
    }

    /// The member, unless it is missing or `null`.
    private func presentMember(_ key: Key) -> JSONValue? {
        guard let value = members[key.stringValue] else { return nil }
        if case .null = value { return nil }
        return value
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        try JSONScalar.integer(type, member(key), at: codingPath + [key])
    }

    private func float<T: BinaryFloatingPoint>(_ type: T.Type, _ key: Key) throws -> T {
        try JSONScalar.float(type, member(key), at: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(for: key, value: member(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key, value: member(key)).unkeyedContainer()
    }

    // As in JSONDecoder, a missing member gives a decoder of `null` rather than an error, so that a
    // superclass with only optional members can still decode.
    func superDecoder() throws -> any Decoder {
        JSONValueDecoder(value: members[JSONCodingKey.super.stringValue] ?? .null, parentPath: codingPath, key: JSONCodingKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder(for: key, value: members[key.stringValue] ?? .null)
    }
}

/// The elements of one array, read in order. The index only moves past an element once it decoded,
/// so a failed `try?` attempt can be retried as another type, as with JSONDecoder.
struct JSONValueUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentPath: [any CodingKey] { codingPath + [JSONCodingKey.index(currentIndex)] }

    /// The current element; past the end, the error names the `type` that was asked for.
    private func current(_ type: Any.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: currentPath, debugDescription: "Unkeyed container is at end."))
        }
        return elements[currentIndex]
    }

    /// Moves past the current element, returning what was decoded from it.
    private mutating func advance<T>(_ decoded: T) -> T {
        currentIndex += 1
        return decoded
    }

    mutating func decodeNil() throws -> Bool {
        guard case .null = try current(Any?.self) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        advance(try JSONScalar.bool(current(type), at: currentPath))
    }
    mutating func decode(_ type: String.Type) throws -> String {
        advance(try JSONScalar.string(current(type), at: currentPath))
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        advance(try JSONScalar.float(type, current(type), at: currentPath))
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        advance(try JSONScalar.float(type, current(type), at: currentPath))
    }
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
        advance(try JSONScalar.integer(type, current(type), at: currentPath))
    }

    private func elementDecoder(_ type: Any.Type) throws -> JSONValueDecoder {
        JSONValueDecoder(value: try current(type), parentPath: codingPath, key: JSONCodingKey.index(currentIndex))
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

/// The conversions from one JSON value to a Swift scalar, shared by the three kinds of container.
/// The coding path is passed in only to name the value in an error.
enum JSONScalar {
    /// A list of strings, integers, numbers or Booleans (`[String]`, `[Int]`, `[Double]`,
    /// `[Bool]`: the types ``isList(_:)`` accepts, the only ones to pass here), converted element by
    /// element with the conversions below.
    ///
    /// `Array.init(from:)` asks for an unkeyed container (an existential, boxed) and decodes each
    /// element through the container's generic `decode`, which looks its type up at run time; for a
    /// list of three tags that was half of decoding an input of six members (issue 48). The result
    /// and the errors are the container's: element `i` is converted by the same function at the
    /// path `path + [Index i]`, and the first that does not convert ends the list.
    /// `element(i)` is the `i`th element, asked for only after the ones before it converted.
    static func list<T>(_ type: T.Type, count: Int, element: (Int) -> JSONValue,
                        at path: @autoclosure () -> [any CodingKey]) throws -> T {
        func at(_ i: Int) -> [any CodingKey] { path() + [JSONCodingKey.index(i)] }
        let type: Any.Type = T.self
        if type == listTypes.strings { return try (0..<count).map { try string(element($0), at: at($0)) } as! T }
        if type == listTypes.integers { return try (0..<count).map { try integer(Int.self, element($0), at: at($0)) } as! T }
        if type == listTypes.numbers { return try (0..<count).map { try float(Double.self, element($0), at: at($0)) } as! T }
        return try (0..<count).map { try bool(element($0), at: at($0)) } as! T
    }

    /// Whether ``list(_:count:element:at:)`` converts `T`, before a value is looked at. Against the
    /// four types kept once: `[String].self` written in a generic function asks the runtime for the
    /// canonical metadata of `Array<String>` every time (about 150 instructions each, measured),
    /// which every other type decoded would pay four times over. (For the same reason neither
    /// function has an optional `T` anywhere: its metadata is looked up on every call.)
    static func isList<T>(_ type: T.Type) -> Bool {
        let type: Any.Type = T.self
        return type == listTypes.strings || type == listTypes.integers || type == listTypes.numbers || type == listTypes.booleans
    }

    private static let listTypes: (strings: Any.Type, integers: Any.Type, numbers: Any.Type, booleans: Any.Type) =
        ([String].self, [Int].self, [Double].self, [Bool].self)

    static func bool(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard case .bool(let b) = value else { throw mismatch(Bool.self, value, at: path()) }
        return b
    }

    static func string(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard case .string(let s) = value else { throw mismatch(String.self, value, at: path()) }
        return s
    }

    static func integer<T: FixedWidthInteger>(_ type: T.Type, _ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> T {
        switch value {
        case .integer(let i):
            // Most integers decoded are `Int`s, and every `Int64` fits one: taken as it is, without
            // the `T?` of `T(exactly:)`, whose metadata this generic function would look up at run
            // time on every call (about 300 instructions, more than the rest of the conversion).
            if T.self == Int.self { return unsafeBitCast(Int(i), to: T.self) }
            if let n = T(exactly: i) { return n }
            throw corrupted(integerRule(T.self), at: path())
        case .number(let d):
            // `init(exactly:)` refuses both a fraction and a value out of range.
            if let n = T(exactly: d) { return n }
            throw corrupted(integerRule(T.self), at: path())
        default:
            throw mismatch(T.self, value, at: path())
        }
    }

    /// The rule an integer broke, worded for the caller (the errors' descriptions are rules, so that
    /// ``PluginError/invalidInput(decoding:at:)`` can hand them on as they are).
    static func integerRule<T: FixedWidthInteger>(_ type: T.Type) -> String {
        "must be an integer between \(T.min) and \(T.max)"
    }

    static func float<T: BinaryFloatingPoint>(
        _ type: T.Type, _ value: JSONValue, at path: @autoclosure () -> [any CodingKey]
    ) throws -> T {
        switch value {
        case .integer(let i):
            return T(i)
        case .number(let d):
            let f = T(d)
            // A finite Double too large for a Float would silently become infinity.
            if f.isFinite || !d.isFinite { return f }
            throw corrupted("must be a number between \(-T.greatestFiniteMagnitude) and \(T.greatestFiniteMagnitude)", at: path())
        default:
            throw mismatch(T.self, value, at: path())
        }
    }

    /// Dates parse with Foundation's ISO 8601 style, which takes an optional fraction of a second
    /// and a `Z` or numeric offset; the style is a value type, so sharing one instance is safe.
    /// Encoding uses it too, for dates with whole seconds.
    static let iso8601 = Date.ISO8601FormatStyle()

    static func date(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Date {
        let text = try string(value, at: path())
        guard let date = try? iso8601.parse(text) else {
            throw corrupted("must be a date and time in ISO 8601, such as 2026-03-02T08:00:00Z", at: path())
        }
        return date
    }

    static func data(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Data {
        guard let data = Data(base64Encoded: try string(value, at: path())) else {
            throw corrupted("must be base64 text", at: path())
        }
        return data
    }

    static func url(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> URL {
        guard let url = URL(string: try string(value, at: path())) else {
            throw corrupted("must be a URL", at: path())
        }
        return url
    }

    /// A `.number` is read back from its shortest text form, so `0.1` becomes exactly 0.1 (as it
    /// would from the JSON text) rather than the binary fraction nearest to it.
    static func decimal(_ value: JSONValue, at path: @autoclosure () -> [any CodingKey]) throws -> Decimal {
        switch value {
        case .integer(let i):
            return Decimal(i)
        case .number(let d):
            if d.isFinite, let decimal = Decimal(string: d.description, locale: nil) { return decimal }
            throw corrupted("must be a finite number", at: path())
        default:
            throw mismatch(Decimal.self, value, at: path())
        }
    }

    /// The error for a value of the wrong kind: `valueNotFound` for `null` (something was required
    /// and nothing is there), `typeMismatch` otherwise, worded as JSONDecoder words them.
    /// `expected` names what was wanted in the `null` message, where the type's name would not help.
    static func mismatch(_ type: Any.Type, _ value: JSONValue, at path: [any CodingKey], expected: String? = nil) -> DecodingError {
        let wanted = expected ?? "value of type \(type)"
        if case .null = value {
            return .valueNotFound(type, DecodingError.Context(
                codingPath: path, debugDescription: "Cannot get \(wanted) -- found null value instead"))
        }
        return .typeMismatch(type, DecodingError.Context(
            codingPath: path, debugDescription: "Expected to decode \(type) but found \(value.typeName) instead."))
    }

    static func corrupted(_ description: String, at path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: path, debugDescription: description))
    }
}

/// The coding keys the coder makes itself: array positions and `super`. Named like JSONDecoder's
/// (`"Index 2"`, with the position as `intValue`), so paths read the same as before. An enum, so
/// that the name is only formatted when someone reads it and the key fits in an existential inline.
enum JSONCodingKey: CodingKey {
    case index(Int)
    case `super`

    var stringValue: String {
        switch self {
        case .index(let i): return "Index \(i)"
        case .super: return "super"
        }
    }

    var intValue: Int? {
        if case .index(let i) = self { return i }
        return nil
    }

    init?(stringValue: String) {
        if stringValue == "super" {
            self = .super
        } else if stringValue.hasPrefix("Index "), let i = Int(stringValue.dropFirst(6)) {
            self = .index(i)
        } else {
            return nil
        }
    }

    init?(intValue: Int) {
        self = .index(intValue)
    }
}
