import TesseraSDK

/// One step into an instance: a member name or an array index.
enum PathComponent: Sendable, Hashable {
    case key(String)
    case index(Int)

    /// Document order: array elements by index, object members by name (as `serialized()` writes them).
    static func precedes(_ a: PathComponent, _ b: PathComponent) -> Bool? {
        switch (a, b) {
        case (.index(let x), .index(let y)): return x == y ? nil : x < y
        case (.key(let x), .key(let y)): return x == y ? nil : x < y
        case (.index, .key): return true
        case (.key, .index): return false
        }
    }
}

enum Render {
    /// `$`, `$.a.b[1].c`, `$["a b"]`.
    static func path(_ components: [PathComponent]) -> String {
        var out = "$"
        for c in components {
            switch c {
            case .index(let i): out += "[\(i)]"
            case .key(let k):
                if isIdentifier(k) {
                    out += "." + k
                } else {
                    out += "["
                    quote(k, into: &out, limit: Int.max)
                    out += "]"
                }
            }
        }
        return out
    }

    static func isIdentifier(_ s: String) -> Bool {
        var first = true
        for b in s.utf8 {
            let letter = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F
            let digit = b >= 0x30 && b <= 0x39
            if !(letter || (digit && !first)) { return false }
            first = false
        }
        return !first
    }

    /// A number as written in JSON: `12`, `0.01`, `1e-07`.
    static func number(_ v: JSONValue) -> String {
        switch v {
        case .integer(let i): return String(i)
        case .number(let d):
            if d.rounded() == d, abs(d) < 1e15 { return String(Int64(d)) }
            return "\(d)"
        default: return compact(v, limit: 40)
        }
    }

    /// What a `pattern` asks for, in words when the schema gives them: the `description` beside the
    /// pattern, its first letter lowered and a final full stop dropped so that it reads after
    /// "expected" (`"a month, YYYY-MM"`); otherwise the regular expression itself.
    static func patternExpectation(_ source: String, description: String?) -> String {
        var words = String((description ?? "").drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        guard !words.isEmpty else { return "a string matching /\(source)/" }
        if words.hasSuffix(".") { words.removeLast() }
        // "A month" → "a month", but an acronym such as "IBAN …" stays as written.
        let opening = words.prefix(2)
        if let first = opening.first, first.isUppercase, opening.count < 2 || !opening.last!.isUppercase {
            words = first.lowercased() + words.dropFirst()
        }
        return words
    }

    /// A brief description of a value: its type and a short rendering, such as `string "abc"`,
    /// `integer 12`, `object {"a":1}`, `null`.
    static func found(_ v: JSONValue) -> String {
        switch v {
        case .null: return "null"
        case .bool(let b): return "boolean \(b)"
        case .integer, .number: return "\(v.typeName) \(number(v))"
        case .string(let s): return "string " + quoted(s, limit: 40)
        case .array: return "array " + compact(v, limit: 40)
        default: return "\(v.typeName) " + compact(v, limit: 40)  // an object
        }
    }

    /// The JSON text of a value, keys sorted, cut with `…` after about `limit` characters.
    static func compact(_ v: JSONValue, limit: Int) -> String {
        var out = ""
        var budget = limit
        write(v, into: &out, budget: &budget)
        return out
    }

    /// A list of values for `enum`: `"cash", "bank"`; long lists are shortened.
    static func list(_ values: [JSONValue]) -> String {
        let shown = values.prefix(10).map { compact($0, limit: 30) }
        var text = shown.joined(separator: ", ")
        if values.count > shown.count { text += ", … (\(values.count) values)" }
        return text
    }

    /// `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
    static func alternatives(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + words.last!
    }

    static func plural(_ n: Int, _ word: String) -> String {
        n == 1 ? "1 \(word)" : "\(n) \(word)s"
    }

    private static func write(_ v: JSONValue, into out: inout String, budget: inout Int) {
        guard budget > 0 else { ellipsis(&out); return }
        switch v {
        case .null: emit("null", into: &out, budget: &budget)
        case .bool(let b): emit(b ? "true" : "false", into: &out, budget: &budget)
        case .integer, .number: emit(number(v), into: &out, budget: &budget)
        case .string(let s):
            let q = quoted(s, limit: max(budget - 2, 1))
            out += q
            budget -= q.unicodeScalars.count
        case .array(let elements):
            emit("[", into: &out, budget: &budget)
            for (i, e) in elements.enumerated() {
                if budget <= 0 { ellipsis(&out); return }
                if i > 0 { emit(",", into: &out, budget: &budget) }
                write(e, into: &out, budget: &budget)
            }
            if budget > 0 { emit("]", into: &out, budget: &budget) } else { ellipsis(&out) }
        default:
            // An object (written without naming the last case, so whether JSONValue is @frozen or not).
            guard case .object(let members) = v else { emit(v.typeName, into: &out, budget: &budget); return }
            emit("{", into: &out, budget: &budget)
            for (i, key) in members.keys.sorted().enumerated() {
                if budget <= 0 { ellipsis(&out); return }
                if i > 0 { emit(",", into: &out, budget: &budget) }
                let q = quoted(key, limit: max(budget - 2, 1)) + ":"
                out += q
                budget -= q.unicodeScalars.count
                write(members[key]!, into: &out, budget: &budget)
            }
            if budget > 0 { emit("}", into: &out, budget: &budget) } else { ellipsis(&out) }
        }
    }

    private static func ellipsis(_ out: inout String) {
        if !out.hasSuffix("…") { out += "…" }
    }

    /// Appends `text`, or as much of it as the budget allows followed by `…`.
    private static func emit(_ text: String, into out: inout String, budget: inout Int) {
        guard budget > 0 else { return }
        let count = text.unicodeScalars.count
        if count <= budget {
            out += text
            budget -= count
        } else {
            out.unicodeScalars.append(contentsOf: text.unicodeScalars.prefix(budget))
            out += "…"
            budget = 0
        }
    }

    /// A JSON string literal, cut with `…` inside the quotes after `limit` characters.
    static func quote(_ s: String, into out: inout String, limit: Int) {
        let scalars = s.unicodeScalars
        guard scalars.count > limit else {
            out += JSONValue.string(s).serialized()
            return
        }
        let literal = JSONValue.string(String(String.UnicodeScalarView(scalars.prefix(limit)))).serialized()
        out += literal.dropLast() + "…\""
    }

    static func quoted(_ s: String, limit: Int = 60) -> String {
        var out = ""
        quote(s, into: &out, limit: limit)
        return out
    }
}
