import TesseraSDK

/// What the runner's sandbox enforces in one child (docs/isolation.md, "The sandbox"), as the
/// child reports it to the host in its answer to `load`. The host logs each warning.
public struct SandboxReport: Sendable, Equatable {
    public enum State: String, Sendable { case enforced, missing, notAsked }

    /// False for a child started without `--library` (no sandbox asked for).
    public var applied: Bool
    /// The kernel's Landlock ABI version (0: none).
    public var landlockABI: Int
    /// Each mechanism by name: `landlock.files`, `landlock.tcp`, `landlock.scopes`,
    /// `networkNamespace`, `seccomp`, `capabilities`, `memoryLimit`, `cpuLimit`.
    public var mechanisms: [String: State]
    /// Why a mechanism could not be applied, one line each.
    public var warnings: [String]

    public init(applied: Bool, landlockABI: Int, mechanisms: [String: State], warnings: [String]) {
        self.applied = applied
        self.landlockABI = landlockABI
        self.mechanisms = mechanisms
        self.warnings = warnings
    }

    public static let none = SandboxReport(applied: false, landlockABI: 0, mechanisms: [:], warnings: [])

    public var wire: JSONValue {
        ["applied": .bool(applied), "landlockABI": .integer(Int64(landlockABI)),
         "mechanisms": .object(mechanisms.mapValues { .string($0.rawValue) }),
         "warnings": .array(warnings.map(JSONValue.string))]
    }

    public init(wire: JSONValue) {
        applied = wire["applied"]?.boolValue ?? false
        landlockABI = Int(wire["landlockABI"]?.integerValue ?? 0)
        mechanisms = (wire["mechanisms"]?.objectValue ?? [:]).compactMapValues { $0.stringValue.flatMap(State.init(rawValue:)) }
        warnings = (wire["warnings"]?.arrayValue ?? []).compactMap(\.stringValue)
    }
}
