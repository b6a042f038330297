import TesseraSDK

/// Turns an operation's schema, as its manifest writes it, into a schema that means the same inside
/// an OpenAPI 3.1 document, whose schemas are plain JSON Schema 2020-12.
///
/// Three things differ:
/// - **`nullable: true`** (OpenAPI 3.0, accepted by Tessera's validator) is not 2020-12. Tessera lets
///   `null` pass the whole schema, so it becomes a type union (`"type": ["string", "null"]`) where
///   `type` is the only keyword that could refuse `null`, and `anyOf: [{"type": "null"}, …]` where
///   another one could (`enum`, `const`, `$ref`, …), which a type union would not cover.
/// - **`$ref`s** inside the manifest point into the schema's own document (`#/$defs/x`); in the
///   OpenAPI document the schema lives at `#/components/schemas/<name>`, so each local `$ref` is
///   rebased there.
/// - **`$schema` and `$id`** are dropped: they would change the dialect or the base of `$ref`s.
///
/// And one thing is said that a manifest leaves unsaid: an `integer` fits in 64 bits (Tessera's
/// validator refuses larger ones), so an integer schema without a `format` gets `int64`, which
/// OpenAPI defines as that range and which clients and fuzzers generate within.
enum SchemaTranslation {
    /// Keywords whose value is one subschema.
    static let singleSchemaKeywords = ["additionalProperties", "items", "not", "if", "then", "else", "propertyNames", "contains"]
    /// Keywords whose value maps names to subschemas.
    static let schemaMapKeywords = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]
    /// Keywords whose value is an array of subschemas.
    static let schemaArrayKeywords = ["prefixItems", "allOf", "anyOf", "oneOf"]
    /// Keywords besides `type` that may refuse `null`.
    static let nullRefusingKeywords = ["enum", "const", "not", "allOf", "anyOf", "oneOf", "$ref", "if"]

    /// The schema translated; `base` is the JSON Pointer fragment where it will live
    /// (`#/components/schemas/dev.tessera.example.add-note.input`).
    static func translate(_ schema: JSONValue, base: String) -> JSONValue {
        guard case .object(var members) = schema else { return schema }  // `true`, `false`
        members["$schema"] = nil
        members["$id"] = nil
        for key in singleSchemaKeywords { members[key] = members[key].map { translate($0, base: base) } }
        for key in schemaMapKeywords {
            if case .object(let map)? = members[key] { members[key] = .object(map.mapValues { translate($0, base: base) }) }
        }
        for key in schemaArrayKeywords {
            if case .array(let list)? = members[key] { members[key] = .array(list.map { translate($0, base: base) }) }
        }
        if case .string(let ref)? = members["$ref"], ref.hasPrefix("#") {
            members["$ref"] = .string(base + ref.dropFirst())
        }
        if members["format"] == nil, admitsInteger(members["type"]) { members["format"] = "int64" }
        let nullable = members.removeValue(forKey: "nullable")?.boolValue ?? false
        return nullable ? allowingNull(members) : .object(members)
    }

    /// Whether a `type` keyword names `integer`.
    static func admitsInteger(_ type: JSONValue?) -> Bool {
        switch type {
        case .string("integer")?: true
        case .array(let names)?: names.contains("integer")
        default: false
        }
    }

    /// The schema `members` with `null` also accepted.
    static func allowingNull(_ members: [String: JSONValue]) -> JSONValue {
        let othersMayRefuse = nullRefusingKeywords.contains { members[$0] != nil }
        guard let type = members["type"], !othersMayRefuse else {
            if !othersMayRefuse { return .object(members) }  // no `type`: `null` passes already
            return wrappedInAnyOf(members)
        }
        var widened = members
        switch type {
        case .string(let name) where name != "null": widened["type"] = .array([.string(name), "null"])
        case .array(let names) where !names.contains("null"): widened["type"] = .array(names + ["null"])
        default: break
        }
        return .object(widened)
    }

    /// `anyOf: [{"type": "null"}, members]`, with `$defs` kept at the top so that rebased `$ref`s
    /// still find them.
    static func wrappedInAnyOf(_ members: [String: JSONValue]) -> JSONValue {
        var inner = members
        var outer: [String: JSONValue] = [:]
        for key in ["$defs", "definitions", "title", "description"] {
            if let value = inner.removeValue(forKey: key) { outer[key] = value }
        }
        outer["anyOf"] = .array([["type": "null"], .object(inner)])
        return .object(outer)
    }
}
