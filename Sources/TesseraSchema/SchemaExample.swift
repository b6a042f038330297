import TesseraSDK

/// A value made to satisfy a JSON Schema, for a check that calls an operation with input its
/// author never wrote (`tessera plugins check`). It follows the schema's own hints first —
/// `examples`, `default`, `const`, `enum` — then builds the smallest value of the type: an object
/// with its required members, a string of its format or length, a number within its bounds, an
/// array of its minimum length.
///
/// It cannot invent a string for a `pattern`: a schema with one and no `examples` gives `nil`
/// (``make(_:)``), and the check asks the author for an example. A caller validates what it gets
/// (``JSONSchema/validate(_:)``): keywords it does not read (`not`, `uniqueItems`, …) may still refuse it.
public enum SchemaExample {
    /// A value for `schema`, or `nil` when none can be made without the author's help.
    public static func make(_ schema: JSONValue) -> JSONValue? {
        make(schema, depth: 0)
    }

    private static func make(_ schema: JSONValue, depth: Int) -> JSONValue? {
        guard depth < 16 else { return nil }  // a schema that nests this deep is not an input form
        if schema == .bool(true) { return [:] }
        guard let members = schema.objectValue else { return nil }
        if let first = members["examples"]?.arrayValue?.first { return first }
        if let value = members["default"] { return value }
        if let value = members["const"] { return value }
        if let first = members["enum"]?.arrayValue?.first { return first }
        for keyword in ["anyOf", "oneOf"] {
            if let branches = members[keyword]?.arrayValue {
                return branches.lazy.compactMap { make($0, depth: depth + 1) }.first
            }
        }
        if let all = members["allOf"]?.arrayValue, let first = all.first {
            return make(first, depth: depth + 1)
        }
        switch schemaType(of: members) {
        case "object": return object(members, depth: depth)
        case "array": return array(members, depth: depth)
        case "string": return string(members)
        case "integer": return number(members, integer: true)
        case "number": return number(members, integer: false)
        case "boolean": return true
        case "null": return .null
        default: return nil
        }
    }

    /// The schema's type: its `type` (the first other than null, if it lists several), or what its
    /// keywords imply.
    private static func schemaType(of members: [String: JSONValue]) -> String? {
        if let type = members["type"]?.stringValue { return type }
        if let types = members["type"]?.arrayValue?.compactMap(\.stringValue) { return types.first { $0 != "null" } ?? types.first }
        if members["properties"] != nil || members["required"] != nil { return "object" }
        if members["items"] != nil { return "array" }
        return nil
    }

    private static func object(_ members: [String: JSONValue], depth: Int) -> JSONValue? {
        let properties = members["properties"]?.objectValue ?? [:]
        var value: [String: JSONValue] = [:]
        for name in (members["required"]?.arrayValue ?? []).compactMap(\.stringValue) {
            guard let made = make(properties[name] ?? .bool(true), depth: depth + 1) else { return nil }
            value[name] = made
        }
        return .object(value)
    }

    private static func array(_ members: [String: JSONValue], depth: Int) -> JSONValue? {
        let count = Int(members["minItems"]?.integerValue ?? 0)
        guard count > 0 else { return [] }
        guard let item = make(members["items"] ?? .bool(true), depth: depth + 1) else { return nil }
        return .array(Array(repeating: item, count: count))
    }

    private static func string(_ members: [String: JSONValue]) -> JSONValue? {
        let made: String
        switch members["format"]?.stringValue {
        case "date": made = "2026-03-02"
        case "date-time": made = "2026-03-02T09:00:00Z"
        case "time": made = "09:00:00Z"
        case "email": made = "ada@example.com"
        case "uuid": made = "6f1c1a52-8d3e-4b7a-9c0d-2e5f7a9b1c3d"
        case "uri": made = "https://example.com/"
        default:
            guard members["pattern"] == nil else { return nil }
            let least = Int(members["minLength"]?.integerValue ?? 1)
            let most = Int(members["maxLength"]?.integerValue ?? Int64(max(least, 7)))
            let text = String(repeating: "example ", count: least / 8 + 1)
            made = String(text.prefix(max(least, min(7, most))))
        }
        return .string(made)
    }

    private static func number(_ members: [String: JSONValue], integer: Bool) -> JSONValue? {
        var low = members["minimum"]?.doubleValue ?? members["exclusiveMinimum"]?.doubleValue.map { $0 + 1 } ?? 1
        if let high = members["maximum"]?.doubleValue ?? members["exclusiveMaximum"]?.doubleValue.map({ $0 - 1 }), low > high { low = high }
        if let step = members["multipleOf"]?.doubleValue, step > 0 { low = (low / step).rounded(.up) * step }
        return integer ? .integer(Int64(low.rounded(.up))) : .number(low)
    }
}
