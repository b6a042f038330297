import Foundation
import Synchronization

/// A compiled `pattern` or `patternProperties` regular expression, searched (not anchored) as
/// JSON Schema says.
struct Pattern: Sendable {
    /// The pattern as the schema wrote it.
    let source: String
    /// The expression, compiled with the schema or the first time a value reaches it.
    private let expression: Expression

    private enum Expression {
        /// ``PatternCompilation/whenCompiled``.
        case compiled(NSRegularExpression)
        /// ``PatternCompilation/whenFirstUsed``.
        case deferred(DeferredRegex)
    }

    /// Compiles an ECMA-262-style pattern with `NSRegularExpression` (ICU syntax), first bringing
    /// the few common constructs whose meaning differs closer to ECMA-262:
    ///
    /// - `$` outside a character class matches only at the very end (`\z`); in ICU it also matches
    ///   before a final line break, which would let `"abc\n"` through `^[a-z]+$`.
    /// - `\d` is `[0-9]` and `\w` is `[A-Za-z0-9_]` (ASCII, as in ECMA-262), not their Unicode forms.
    ///
    /// With `.whenFirstUsed`, nothing is compiled (or checked) until the first match; with
    /// `.checkedOnly`, it is compiled to be checked and compiled again at the first match.
    init(_ source: String, compilation: PatternCompilation = .whenCompiled) throws {
        self.source = source
        switch compilation {
        case .whenCompiled: expression = .compiled(try Pattern.shared(source))
        case .whenFirstUsed: expression = .deferred(DeferredRegex())
        case .checkedOnly:
            if !Pattern.isShared(source) { _ = try NSRegularExpression(pattern: Pattern.translate(source), options: []) }
            expression = .deferred(DeferredRegex())
        }
    }

    /// The compiled expression.
    var regex: NSRegularExpression {
        switch expression {
        case .compiled(let regex): return regex
        case .deferred(let deferred): return deferred.regex(source)
        }
    }

    /// Expressions compiled once per process and shared by every schema that names them: the
    /// shipped manifests write the same few dozen patterns (dates, ids, currency codes) some 250
    /// times between their operations, and each compiled ICU expression holds kilobytes. Matching
    /// one expression from several threads at once is safe (Foundation checks a matcher out per
    /// match). At most ``mostShared`` are kept; past that, patterns are compiled per schema again.
    fileprivate static func shared(_ source: String) throws -> NSRegularExpression {
        if let known = compiled.withLock({ $0[source] }) { return known }
        let regex = try NSRegularExpression(pattern: translate(source), options: [])
        return compiled.withLock { cache in
            if let raced = cache[source] { return raced }
            if cache.count < mostShared { cache[source] = regex }
            return regex
        }
    }

    /// Whether `source` is compiled and shared already.
    static func isShared(_ source: String) -> Bool {
        compiled.withLock { $0[source] != nil }
    }

    private static let compiled = Mutex<[String: NSRegularExpression]>([:])
    static let mostShared = 4096

    func matches(_ s: String) -> Bool {
        let range = NSRange(location: 0, length: s.utf16.count)
        return regex.firstMatch(in: s, options: [], range: range) != nil
    }

    static func translate(_ pattern: String) -> String {
        var out = ""
        var inClass = false
        var scalars = pattern.unicodeScalars.makeIterator()
        while let c = scalars.next() {
            switch c {
            case "\\":
                guard let e = scalars.next() else { out += "\\"; break }
                switch e {
                case "d": out += inClass ? "0-9" : "[0-9]"
                case "w": out += inClass ? "A-Za-z0-9_" : "[A-Za-z0-9_]"
                case "D" where !inClass: out += "[^0-9]"
                case "W" where !inClass: out += "[^A-Za-z0-9_]"
                default:
                    out.unicodeScalars.append(c)
                    out.unicodeScalars.append(e)
                }
            case "[" where !inClass:
                inClass = true
                out += "["
            case "]" where inClass:
                inClass = false
                out += "]"
            case "$" where !inClass:
                out += "\\z"
            default:
                out.unicodeScalars.append(c)
            }
        }
        return out
    }
}

/// An expression compiled on its first match: a host schema's (compiling one costs ICU tens of
/// microseconds, and a deployment or manifest reaches a few of the host schemas' thirty-odd
/// patterns; `tessera call` compiled them all for every process), or one of a schema compiled only
/// to be checked (``PatternCompilation/checkedOnly``).
private final class DeferredRegex: Sendable {
    private let regex = Mutex<NSRegularExpression?>(nil)

    func regex(_ source: String) -> NSRegularExpression {
        if let known = regex.withLock({ $0 }) { return known }
        let compiled: NSRegularExpression
        do { compiled = try Pattern.shared(source) } catch {
            // Deferred are the host's own schemas' patterns, which their tests compile each one, and
            // those of a schema compiled with `.checkedOnly`, which compiled when it was checked.
            preconditionFailure("a pattern of the host's own schemas does not compile: \(source)")
        }
        regex.withLock { $0 = compiled }
        return compiled
    }
}
