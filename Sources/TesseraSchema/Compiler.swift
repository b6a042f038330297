import Foundation
import TesseraSDK

/// Turns a schema document into ``Node``s, refusing anything it would not enforce.
final class Compiler {
    /// Keywords that are checked.
    static let assertions: Set<String> = [
        "type", "properties", "required", "additionalProperties", "patternProperties", "propertyNames",
        "minProperties", "maxProperties", "enum", "const", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "format", "items",
        "prefixItems", "minItems", "maxItems", "uniqueItems", "oneOf", "anyOf", "allOf", "not", "if",
        "then", "else", "nullable", "$ref", "$defs", "definitions",
    ]
    /// Keywords that are accepted and ignored.
    static let annotations: Set<String> = [
        "$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated",
        "readOnly", "writeOnly", "contentMediaType",
    ]

    let root: JSONValue
    private(set) var nodes: [Node] = []
    private var indexByLocation: [String: Int] = [:]
    private var pendingRefs: [(node: Int, reference: String, location: String)] = []

    /// When the document's patterns are compiled.
    let patterns: PatternCompilation

    init(root: JSONValue, patterns: PatternCompilation = .whenCompiled) {
        self.root = root
        self.patterns = patterns
    }

    /// Compiles the whole document, resolves every `$ref` and refuses `$ref` cycles that never
    /// descend into the instance.
    func compileDocument() throws(SchemaError) {
        _ = try compile(root, at: "#")
        while let pending = pendingRefs.popLast() {
            nodes[pending.node].ref = try resolve(pending.reference, from: pending.location)
        }
        for i in nodes.indices { nodes[i].finish() }
        try checkForCycles()
    }

    // MARK: - Schemas

    /// Schemas nested deeper than this are refused (parsed JSON is at most 128 levels deep).
    static let maxNesting = 256
    private var nesting = 0

    func compile(_ schema: JSONValue, at location: String, falseReport: FalseReport = .plain) throws(SchemaError) -> Int {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= Compiler.maxNesting else {
            throw SchemaError(location: location, message: "the schema is nested more than \(Compiler.maxNesting) levels deep")
        }
        var node = Node(location: location)
        let index = nodes.count
        nodes.append(node)  // reserves the index; the finished node replaces it below
        indexByLocation[location] = index
        defer { nodes[index] = node }

        let members: [String: JSONValue]
        switch schema {
        case .bool(true): return index
        case .bool(false): node.falseReport = falseReport; return index
        case .object(let o): members = o
        default: throw SchemaError(location: location, message: "a schema must be an object or a boolean, found \(Render.found(schema))")
        }

        var typeNames: [String] = []
        // Sorted, so that of several errors the same one is reported every time.
        for key in members.keys.sorted() {
            let value = members[key]!
            let at = location + "/" + Compiler.escape(key)
            switch key {
            case "type": typeNames = try compileType(value, into: &node, at: at)
            case "nullable": node.nullable = try bool(value, key, at)
            case "enum":
                guard case .array(let values) = value, !values.isEmpty else {
                    throw SchemaError(location: at, message: "enum must be a non-empty array, found \(Render.found(value))")
                }
                node.enumSet = Set(values.map(\.normalizedForEquality))
                node.enumExpected = values.count == 1 ? Render.compact(values[0], limit: 60) : "one of " + Render.list(values)
            case "const":
                node.constValue = value.normalizedForEquality
                node.constExpected = Render.compact(value, limit: 60)
            case "minimum": node.minimum = Bound(value: try number(value, key, at), expected: "at least \(Render.number(value))")
            case "maximum": node.maximum = Bound(value: try number(value, key, at), expected: "at most \(Render.number(value))")
            case "exclusiveMinimum":
                node.exclusiveMinimum = Bound(value: try number(value, key, at), expected: "greater than \(Render.number(value))")
            case "exclusiveMaximum":
                node.exclusiveMaximum = Bound(value: try number(value, key, at), expected: "less than \(Render.number(value))")
            case "multipleOf":
                let n = try number(value, key, at)
                guard n.double > 0 else {
                    throw SchemaError(location: at, message: "multipleOf must be greater than 0, found \(Render.number(value))")
                }
                node.multipleOf = MultipleOf(n)
                node.multipleOfExpected = "a multiple of \(Render.number(value))"
            case "minLength": node.minLength = try count(value, key, at)
            case "maxLength": node.maxLength = try count(value, key, at)
            case "pattern": node.pattern = try pattern(value, key, at)
            case "format":
                guard case .string(let name) = value else {
                    throw SchemaError(location: at, message: "format must be a string, found \(Render.found(value))")
                }
                node.format = Format(rawValue: name)  // any other format is an annotation
            case "properties":
                for (name, sub) in try schemaMap(value, key, at).sorted(by: { $0.key < $1.key }) {
                    let child = try compile(sub, at: at + "/" + Compiler.escape(name), falseReport: FalseReport(
                        keyword: "properties", expected: "no member \(Render.quoted(name))", disallowed: true))
                    node.properties[name] = Property(node: child)
                    node.propertyList.append((name, Property(node: child)))
                }
            case "patternProperties":
                for (source, sub) in try schemaMap(value, key, at).sorted(by: { $0.key < $1.key }) {
                    let subAt = at + "/" + Compiler.escape(source)
                    let compiled = try pattern(.string(source), "patternProperties", subAt, isName: true)
                    let child = try compile(sub, at: subAt, falseReport: FalseReport(
                        keyword: "patternProperties", expected: "no member whose name matches /\(source)/", disallowed: true))
                    node.patternProperties.append((compiled, child))
                }
            case "additionalProperties", "items":
                break  // after the loop: their reports depend on properties and prefixItems
            case "required":
                guard case .array(let names) = value else {
                    throw SchemaError(location: at, message: "required must be an array of member names, found \(Render.found(value))")
                }
                var seen = Set<String>()
                for (i, name) in names.enumerated() {
                    guard case .string(let s) = name else {
                        throw SchemaError(location: "\(at)/\(i)", message: "required must list member names as strings, found \(Render.found(name))")
                    }
                    guard seen.insert(s).inserted else {
                        throw SchemaError(location: "\(at)/\(i)", message: "required lists \(Render.quoted(s)) twice")
                    }
                    node.required.append(s)
                }
            case "propertyNames": node.propertyNames = try compile(value, at: at)
            case "minProperties": node.minProperties = try count(value, key, at)
            case "maxProperties": node.maxProperties = try count(value, key, at)
            case "prefixItems":
                node.prefixItems = try schemaList(value, key, at, falseReport: { i in
                    FalseReport(keyword: "prefixItems", expected: "no item at index \(i)", disallowed: false)
                })
            case "minItems": node.minItems = try count(value, key, at)
            case "maxItems": node.maxItems = try count(value, key, at)
            case "uniqueItems": node.uniqueItems = try bool(value, key, at)
            case "allOf": node.allOf = try schemaList(value, key, at)
            case "anyOf": node.anyOf = try schemaList(value, key, at)
            case "oneOf": node.oneOf = try schemaList(value, key, at)
            case "not": node.not = try compile(value, at: at)
            case "if": node.ifSchema = try compile(value, at: at)
            case "then": node.thenSchema = try compile(value, at: at)
            case "else": node.elseSchema = try compile(value, at: at)
            case "$ref":
                guard case .string(let reference) = value else {
                    throw SchemaError(location: at, message: "$ref must be a string, found \(Render.found(value))")
                }
                pendingRefs.append((index, reference, at))
            case "$defs", "definitions":
                for (name, sub) in try schemaMap(value, key, at).sorted(by: { $0.key < $1.key }) {
                    _ = try compile(sub, at: at + "/" + Compiler.escape(name))
                }
            case "description":
                guard case .string(let text) = value else {
                    throw SchemaError(location: at, message: "description must be a string, found \(Render.found(value))")
                }
                node.description = text
            case "$schema", "$id", "$comment", "title", "contentMediaType":
                guard case .string = value else {
                    throw SchemaError(location: at, message: "\(key) must be a string, found \(Render.found(value))")
                }
            case "deprecated", "readOnly", "writeOnly": _ = try bool(value, key, at)
            case "examples":
                guard case .array = value else {
                    throw SchemaError(location: at, message: "examples must be an array, found \(Render.found(value))")
                }
            case "default": break
            default:
                throw SchemaError(location: at, message: Compiler.unsupported(key))
            }
        }

        if let value = members["additionalProperties"] {
            var allowed: [String] = []
            if !node.propertyList.isEmpty { allowed.append("members " + node.propertyList.map { Render.quoted($0.name) }.joined(separator: ", ")) }
            if !node.patternProperties.isEmpty {
                allowed.append("names matching " + node.patternProperties.map { "/\($0.pattern.source)/" }.joined(separator: ", "))
            }
            let expected = allowed.isEmpty ? "no members" : "only " + allowed.joined(separator: " or ")
            node.additionalProperties = try compile(value, at: location + "/additionalProperties", falseReport: FalseReport(
                keyword: "additionalProperties", expected: expected, disallowed: true))
        }
        if let value = members["items"] {
            if case .array = value {
                throw SchemaError(location: location + "/items", message: "items must be a schema; for a tuple, use prefixItems (draft 2020-12)")
            }
            let n = node.prefixItems.count
            node.items = try compile(value, at: location + "/items", falseReport: FalseReport(
                keyword: "items", expected: n == 0 ? "no items" : "at most \(Render.plural(n, "item"))", disallowed: false))
        }

        if node.nullable, let types = node.types, !types.contains(.null) {
            node.typeExpected = Render.alternatives(typeNames + ["null"])
        }
        return index
    }

    private func compileType(_ value: JSONValue, into node: inout Node, at: String) throws(SchemaError) -> [String] {
        var names: [String] = []
        switch value {
        case .string(let s): names = [s]
        case .array(let a) where !a.isEmpty:
            for (i, element) in a.enumerated() {
                guard case .string(let s) = element else {
                    throw SchemaError(location: "\(at)/\(i)", message: "type names must be strings, found \(Render.found(element))")
                }
                guard !names.contains(s) else {
                    throw SchemaError(location: "\(at)/\(i)", message: "type lists \(Render.quoted(s)) twice")
                }
                names.append(s)
            }
        default:
            throw SchemaError(location: at, message: "type must be a type name or a non-empty array of them, found \(Render.found(value))")
        }
        var set: TypeSet = []
        for (i, name) in names.enumerated() {
            guard let t = TypeSet.byName[name] else {
                let where_ = names.count == 1 && value.stringValue != nil ? at : "\(at)/\(i)"
                throw SchemaError(location: where_, message: "unknown type \(Render.quoted(name)); the types are "
                    + "null, boolean, integer, number, string, array and object")
            }
            set.insert(t)
        }
        node.types = set
        node.typeExpected = Render.alternatives(names)
        return names
    }

    // MARK: - Keyword values

    private func bool(_ value: JSONValue, _ key: String, _ at: String) throws(SchemaError) -> Bool {
        guard case .bool(let b) = value else {
            throw SchemaError(location: at, message: "\(key) must be true or false, found \(Render.found(value))")
        }
        return b
    }

    private func number(_ value: JSONValue, _ key: String, _ at: String) throws(SchemaError) -> Num {
        guard let n = Num(value) else {
            var message = "\(key) must be a number, found \(Render.found(value))"
            if case .bool = value, key.hasPrefix("exclusive") {
                message += " (in draft 2020-12 \(key) is the bound itself, not a flag)"
            }
            throw SchemaError(location: at, message: message)
        }
        return n
    }

    /// A non-negative integer such as `minLength`; `3.0` counts as `3`.
    private func count(_ value: JSONValue, _ key: String, _ at: String) throws(SchemaError) -> Int {
        switch value {
        case .integer(let i) where i >= 0: return Int(clamping: i)
        case .number(let d) where d >= 0 && d.rounded() == d && d.isFinite:
            return d >= 9.2e18 ? Int.max : Int(d)
        default:
            throw SchemaError(location: at, message: "\(key) must be a non-negative integer, found \(Render.found(value))")
        }
    }

    private func pattern(_ value: JSONValue, _ key: String, _ at: String, isName: Bool = false) throws(SchemaError) -> Pattern {
        guard case .string(let source) = value else {
            throw SchemaError(location: at, message: "\(key) must be a regular expression in a string, found \(Render.found(value))")
        }
        // Compiled once per process, whichever schema names it first (`Pattern.shared`).
        do {
            return try Pattern(source, compilation: patterns)
        } catch {
            let what = isName ? "the member name pattern" : key
            throw SchemaError(location: at, message: "\(what) \(Render.quoted(source)) is not a valid regular expression")
        }
    }

    private func schemaMap(_ value: JSONValue, _ key: String, _ at: String) throws(SchemaError) -> [String: JSONValue] {
        guard case .object(let members) = value else {
            throw SchemaError(location: at, message: "\(key) must be an object whose members are schemas, found \(Render.found(value))")
        }
        return members
    }

    private func schemaList(
        _ value: JSONValue, _ key: String, _ at: String,
        falseReport: (Int) -> FalseReport = { _ in .plain }
    ) throws(SchemaError) -> [Int] {
        guard case .array(let elements) = value, !elements.isEmpty else {
            throw SchemaError(location: at, message: "\(key) must be a non-empty array of schemas, found \(Render.found(value))")
        }
        var out: [Int] = []
        for (i, element) in elements.enumerated() {
            out.append(try compile(element, at: "\(at)/\(i)", falseReport: falseReport(i)))
        }
        return out
    }

    // MARK: - References

    /// The node a local `$ref` points to: `#`, `#/$defs/NAME`, `#/definitions/NAME` or any other
    /// JSON Pointer into this document.
    private func resolve(_ reference: String, from location: String) throws(SchemaError) -> Int {
        guard reference.hasPrefix("#") else {
            throw SchemaError(location: location, message: "$ref \(Render.quoted(reference)) is not supported: "
                + "only references within the same schema (starting with \"#\") are")
        }
        guard let fragment = Compiler.percentDecoded(reference.dropFirst()) else {
            throw SchemaError(location: location, message: "$ref \(Render.quoted(reference)) has a bad percent escape")
        }
        if fragment.isEmpty { return 0 }
        guard fragment.hasPrefix("/") else {
            throw SchemaError(location: location, message: "$ref \(Render.quoted(reference)) is not supported: "
                + "anchors are not; use a JSON Pointer such as \"#/$defs/name\"")
        }
        let tokens = fragment.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(Compiler.unescape)
        let target = "#" + tokens.map { "/" + Compiler.escape($0) }.joined()
        if let index = indexByLocation[target] { return index }
        var value = root
        for token in tokens {
            switch value {
            case .object(let members) where members[token] != nil: value = members[token]!
            case .array(let elements) where Int(token).map({ elements.indices.contains($0) }) == true:
                value = elements[Int(token)!]
            default:
                throw SchemaError(location: location, message: "$ref \(Render.quoted(reference)) does not resolve: "
                    + "there is nothing at \(target)")
            }
        }
        guard value.objectValue != nil || value.boolValue != nil else {
            throw SchemaError(location: location, message: "$ref \(Render.quoted(reference)) does not point to a schema, "
                + "found \(Render.found(value))")
        }
        return try compile(value, at: target)
    }

    /// Refuses a cycle of schemas applied to the same instance, such as `{"$ref": "#"}` or two
    /// definitions referring to each other: validating would never end.
    private func checkForCycles() throws(SchemaError) {
        var state = [UInt8](repeating: 0, count: nodes.count)  // 0 new, 1 on the stack, 2 done
        for start in nodes.indices where state[start] == 0 {
            var stack: [(node: Int, children: [Int], next: Int)] = [(start, nodes[start].inPlaceChildren, 0)]
            state[start] = 1
            while !stack.isEmpty {
                let top = stack.count - 1
                if stack[top].next == stack[top].children.count {
                    state[stack[top].node] = 2
                    stack.removeLast()
                    continue
                }
                let child = stack[top].children[stack[top].next]
                stack[top].next += 1
                if state[child] == 1 {
                    let cycleStart = stack.firstIndex { $0.node == child }!
                    let path = stack[cycleStart...].map { nodes[$0.node].location } + [nodes[child].location]
                    throw SchemaError(location: nodes[stack[top].node].location, message: "the schemas "
                        + path.joined(separator: " -> ")
                        + " apply to each other in a cycle without descending into a member or item, "
                        + "so validation would never end")
                }
                if state[child] == 0 {
                    state[child] = 1
                    stack.append((child, nodes[child].inPlaceChildren, 0))
                }
            }
        }
    }

    // MARK: - Helpers

    /// A JSON Pointer reference token: `~` as `~0`, `/` as `~1`.
    static func escape(_ token: String) -> String {
        // Checked on the bytes: Foundation's `contains` bridged every member name to NSString, a
        // fifth of compiling a manifest's schemas.
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    /// `text` with its `%XX` escapes decoded, or nil for a `%` without two hex digits after it or
    /// bytes that are not UTF-8: what Foundation's `removingPercentEncoding` answers, on the bytes
    /// (it bridged every `$ref` through `CFString`: a quarter of compiling the deployment schema,
    /// which every process does).
    static func percentDecoded(_ text: Substring) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        var input = text.utf8.makeIterator()
        func hex(_ byte: UInt8?) -> UInt8? {
            switch byte {
            case let b? where b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"): return b - UInt8(ascii: "0")
            case let b? where b >= UInt8(ascii: "a") && b <= UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
            case let b? where b >= UInt8(ascii: "A") && b <= UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        while let byte = input.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = hex(input.next()), let low = hex(input.next()) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// A JSON Pointer token unescaped (RFC 6901: `~1` is `/`, `~0` is `~`), on the bytes.
    static func unescape(_ token: Substring) -> String {
        guard token.utf8.contains(UInt8(ascii: "~")) else { return String(token) }
        var bytes: [UInt8] = []
        var previousWasTilde = false
        for byte in token.utf8 {
            if previousWasTilde {
                previousWasTilde = false
                switch byte {
                case UInt8(ascii: "0"): bytes.append(UInt8(ascii: "~")); continue
                case UInt8(ascii: "1"): bytes.append(UInt8(ascii: "/")); continue
                default: bytes.append(UInt8(ascii: "~"))  // a `~` before anything else stays
                }
            }
            if byte == UInt8(ascii: "~") { previousWasTilde = true } else { bytes.append(byte) }
        }
        if previousWasTilde { bytes.append(UInt8(ascii: "~")) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func unsupported(_ key: String) -> String {
        var message = "unsupported keyword \(Render.quoted(key)): it would not be enforced"
        var best: (name: String, distance: Int)?
        for name in assertions.union(annotations).sorted() {
            let distance = editDistance(key.lowercased(), name.lowercased())
            if distance <= 2, best == nil || distance < best!.distance { best = (name, distance) }
        }
        if let best { message += "; did you mean \(Render.quoted(best.name))?" }
        return message
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution: Int = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                let edit: Int = Swift.min(previous[j] + 1, current[j - 1] + 1)
                current[j] = Swift.min(edit, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
