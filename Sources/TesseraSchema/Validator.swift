import TesseraSDK

/// One validation run over compiled nodes.
///
/// It runs in one of two modes. Without `tracking` it answers only whether the instance is valid
/// and stops at the first failure, touching no path and building no message: this is the hot
/// path. With `tracking` it keeps the instance path and records every violation; it runs only
/// once an instance is known to be invalid, and for the alternatives of a failed `anyOf`/`oneOf`.
struct Validator {
    /// Instance nesting beyond this is refused rather than risking the stack. Parsed JSON is at
    /// most 128 levels deep by default, so only values built in code can reach it.
    static let maxDepth = 512

    struct Recorded {
        var path: [PathComponent]
        var violation: SchemaViolation
    }

    let nodes: [Node]
    var tracking: Bool
    var path: [PathComponent] = []
    var recorded: [Recorded] = []
    var depth = 0

    init(nodes: [Node], tracking: Bool) {
        self.nodes = nodes
        self.tracking = tracking
    }

    // MARK: - Recording

    private mutating func fail(
        _ keyword: String, _ expected: @autoclosure () -> String, _ found: @autoclosure () -> String,
        member: PathComponent? = nil, disallowed: Bool = false
    ) {
        guard tracking else { return }
        var p = path
        if let member { p.append(member) }
        recorded.append(Recorded(path: p, violation: SchemaViolation(
            path: Render.path(p), keyword: keyword, expected: expected(), found: found(), isDisallowed: disallowed)))
    }

    /// Violations in document order of the instance (parents before their members, members by
    /// name, items by index); at one path, in the order the keywords were checked.
    static func ordered(_ recorded: [Recorded]) -> [SchemaViolation] {
        let sorted = recorded.enumerated().sorted { a, b in
            let x = a.element.path, y = b.element.path
            for k in 0..<min(x.count, y.count) {
                if let before = PathComponent.precedes(x[k], y[k]) { return before }
            }
            if x.count != y.count { return x.count < y.count }
            return a.offset < b.offset
        }
        var seen = Set<SchemaViolation>()
        var out: [SchemaViolation] = []
        for r in sorted where seen.insert(r.element.violation).inserted { out.append(r.element.violation) }
        return out
    }

    /// Validates `value` against node `index` without recording, keeping the current mode's path.
    private mutating func quietly(_ index: Int, _ value: JSONValue) -> Bool {
        let wasTracking = tracking
        tracking = false
        defer { tracking = wasTracking }
        return validate(index, value)
    }

    /// The violations of `value` against node `index`, recorded apart from the others.
    private mutating func separately(_ index: Int, _ value: JSONValue) -> [SchemaViolation] {
        let saved = recorded
        let wasTracking = tracking
        recorded = []
        tracking = true
        _ = validate(index, value)
        let mine = Validator.ordered(recorded)
        recorded = saved
        tracking = wasTracking
        return mine
    }

    private mutating func descend(_ index: Int, _ value: JSONValue, _ component: PathComponent) -> Bool {
        if nodes[index].isTrivial { return true }
        depth += 1
        defer { depth -= 1 }
        if depth > Validator.maxDepth {
            if tracking { path.append(component) }
            fail("depth", "nesting at most \(Validator.maxDepth) levels deep", "deeper nesting")
            if tracking { path.removeLast() }
            return false
        }
        guard tracking else { return validate(index, value) }
        path.append(component)
        defer { path.removeLast() }
        return validate(index, value)
    }

    // MARK: - Validation

    /// Whether `value` satisfies node `index`; with `tracking`, every violation is recorded.
    mutating func validate(_ index: Int, _ value: JSONValue) -> Bool {
        let node = nodes[index]
        if node.isTrivial { return true }
        if let report = node.falseReport {
            fail(report.keyword, report.expected, Render.found(value), disallowed: report.disallowed)
            return false
        }
        if node.nullable, case .null = value { return true }

        var ok = true
        if let types = node.types, !types.admits(value) {
            fail("type", node.typeExpected, Render.found(value))
            guard tracking else { return false }
            ok = false
        }
        if let set = node.enumSet, !set.contains(value.normalizedForEquality) {
            fail("enum", node.enumExpected, Render.found(value))
            guard tracking else { return false }
            ok = false
        }
        if let constant = node.constValue, constant != value.normalizedForEquality {
            fail("const", node.constExpected, Render.found(value))
            guard tracking else { return false }
            ok = false
        }

        switch value {
        case .integer, .number:
            if node.hasNumberKeywords, !checkNumber(node, value) {
                guard tracking else { return false }
                ok = false
            }
        case .string(let s):
            if node.hasStringKeywords, !checkString(node, s, value) {
                guard tracking else { return false }
                ok = false
            }
        case .array(let elements):
            if node.hasArrayKeywords, !checkArray(node, elements, value) {
                guard tracking else { return false }
                ok = false
            }
        case .object(let members):
            if node.hasObjectKeywords, !checkObject(node, members, value) {
                guard tracking else { return false }
                ok = false
            }
        default:
            break
        }

        if node.hasApplicators, !checkApplicators(node, value) {
            ok = false
        }
        return ok
    }

    private mutating func checkNumber(_ node: Node, _ value: JSONValue) -> Bool {
        guard let n = Num(value) else { return true }
        var ok = true
        if let b = node.minimum, Num.compare(n, b.value) < 0 {
            fail("minimum", b.expected, Render.number(value))
            guard tracking else { return false }
            ok = false
        }
        if let b = node.exclusiveMinimum, Num.compare(n, b.value) <= 0 {
            fail("exclusiveMinimum", b.expected, Render.number(value))
            guard tracking else { return false }
            ok = false
        }
        if let b = node.maximum, Num.compare(n, b.value) > 0 {
            fail("maximum", b.expected, Render.number(value))
            guard tracking else { return false }
            ok = false
        }
        if let b = node.exclusiveMaximum, Num.compare(n, b.value) >= 0 {
            fail("exclusiveMaximum", b.expected, Render.number(value))
            guard tracking else { return false }
            ok = false
        }
        if let m = node.multipleOf, !m.divides(n) {
            fail("multipleOf", node.multipleOfExpected, Render.number(value))
            ok = false
        }
        return ok
    }

    private mutating func checkString(_ node: Node, _ s: String, _ value: JSONValue) -> Bool {
        var ok = true
        if node.minLength != nil || node.maxLength != nil {
            let length = s.unicodeScalars.count
            if let min = node.minLength, length < min {
                fail("minLength", "at least \(Render.plural(min, "character"))",
                     "\(Render.found(value)) (\(Render.plural(length, "character")))")
                guard tracking else { return false }
                ok = false
            }
            if let max = node.maxLength, length > max {
                fail("maxLength", "at most \(Render.plural(max, "character"))",
                     "\(Render.found(value)) (\(Render.plural(length, "character")))")
                guard tracking else { return false }
                ok = false
            }
        }
        if let p = node.pattern, !p.matches(s) {
            fail("pattern", "a string matching /\(p.source)/", Render.found(value))
            guard tracking else { return false }
            ok = false
        }
        if let f = node.format, !f.accepts(s) {
            fail("format", f.expected, Render.found(value))
            ok = false
        }
        return ok
    }

    private mutating func checkArray(_ node: Node, _ elements: [JSONValue], _ value: JSONValue) -> Bool {
        var ok = true
        if let min = node.minItems, elements.count < min {
            fail("minItems", "at least \(Render.plural(min, "item"))", Render.plural(elements.count, "item"))
            guard tracking else { return false }
            ok = false
        }
        if let max = node.maxItems, elements.count > max {
            fail("maxItems", "at most \(Render.plural(max, "item"))", Render.plural(elements.count, "item"))
            guard tracking else { return false }
            ok = false
        }
        if node.uniqueItems, elements.count > 1 {
            var firstIndex: [JSONValue: Int] = [:]
            for (i, e) in elements.enumerated() {
                if let j = firstIndex.updateValue(i, forKey: e.normalizedForEquality) {
                    fail("uniqueItems", "unique items",
                         "items [\(j)] and [\(i)] are equal (\(Render.found(e)))")
                    guard tracking else { return false }
                    ok = false
                    break
                }
            }
        }
        let prefix = min(node.prefixItems.count, elements.count)
        for i in 0..<prefix where !descend(node.prefixItems[i], elements[i], .index(i)) {
            guard tracking else { return false }
            ok = false
        }
        if let items = node.items, elements.count > prefix {
            for i in prefix..<elements.count where !descend(items, elements[i], .index(i)) {
                guard tracking else { return false }
                ok = false
            }
        }
        return ok
    }

    private mutating func checkObject(_ node: Node, _ members: [String: JSONValue], _ value: JSONValue) -> Bool {
        var ok = true
        if let min = node.minProperties, members.count < min {
            fail("minProperties", "at least \(Render.plural(min, "member"))", Render.plural(members.count, "member"))
            guard tracking else { return false }
            ok = false
        }
        if let max = node.maxProperties, members.count > max {
            fail("maxProperties", "at most \(Render.plural(max, "member"))", Render.plural(members.count, "member"))
            guard tracking else { return false }
            ok = false
        }
        for name in node.required where members[name] == nil {
            fail("required", "a value (required member)", "missing", member: .key(name))
            guard tracking else { return false }
            ok = false
        }
        if let names = node.propertyNames {
            for key in members.keys where !quietly(names, .string(key)) {
                guard tracking else { return false }
                ok = false
                let first = separately(names, .string(key)).first
                fail("propertyNames", "member name: " + (first?.expected ?? "a valid name"),
                     "name \(Render.quoted(key))", member: .key(key))
            }
        }
        if node.patternProperties.isEmpty, node.additionalProperties == nil {
            for (name, child) in node.propertyList {
                guard let member = members[name] else { continue }
                if !descend(child, member, .key(name)) {
                    guard tracking else { return false }
                    ok = false
                }
            }
            return ok
        }
        for (key, member) in members {
            var matched = false
            if let child = node.properties[key] {
                matched = true
                if !descend(child, member, .key(key)) {
                    guard tracking else { return false }
                    ok = false
                }
            }
            for (pattern, child) in node.patternProperties where pattern.matches(key) {
                matched = true
                if !descend(child, member, .key(key)) {
                    guard tracking else { return false }
                    ok = false
                }
            }
            if !matched, let additional = node.additionalProperties, !descend(additional, member, .key(key)) {
                guard tracking else { return false }
                ok = false
            }
        }
        return ok
    }

    private mutating func checkApplicators(_ node: Node, _ value: JSONValue) -> Bool {
        var ok = true
        if let ref = node.ref, !validate(ref, value) {
            guard tracking else { return false }
            ok = false
        }
        for sub in node.allOf where !validate(sub, value) {
            guard tracking else { return false }
            ok = false
        }
        if !node.anyOf.isEmpty, !node.anyOf.contains(where: { quietly($0, value) }) {
            guard tracking else { return false }
            ok = false
            let miss = closestMiss(node.anyOf, value)
            fail("anyOf", "at least one of \(Render.plural(node.anyOf.count, "alternative"))", "none matched: " + miss)
        }
        if !node.oneOf.isEmpty {
            var matched = 0
            for sub in node.oneOf where quietly(sub, value) {
                matched += 1
                if matched > 1, !tracking { return false }
            }
            if matched != 1 {
                guard tracking else { return false }
                ok = false
                let found = matched == 0 ? "none matched: " + closestMiss(node.oneOf, value) : "\(matched) matched"
                fail("oneOf", "exactly one of \(Render.plural(node.oneOf.count, "alternative"))", found)
            }
        }
        if let not = node.not, quietly(not, value) {
            let location = nodes[not].location
            fail("not", "a value that does not match the schema at \(location)", Render.found(value))
            guard tracking else { return false }
            ok = false
        }
        if let condition = node.ifSchema {
            let branch = quietly(condition, value) ? node.thenSchema : node.elseSchema
            if let branch, !validate(branch, value) {
                ok = false
            }
        }
        return ok
    }

    /// The first violation of the alternative that came closest (fewest violations).
    private mutating func closestMiss(_ alternatives: [Int], _ value: JSONValue) -> String {
        var best: [SchemaViolation]?
        for sub in alternatives {
            let violations = separately(sub, value)
            if !violations.isEmpty, best == nil || violations.count < best!.count { best = violations }
        }
        return best?.first?.message ?? "no alternative matched"
    }
}
