import Foundation
import TesseraSDK

/// The JSON types a `type` keyword admits.
struct TypeSet: OptionSet, Sendable {
    let rawValue: UInt8
    static let null = TypeSet(rawValue: 1)
    static let boolean = TypeSet(rawValue: 2)
    static let integer = TypeSet(rawValue: 4)
    static let number = TypeSet(rawValue: 8)
    static let string = TypeSet(rawValue: 16)
    static let array = TypeSet(rawValue: 32)
    static let object = TypeSet(rawValue: 64)

    static let byName: [String: TypeSet] = [
        "null": .null, "boolean": .boolean, "integer": .integer, "number": .number,
        "string": .string, "array": .array, "object": .object,
    ]

    /// Whether `v` is of one of these types; `"integer"` also admits numbers with no fraction, and
    /// `"number"` admits integers. An integer must fit in 64 bits (−2^63 … 2^63−1): that is what a
    /// host or a plugin can hold, so a larger one is refused here, with the rule, rather than by
    /// the code that reads it.
    func admits(_ v: JSONValue) -> Bool {
        switch v {
        case .null: return contains(.null)
        case .bool: return contains(.boolean)
        case .integer: return !isDisjoint(with: [.integer, .number])
        case .number(let d): return contains(.number) || (contains(.integer) && TypeSet.isInteger(d))
        case .string: return contains(.string)
        case .array: return contains(.array)
        default: return contains(.object)  // written so whether JSONValue is @frozen or not
        }
    }
}

extension TypeSet {
    /// Whether `d` has no fraction and fits in 64 bits. Neither bound is taken as a `Double`: the
    /// parser keeps every integer that fits as `.integer`, so a `.number` at −2^63 was written as
    /// one that does not (−9223372036854775809 rounds to −2^63), as one at 2^63 was.
    static func isInteger(_ d: Double) -> Bool {
        d.rounded() == d && d > -9_223_372_036_854_775_808.0 && d < 9_223_372_036_854_775_808.0
    }

    /// Whether `v` is a whole number too large for 64 bits, which `"integer"` refuses.
    static func isIntegerBeyond64Bits(_ v: JSONValue) -> Bool {
        guard case .number(let d) = v else { return false }
        return d.isFinite && d.rounded() == d && !isInteger(d)
    }
}

/// A JSON number compared exactly, whether it was written as an integer or not.
enum Num: Sendable {
    case int(Int64)
    case dbl(Double)

    init?(_ v: JSONValue) {
        switch v {
        case .integer(let i): self = .int(i)
        case .number(let d): self = .dbl(d)
        default: return nil
        }
    }

    var double: Double {
        switch self {
        case .int(let i): return Double(i)
        case .dbl(let d): return d
        }
    }

    /// -1, 0 or 1 as `a` is less than, equal to or greater than `b`.
    static func compare(_ a: Num, _ b: Num) -> Int {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.dbl(let x), .dbl(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.int(let x), .dbl(let y)): return -compareDouble(y, x)
        case (.dbl(let x), .int(let y)): return compareDouble(x, y)
        }
    }

    /// Compares a double with an integer without losing precision.
    private static func compareDouble(_ d: Double, _ i: Int64) -> Int {
        if d >= 9223372036854775808.0 { return 1 }
        if d < -9223372036854775808.0 { return -1 }
        let whole = d.rounded(.down)
        let w = Int64(whole)
        if w != i { return w < i ? -1 : 1 }
        return d > whole ? 1 : 0
    }
}

/// A compiled `multipleOf`: exact for integers, decimal arithmetic for other numbers so that
/// `0.3` is a multiple of `0.1` and `1.005` is not a multiple of `0.01`.
struct MultipleOf: Sendable {
    let value: Num
    let decimal: Decimal?

    init(_ value: Num) {
        self.value = value
        self.decimal = MultipleOf.decimal(value)
    }

    static func decimal(_ n: Num) -> Decimal? {
        switch n {
        case .int(let i): return Decimal(i)
        case .dbl(let d):
            guard d.isFinite, d == 0 || (abs(d) > 1e-100 && abs(d) < 1e100) else { return nil }
            return Decimal(string: "\(d)", locale: Locale(identifier: "en_US_POSIX"))
        }
    }

    func divides(_ x: Num) -> Bool {
        if case .int(let i) = x, case .int(let m) = value { return i % m == 0 }
        if let m = decimal, let xd = MultipleOf.decimal(x) {
            var q = xd / m
            if q.isFinite, abs(q) < Decimal(sign: .plus, exponent: 30, significand: 1) {
                var whole = Decimal()
                NSDecimalRound(&whole, &q, 0, .down)
                return whole == q
            }
        }
        let q = x.double / value.double
        return q.isFinite && q.rounded() == q
    }
}

/// A member declared under `properties`: its schema, and whether `required` lists it.
struct Property: Sendable {
    var node: Int
    var required = false
}

/// How a `false` schema reports, which depends on where it stands.
struct FalseReport: Sendable {
    var keyword: String
    var expected: String
    /// Whether the message should say that the member is not allowed.
    var disallowed: Bool

    static let plain = FalseReport(keyword: "false", expected: "no value (the schema is false)", disallowed: false)
}

/// A numeric bound and the words a violation uses for it.
struct Bound: Sendable {
    let value: Num
    let expected: String
}

/// One compiled schema object. Nodes refer to each other by index into ``JSONSchema``'s node list,
/// which is how `$ref` cycles (a tree, say) work without reference cycles.
///
/// ``Compiler`` fills the fields in; validation reads them through ``CompiledNode``.
struct Node: Sendable {
    /// Where this schema is, as a JSON Pointer fragment.
    let location: String
    /// No keywords that check anything: `true`, `{}`, or only annotations.
    var isTrivial = true
    /// Set for the `false` schema.
    var falseReport: FalseReport?

    var nullable = false
    var types: TypeSet?
    var typeExpected = ""

    var enumSet: Set<JSONValue>?
    var enumExpected = ""
    var constValue: JSONValue?
    var constExpected = ""

    var minimum: Bound?
    var maximum: Bound?
    var exclusiveMinimum: Bound?
    var exclusiveMaximum: Bound?
    var multipleOf: MultipleOf?
    var multipleOfExpected = ""

    var minLength: Int?
    var maxLength: Int?
    var pattern: Pattern?
    /// The schema's `description`, which words a `pattern` refusal for people: a regular
    /// expression means nothing to most of the people who read the error.
    var description: String?
    var format: Format?

    var properties: [String: Property] = [:]
    var propertyList: [(name: String, property: Property)] = []
    var required: [String] = []
    /// Every required name is also under `properties`, so counting the required ones met while
    /// checking properties tells whether any is missing, without looking each one up again.
    var requiredAllDeclared = false
    var patternProperties: [(pattern: Pattern, node: Int)] = []
    var additionalProperties: Int?
    var propertyNames: Int?
    var minProperties: Int?
    var maxProperties: Int?

    var prefixItems: [Int] = []
    var items: Int?
    var minItems: Int?
    var maxItems: Int?
    var uniqueItems = false

    var allOf: [Int] = []
    var anyOf: [Int] = []
    var oneOf: [Int] = []
    var not: Int?
    var ifSchema: Int?
    var thenSchema: Int?
    var elseSchema: Int?
    var ref: Int?

    /// Keyword groups present, so validation skips what cannot apply.
    var hasNumberKeywords = false
    var hasStringKeywords = false
    var hasArrayKeywords = false
    var hasObjectKeywords = false
    /// `anyOf`, `oneOf`, `not` or `if` (`$ref` and `allOf` are checked on their own).
    var hasApplicators = false

    init(location: String) {
        self.location = location
    }

    /// The schemas this one applies to the same instance (not to members or items). A cycle
    /// among these would never end.
    var inPlaceChildren: [Int] {
        var out = allOf + anyOf + oneOf
        for c in [not, ifSchema, thenSchema, elseSchema, ref] { if let c { out.append(c) } }
        return out
    }

    mutating func finish() {
        for name in required where properties[name] != nil {
            properties[name]!.required = true
        }
        for i in propertyList.indices { propertyList[i].property.required = properties[propertyList[i].name]!.required }
        requiredAllDeclared = required.allSatisfy { properties[$0] != nil }
        hasNumberKeywords = minimum != nil || maximum != nil || exclusiveMinimum != nil
            || exclusiveMaximum != nil || multipleOf != nil
        hasStringKeywords = minLength != nil || maxLength != nil || pattern != nil || format != nil
        hasArrayKeywords = !prefixItems.isEmpty || items != nil || minItems != nil || maxItems != nil || uniqueItems
        hasObjectKeywords = !properties.isEmpty || !required.isEmpty || !patternProperties.isEmpty
            || additionalProperties != nil || propertyNames != nil || minProperties != nil || maxProperties != nil
        hasApplicators = !anyOf.isEmpty || !oneOf.isEmpty || not != nil || ifSchema != nil
        isTrivial = falseReport == nil && !nullable && types == nil && enumSet == nil && constValue == nil
            && !hasNumberKeywords && !hasStringKeywords && !hasArrayKeywords && !hasObjectKeywords
            && !hasApplicators && ref == nil && allOf.isEmpty
    }
}

/// An immutable, shared home for a ``Node``, so that validation reads its fields in place instead
/// of copying the whole node (and retaining everything in it) at every step.
final class CompiledNode: Sendable {
    let s: Node

    init(_ node: Node) {
        self.s = node
    }
}

extension JSONValue {
    /// The value with every number that has no fraction written as an integer, so that equality
    /// follows JSON Schema (`1` equals `1.0`).
    var normalizedForEquality: JSONValue {
        switch self {
        case .number(let d):
            if d.rounded() == d, d >= -9223372036854775808.0, d < 9223372036854775808.0 {
                return .integer(Int64(d))
            }
            return self
        case .array(let a):
            return a.contains(where: \.needsNormalizing) ? .array(a.map(\.normalizedForEquality)) : self
        case .object(let o):
            return o.values.contains(where: \.needsNormalizing) ? .object(o.mapValues(\.normalizedForEquality)) : self
        default:
            return self
        }
    }

    private var needsNormalizing: Bool {
        switch self {
        case .number: return true
        case .array(let a): return a.contains(where: \.needsNormalizing)
        case .object(let o): return o.values.contains(where: \.needsNormalizing)
        default: return false
        }
    }
}
