import Foundation

// Encodes `Encodable` values straight into a `JSONValue` tree.
//
// Typed operation handlers encode every call's result; going through Foundation's `JSONEncoder` and
// parsing its text back cost more than the call itself. The rules give the tree that round trip gave:
//
// - integers become `.integer` (an unsigned value above `Int64.max` becomes `.number`, as its text
//   would have parsed); floating point becomes `.number`, and NaN or infinity is an `EncodingError`;
// - `Date` is an ISO 8601 string in UTC, without a fraction for whole seconds and with milliseconds
//   otherwise; `Data` is a base64 string; `URL` its absolute string; `Decimal` a number;
// - `nil` optional members are left out (the protocol's `encodeIfPresent` does this), and a nested
//   value that encodes nothing at all is `{}`.
//
// Misusing an encoder (asking it for a keyed container after it was given an array, say) makes
// JSONEncoder stop the process. Here it becomes an `EncodingError` thrown at the end instead: the
// plugin runs inside the host, and one plugin's faulty `encode(to:)` should fail one call, not all.

/// The `Encoder` handed to one value's `encode(to:)`, and its single-value container. A class,
/// because the containers it hands out must write into storage that outlives them.
final class JSONValueEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// What was encoded so far: nothing, a scalar, or an open container.
    private var node: JSONNode?
    /// The first misuse, reported when the result is taken (container requests cannot throw).
    private var misuse: EncodingError?

    init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
    }

    /// The JSON value of a value passed to `JSONValue(encoding:)`.
    static func encodeTopLevel<T: Encodable>(_ value: T) throws -> JSONValue {
        guard let result = try encode(value, at: []) else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return result
    }

    /// The JSON value of `value` inside a container, at `path`.
    static func encodeNested<T: Encodable>(_ value: T, at path: @autoclosure () -> [any CodingKey]) throws -> JSONValue {
        try encode(value, at: path()) ?? .object([:])
    }

    /// The JSON value of `value`, or `nil` if its `encode(to:)` wrote nothing. The common scalars
    /// are converted here, sparing them an encoder of their own (`[String]` is frequent). The types
    /// with a JSON-specific representation must be taken out here, since their own `Encodable`
    /// conformances would write keyed containers or numbers instead of strings.
    private static func encode<T: Encodable>(_ value: T, at path: @autoclosure () -> [any CodingKey]) throws -> JSONValue? {
        if T.self == String.self { return .string(value as! String) }
        if T.self == Int.self { return JSONScalar.encoded(value as! Int) }
        if T.self == Double.self { return try JSONScalar.encoded(value as! Double, at: path()) }
        if T.self == Bool.self { return .bool(value as! Bool) }
        if T.self == JSONValue.self { return (value as! JSONValue) }
        if T.self == Date.self { return JSONScalar.encoded(value as! Date) }
        if T.self == Data.self { return JSONScalar.encoded(value as! Data) }
        if T.self == URL.self { return JSONScalar.encoded(value as! URL) }
        if T.self == Decimal.self { return try JSONScalar.encoded(value as! Decimal, at: path()) }
        let encoder = JSONValueEncoder(codingPath: path())
        try value.encode(to: encoder)
        return try encoder.result()
    }

    /// The finished value, or `nil` if nothing was encoded.
    func result() throws -> JSONValue? {
        if let misuse { throw misuse }
        return try node?.resolve()
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let builder: JSONObjectBuilder
        switch node {
        case nil:
            builder = JSONObjectBuilder()
            node = .object(builder)
        case .object(let existing):
            // Asking again is allowed (a subclass and its superclass may share one object).
            builder = existing
        default:
            builder = JSONObjectBuilder()
            recordMisuse(Key.self, "Requested a keyed container from an encoder that already holds a value of another kind.")
        }
        return KeyedEncodingContainer(JSONValueKeyedEncodingContainer<Key>(builder: builder, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let builder: JSONArrayBuilder
        switch node {
        case nil:
            builder = JSONArrayBuilder()
            node = .array(builder)
        case .array(let existing):
            builder = existing
        default:
            builder = JSONArrayBuilder()
            recordMisuse([Any].self, "Requested an unkeyed container from an encoder that already holds a value of another kind.")
        }
        return JSONValueUnkeyedEncodingContainer(builder: builder, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    /// Remembers the first misuse; `requested` is the kind of container that was asked for.
    private func recordMisuse(_ requested: Any.Type, _ description: String) {
        guard misuse == nil else { return }
        misuse = EncodingError.invalidValue(requested, EncodingError.Context(codingPath: codingPath, debugDescription: description))
    }
}

extension JSONValueEncoder: SingleValueEncodingContainer {
    /// Stores the one value this encoder holds; a second value (or a value after a container) is
    /// an error, since one of them would be lost.
    private func set(_ value: JSONValue) throws {
        guard node == nil else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "Attempt to encode value through single value container when previously value already encoded."))
        }
        node = .value(value)
    }

    func encodeNil() throws { try set(.null) }
    func encode(_ value: Bool) throws { try set(.bool(value)) }
    func encode(_ value: String) throws { try set(.string(value)) }
    func encode(_ value: Double) throws { try set(JSONScalar.encoded(value, at: codingPath)) }
    func encode(_ value: Float) throws { try set(JSONScalar.encoded(value, at: codingPath)) }
    func encode(_ value: Int) throws { try set(JSONScalar.encoded(value)) }
    func encode(_ value: Int8) throws { try set(JSONScalar.encoded(value)) }
    func encode(_ value: Int16) throws { try set(JSONScalar.encoded(value)) }
    func encode(_ value: Int32) throws { try set(JSONScalar.encoded(value)) }
    func encode(_ value: Int64) throws { try set(JSONScalar.encoded(value)) }
    func encode(_ value: UInt) throws { try set(JSONScalar.encoded(value)) }
    func encode(_ value: UInt8) throws { try set(JSONScalar.encoded(value)) }
    func encode(_ value: UInt16) throws { try set(JSONScalar.encoded(value)) }
    func encode(_ value: UInt32) throws { try set(JSONScalar.encoded(value)) }
    func encode(_ value: UInt64) throws { try set(JSONScalar.encoded(value)) }
    func encode<T: Encodable>(_ value: T) throws { try set(Self.encodeNested(value, at: codingPath)) }
}

/// A value under construction. Containers stay open to writes while the `encode(to:)` that asked
/// for them runs (a nested container may be written after its later siblings), so they are held by
/// reference and only turned into `JSONValue`s once the whole value is encoded.
enum JSONNode {
    case value(JSONValue)
    case object(JSONObjectBuilder)
    case array(JSONArrayBuilder)
    /// A super encoder a container handed out; whatever is written to it lands here.
    case encoder(JSONValueEncoder)

    func resolve() throws -> JSONValue {
        switch self {
        case .value(let value): return value
        case .object(let builder):
            var members = [String: JSONValue](minimumCapacity: builder.members.count)
            for (name, node) in builder.members { members[name] = try node.resolve() }
            return .object(members)
        case .array(let builder): return .array(try builder.elements.map { try $0.resolve() })
        case .encoder(let encoder): return try encoder.result() ?? .object([:])
        }
    }
}

/// The members of an object being encoded, in the order they were written; a name written twice
/// keeps its last value when the object is resolved, as assigning it again would. A list, not a
/// dictionary: each name is then hashed once, into the finished object, rather than into a
/// dictionary that grows while members come and is copied into another at the end (for a two-member
/// answer that was most of its encoding).
final class JSONObjectBuilder {
    var members: [(name: String, node: JSONNode)]

    init() {
        // One allocation for the common object, rather than one at the first member and again as
        // the next ones come.
        members = []
        members.reserveCapacity(8)
    }
}

/// The elements of an array being encoded.
final class JSONArrayBuilder {
    var elements: [JSONNode] = []
}

/// Writes the members of one object. Scalars are stored directly; the coding path is only extended
/// for values that get an encoder of their own, or to name a member in an error.
struct JSONValueKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let builder: JSONObjectBuilder
    let codingPath: [any CodingKey]

    private func set(_ node: JSONNode, _ key: Key) {
        builder.members.append((key.stringValue, node))
    }

    mutating func encodeNil(forKey key: Key) throws { set(.value(.null), key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(.value(.bool(value)), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(.value(.string(value)), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try float(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try float(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { integer(value, key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(.value(try JSONValueEncoder.encodeNested(value, at: codingPath + [key])), key)
    }

    private func integer(_ value: some BinaryInteger, _ key: Key) {
        set(.value(JSONScalar.encoded(value)), key)
    }

    private func float(_ value: some BinaryFloatingPoint, _ key: Key) throws {
        set(.value(try JSONScalar.encoded(value, at: codingPath + [key])), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONObjectBuilder()
        set(.object(nested), key)
        return KeyedEncodingContainer(JSONValueKeyedEncodingContainer<NestedKey>(builder: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = JSONArrayBuilder()
        set(.array(nested), key)
        return JSONValueUnkeyedEncodingContainer(builder: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = JSONValueEncoder(codingPath: codingPath + [JSONCodingKey.super])
        builder.members.append((JSONCodingKey.super.stringValue, .encoder(encoder)))
        return encoder
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let encoder = JSONValueEncoder(codingPath: codingPath + [key])
        set(.encoder(encoder), key)
        return encoder
    }
}

/// Appends the elements of one array.
struct JSONValueUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let builder: JSONArrayBuilder
    let codingPath: [any CodingKey]

    var count: Int { builder.elements.count }

    /// The path of the element about to be appended.
    private var nextPath: [any CodingKey] { codingPath + [JSONCodingKey.index(count)] }

    private func append(_ node: JSONNode) {
        builder.elements.append(node)
    }

    mutating func encodeNil() throws { append(.value(.null)) }
    mutating func encode(_ value: Bool) throws { append(.value(.bool(value))) }
    mutating func encode(_ value: String) throws { append(.value(.string(value))) }
    mutating func encode(_ value: Double) throws { append(.value(try JSONScalar.encoded(value, at: nextPath))) }
    mutating func encode(_ value: Float) throws { append(.value(try JSONScalar.encoded(value, at: nextPath))) }
    mutating func encode(_ value: Int) throws { append(.value(JSONScalar.encoded(value))) }
    mutating func encode(_ value: Int8) throws { append(.value(JSONScalar.encoded(value))) }
    mutating func encode(_ value: Int16) throws { append(.value(JSONScalar.encoded(value))) }
    mutating func encode(_ value: Int32) throws { append(.value(JSONScalar.encoded(value))) }
    mutating func encode(_ value: Int64) throws { append(.value(JSONScalar.encoded(value))) }
    mutating func encode(_ value: UInt) throws { append(.value(JSONScalar.encoded(value))) }
    mutating func encode(_ value: UInt8) throws { append(.value(JSONScalar.encoded(value))) }
    mutating func encode(_ value: UInt16) throws { append(.value(JSONScalar.encoded(value))) }
    mutating func encode(_ value: UInt32) throws { append(.value(JSONScalar.encoded(value))) }
    mutating func encode(_ value: UInt64) throws { append(.value(JSONScalar.encoded(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        append(.value(try JSONValueEncoder.encodeNested(value, at: nextPath)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = JSONObjectBuilder()
        let path = nextPath
        append(.object(nested))
        return KeyedEncodingContainer(JSONValueKeyedEncodingContainer<NestedKey>(builder: nested, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = JSONArrayBuilder()
        let path = nextPath
        append(.array(nested))
        return JSONValueUnkeyedEncodingContainer(builder: nested, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = JSONValueEncoder(codingPath: nextPath)
        append(.encoder(encoder))
        return encoder
    }
}

/// The conversions from Swift scalars to JSON values, the inverse of the decoding ones.
extension JSONScalar {
    /// An integer that does not fit in `Int64` (only unsigned values can't) becomes the nearest
    /// `.number`, which is what its JSON text used to parse back as.
    static func encoded(_ value: some BinaryInteger) -> JSONValue {
        if let i = Int64(exactly: value) { return .integer(i) }
        return .number(Double(value))
    }

    static func encoded<T: BinaryFloatingPoint>(_ value: T, at path: @autoclosure () -> [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: path(), debugDescription: "Unable to encode \(T.self).\(value) directly in JSON."))
        }
        if let double = value as? Double { return .number(double) }
        // A narrower type goes through its shortest text, as JSONEncoder writes it: Float(0.1)
        // becomes 0.1, not 0.10000000149011612.
        return .number(Double("\(value)") ?? Double(value))
    }

    /// Whole seconds are written without a fraction, anything else with milliseconds. The
    /// milliseconds are rounded here because the format style truncates: a date made from 0.123 s
    /// holds 0.12299999… and would be written as .122.
    static func encoded(_ date: Date) -> JSONValue {
        let milliseconds = (date.timeIntervalSinceReferenceDate * 1000).rounded()
        let seconds = (milliseconds / 1000).rounded(.down)
        let text = iso8601.format(Date(timeIntervalSinceReferenceDate: seconds))  // "…T10:00:00Z"
        let fraction = Int(milliseconds - seconds * 1000)
        guard fraction != 0 else { return .string(text) }
        let digits = String(fraction)
        return .string(text.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z")
    }

    static func encoded(_ data: Data) -> JSONValue {
        .string(data.base64EncodedString())
    }

    static func encoded(_ url: URL) -> JSONValue {
        .string(url.absoluteString)
    }

    /// A decimal becomes what its text parses to: `.integer` when it is whole and fits, else `.number`.
    static func encoded(_ decimal: Decimal, at path: @autoclosure () -> [any CodingKey]) throws -> JSONValue {
        let text = decimal.description
        if let i = Int64(text) { return .integer(i) }
        if let d = Double(text), d.isFinite { return .number(d) }
        throw EncodingError.invalidValue(decimal, EncodingError.Context(
            codingPath: path(), debugDescription: "Unable to encode Decimal \(text) directly in JSON."))
    }
}
