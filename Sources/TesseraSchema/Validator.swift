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
    /// Stack a validation run may use before it refuses to go deeper. Each instance level costs a
    /// few schema applications, each a stack frame, and a schema can stack many applications on
    /// one level; this is the backstop that keeps any schema and instance from overflowing a
    /// thread's stack (8 MiB for the main thread and Swift concurrency's threads on Linux).
    static let stackBudget: UInt = 2 << 20  // 2 MiB

    struct Recorded {
        var path: [PathComponent]
        var violation: SchemaViolation
        /// The innermost explanation: the message itself, or for an `anyOf`/`oneOf` that none
        /// matched, the cause it names. Nested alternatives thus name one concrete fault instead of
        /// a message within a message within a message.
        var cause: String
    }

    let nodes: [CompiledNode]
    var tracking: Bool
    var path: [PathComponent] = []
    var recorded: [Recorded] = []
    var depth = 0
    /// The stack address where this run started (stacks grow down on every platform Tessera runs on).
    let stackBase: UInt

    init(nodes: [CompiledNode], tracking: Bool) {
        self.nodes = nodes
        self.tracking = tracking
        self.stackBase = Validator.stackAddress()
    }

    @inline(__always)
    static func stackAddress() -> UInt {
        var marker: UInt8 = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    }

    // MARK: - Recording

    private mutating func fail(
        _ keyword: String, _ expected: @autoclosure () -> String, _ found: @autoclosure () -> String,
        member: PathComponent? = nil, disallowed: Bool = false, cause: String? = nil
    ) {
        guard tracking else { return }
        var p = path
        if let member { p.append(member) }
        let violation = SchemaViolation(
            path: Render.path(p), keyword: keyword, expected: expected(), found: found(), isDisallowed: disallowed)
        recorded.append(Recorded(path: p, violation: violation, cause: cause ?? violation.message))
    }

    /// Violations in document order of the instance (parents before their members, members by
    /// name, items by index); at one path, in the order the keywords were checked.
    static func ordered(_ recorded: [Recorded]) -> [Recorded] {
        let sorted = recorded.enumerated().sorted { a, b in
            let x = a.element.path, y = b.element.path
            for k in 0..<min(x.count, y.count) {
                if let before = PathComponent.precedes(x[k], y[k]) { return before }
            }
            if x.count != y.count { return x.count < y.count }
            return a.offset < b.offset
        }
        var seen = Set<SchemaViolation>()
        var out: [Recorded] = []
        for r in sorted where seen.insert(r.element.violation).inserted { out.append(r.element) }
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
    private mutating func separately(_ index: Int, _ value: JSONValue) -> [Recorded] {
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
        if nodes[index].s.isTrivial { return true }
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
        if node.s.isTrivial { return true }
        let here = Validator.stackAddress()
        if here < stackBase, stackBase - here > Validator.stackBudget {
            fail("depth", "data nested less deeply", "nesting too deep to validate")
            return false
        }
        if let report = node.s.falseReport {
            fail(report.keyword, report.expected, Render.found(value), disallowed: report.disallowed)
            return false
        }
        if node.s.nullable, case .null = value { return true }

        var ok = true
        if let types = node.s.types, !types.admits(value) {
            let beyond = types.contains(.integer) && TypeSet.isIntegerBeyond64Bits(value)
            fail("type", beyond ? "an integer between -9223372036854775808 and 9223372036854775807" : node.s.typeExpected, Render.found(value))
            guard tracking else { return false }
            ok = false
        }
        if let set = node.s.enumSet, !set.contains(value.normalizedForEquality) {
            fail("enum", node.s.enumExpected, Render.found(value))
            guard tracking else { return false }
            ok = false
        }
        if let constant = node.s.constValue, constant != value.normalizedForEquality {
            fail("const", node.s.constExpected, Render.found(value))
            guard tracking else { return false }
            ok = false
        }

        switch value {
        case .integer, .number:
            if node.s.hasNumberKeywords, !checkNumber(node, value) {
                guard tracking else { return false }
                ok = false
            }
        case .string(let s):
            if node.s.hasStringKeywords, !checkString(node, s, value) {
                guard tracking else { return false }
                ok = false
            }
        case .array(let elements):
            if node.s.hasArrayKeywords, !checkArray(node, elements, value) {
                guard tracking else { return false }
                ok = false
            }
        case .object(let members):
            if node.s.hasObjectKeywords, !checkObject(node, members, value) {
                guard tracking else { return false }
                ok = false
            }
        default:
            break
        }

        // $ref and allOf here rather than in checkApplicators: a recursive schema goes through
        // $ref at every level, and one frame fewer per level lets deeper data through.
        if let ref = node.s.ref, !validate(ref, value) {
            guard tracking else { return false }
            ok = false
        }
        for sub in node.s.allOf where !validate(sub, value) {
            guard tracking else { return false }
            ok = false
        }
        if node.s.hasApplicators, !checkApplicators(node, value) {
            ok = false
        }
        return ok
    }

    private mutating func checkNumber(_ node: CompiledNode, _ value: JSONValue) -> Bool {
        guard let n = Num(value) else { return true }
        var ok = true
        if let b = node.s.minimum, Num.compare(n, b.value) < 0 {
            fail("minimum", b.expected, Render.number(value))
            guard tracking else { return false }
            ok = false
        }
        if let b = node.s.exclusiveMinimum, Num.compare(n, b.value) <= 0 {
            fail("exclusiveMinimum", b.expected, Render.number(value))
            guard tracking else { return false }
            ok = false
        }
        if let b = node.s.maximum, Num.compare(n, b.value) > 0 {
            fail("maximum", b.expected, Render.number(value))
            guard tracking else { return false }
            ok = false
        }
        if let b = node.s.exclusiveMaximum, Num.compare(n, b.value) >= 0 {
            fail("exclusiveMaximum", b.expected, Render.number(value))
            guard tracking else { return false }
            ok = false
        }
        if let m = node.s.multipleOf, !m.divides(n) {
            fail("multipleOf", node.s.multipleOfExpected, Render.number(value))
            ok = false
        }
        return ok
    }

    private mutating func checkString(_ node: CompiledNode, _ s: String, _ value: JSONValue) -> Bool {
        var ok = true
        if node.s.minLength != nil || node.s.maxLength != nil, !Validator.lengthSurelyFits(s, node.s.minLength, node.s.maxLength) {
            let length = s.unicodeScalars.count
            if let min = node.s.minLength, length < min {
                fail("minLength", "at least \(Render.plural(min, "character"))",
                     "\(Render.found(value)) (\(Render.plural(length, "character")))")
                guard tracking else { return false }
                ok = false
            }
            if let max = node.s.maxLength, length > max {
                fail("maxLength", "at most \(Render.plural(max, "character"))",
                     "\(Render.found(value)) (\(Render.plural(length, "character")))")
                guard tracking else { return false }
                ok = false
            }
        }
        if let p = node.s.pattern, !p.matches(s) {
            fail("pattern", Render.patternExpectation(p.source, description: node.s.description), Render.found(value))
            guard tracking else { return false }
            ok = false
        }
        if let f = node.s.format, !f.accepts(s) {
            fail("format", f.expected, Render.found(value))
            ok = false
        }
        return ok
    }

    /// Whether the UTF-8 length alone shows the scalar count within bounds: a scalar takes one to
    /// four bytes, so this avoids counting scalars for most strings.
    static func lengthSurelyFits(_ s: String, _ min: Int?, _ max: Int?) -> Bool {
        let bytes = s.utf8.count
        if let max, bytes > max { return false }
        if let min, bytes / 4 < min { return false }
        return true
    }

    private mutating func checkArray(_ node: CompiledNode, _ elements: [JSONValue], _ value: JSONValue) -> Bool {
        var ok = true
        if let min = node.s.minItems, elements.count < min {
            fail("minItems", "at least \(Render.plural(min, "item"))", Render.plural(elements.count, "item"))
            guard tracking else { return false }
            ok = false
        }
        if let max = node.s.maxItems, elements.count > max {
            fail("maxItems", "at most \(Render.plural(max, "item"))", Render.plural(elements.count, "item"))
            guard tracking else { return false }
            ok = false
        }
        if node.s.uniqueItems, elements.count > 1 {
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
        let prefix = min(node.s.prefixItems.count, elements.count)
        for i in 0..<prefix where !descend(node.s.prefixItems[i], elements[i], .index(i)) {
            guard tracking else { return false }
            ok = false
        }
        if let items = node.s.items, elements.count > prefix {
            for i in prefix..<elements.count where !descend(items, elements[i], .index(i)) {
                guard tracking else { return false }
                ok = false
            }
        }
        return ok
    }

    private mutating func checkObject(_ node: CompiledNode, _ members: [String: JSONValue], _ value: JSONValue) -> Bool {
        var ok = true
        if let min = node.s.minProperties, members.count < min {
            fail("minProperties", "at least \(Render.plural(min, "member"))", Render.plural(members.count, "member"))
            guard tracking else { return false }
            ok = false
        }
        if let max = node.s.maxProperties, members.count > max {
            fail("maxProperties", "at most \(Render.plural(max, "member"))", Render.plural(members.count, "member"))
            guard tracking else { return false }
            ok = false
        }
        if let names = node.s.propertyNames {
            for key in members.keys where !quietly(names, .string(key)) {
                guard tracking else { return false }
                ok = false
                let first = separately(names, .string(key)).first?.violation
                fail("propertyNames", "member name: " + (first?.expected ?? "a valid name"),
                     "name \(Render.quoted(key))", member: .key(key))
            }
        }
        var requiredMet = 0
        if node.s.patternProperties.isEmpty, node.s.additionalProperties == nil {
            for (name, property) in node.s.propertyList {
                guard let member = members[name] else { continue }
                if property.required { requiredMet += 1 }
                if !descend(property.node, member, .key(name)) {
                    guard tracking else { return false }
                    ok = false
                }
            }
        } else {
            for (key, member) in members {
                var matched = false
                if let property = node.s.properties[key] {
                    matched = true
                    if property.required { requiredMet += 1 }
                    if !descend(property.node, member, .key(key)) {
                        guard tracking else { return false }
                        ok = false
                    }
                }
                for (pattern, child) in node.s.patternProperties where pattern.matches(key) {
                    matched = true
                    if !descend(child, member, .key(key)) {
                        guard tracking else { return false }
                        ok = false
                    }
                }
                if !matched, let additional = node.s.additionalProperties, !descend(additional, member, .key(key)) {
                    guard tracking else { return false }
                    ok = false
                }
            }
        }
        if !node.s.required.isEmpty, !node.s.requiredAllDeclared || requiredMet != node.s.required.count {
            for name in node.s.required where members[name] == nil {
                fail("required", "a value (required member)", "missing", member: .key(name))
                guard tracking else { return false }
                ok = false
            }
        }
        return ok
    }

    private mutating func checkApplicators(_ node: CompiledNode, _ value: JSONValue) -> Bool {
        var ok = true
        if !node.s.anyOf.isEmpty {
            if !tracking {
                if !node.s.anyOf.contains(where: { validate($0, value) }) { return false }
            } else {
                // Each alternative is walked once, describing as it goes: checking quietly first
                // and describing afterwards would walk nested alternatives again at every level.
                let outcomes = node.s.anyOf.map { separately($0, value) }
                if !outcomes.contains(where: \.isEmpty) {
                    ok = false
                    let miss = closestMiss(outcomes)
                    fail("anyOf", "at least one of \(Render.plural(node.s.anyOf.count, "alternative"))",
                         "none matched: " + miss, cause: miss)
                }
            }
        }
        if !node.s.oneOf.isEmpty {
            if !tracking {
                var matched = 0
                for sub in node.s.oneOf where validate(sub, value) {
                    matched += 1
                    if matched > 1 { return false }
                }
                if matched == 0 { return false }
            } else {
                let outcomes = node.s.oneOf.map { separately($0, value) }
                let matched = outcomes.filter(\.isEmpty).count
                if matched != 1 {
                    ok = false
                    let miss = matched == 0 ? closestMiss(outcomes) : nil
                    let found = miss.map { "none matched: " + $0 } ?? "\(matched) matched"
                    fail("oneOf", "exactly one of \(Render.plural(node.s.oneOf.count, "alternative"))", found, cause: miss)
                }
            }
        }
        if let not = node.s.not, quietly(not, value) {
            let location = nodes[not].s.location
            fail("not", "a value that does not match the schema at \(location)", Render.found(value))
            guard tracking else { return false }
            ok = false
        }
        if let condition = node.s.ifSchema {
            let branch = quietly(condition, value) ? node.s.thenSchema : node.s.elseSchema
            if let branch, !validate(branch, value) {
                ok = false
            }
        }
        return ok
    }

    /// The first violation of the alternative that came closest (one that accepts the instance's
    /// type if there is any, then the one with the fewest violations, then the first), as its
    /// innermost cause.
    ///
    /// Preferring alternatives whose `type` fits means that for `oneOf: [{"type": "null"}, {object
    /// schema}]` an object is told what is wrong inside it, not that it is not null.
    private func closestMiss(_ outcomes: [[Recorded]]) -> String {
        var best: (typeMismatch: Int, count: Int, cause: String)?
        for violations in outcomes {
            guard let first = violations.first else { continue }
            let typeMismatch = violations.contains { $0.violation.keyword == "type" && $0.path == path } ? 1 : 0
            if let b = best, (b.typeMismatch, b.count) <= (typeMismatch, violations.count) { continue }
            best = (typeMismatch, violations.count, first.cause)
        }
        return best?.cause ?? "no alternative matched"
    }
}
