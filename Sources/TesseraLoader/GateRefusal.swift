import Foundation

/// Why a plugin library was refused: which gate, which field, and both values.
///
/// Gates 1 and 2 run before any plugin code: (1) the file — sha256, the ELF stamp, the link lint —
/// and (2) `dlopen`. Gate 3 is the handshake with the plugin's entry symbol.
public struct GateRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1 (file checks), 2 (dlopen) or 3 (handshake).
    public let gate: Int
    /// The field that differs, e.g. `sdk.abi.major`, `library.sha256`, `toolchain`, `link`.
    public let field: String
    /// What the host needs.
    public let expected: String
    /// What the library has.
    public let found: String
    /// How to fix it, where there is something to say.
    public let hint: String?

    public init(gate: Int, field: String, expected: String, found: String, hint: String? = nil) {
        self.gate = gate
        self.field = field
        self.expected = expected
        self.found = found
        self.hint = hint
    }

    public var description: String {
        let base = "gate \(gate) (\(Self.gateName(gate))): \(field): expected \(expected), found \(found)"
        return hint.map { "\(base) — \($0)" } ?? base
    }

    static func gateName(_ gate: Int) -> String {
        switch gate {
        case 1: return "file"
        case 2: return "load"
        default: return "handshake"
        }
    }
}

extension GateRefusal {
    /// The same refusal with `stagedPath` (the content-addressed copy the host checked and loaded)
    /// written as `sourcePath` (the file the operator named), so the message points at a file the
    /// operator knows and can fix.
    public func naming(_ sourcePath: String, insteadOf stagedPath: String) -> GateRefusal {
        guard sourcePath != stagedPath else { return self }
        func rewrite(_ text: String) -> String { text.replacingOccurrences(of: stagedPath, with: sourcePath) }
        return GateRefusal(gate: gate, field: field, expected: rewrite(expected), found: rewrite(found), hint: hint.map(rewrite))
    }
}
