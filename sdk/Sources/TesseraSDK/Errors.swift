/// An error a plugin throws to its caller, or the host returns for a call it refused.
///
/// The host turns it into the error the caller sees (`{"error": {"code", "message", "field"}}` over
/// HTTP, one line on stderr from the CLI). Any other error thrown by plugin code reaches the caller
/// as ``Code-swift.struct/internal`` with a generic message, so internals never leak.
public struct PluginError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable error code.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code as text, e.g. `"invalid_input"`.
        public let rawValue: String
        /// Creates a code from its text.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code as text.
        public var description: String { rawValue }

        /// The input is malformed or breaks a rule (HTTP 400).
        public static let invalidInput = Code(rawValue: "invalid_input")
        /// The caller may not do this (HTTP 403).
        public static let forbidden = Code(rawValue: "forbidden")
        /// The thing asked for does not exist (HTTP 404).
        public static let notFound = Code(rawValue: "not_found")
        /// The request conflicts with the current state (HTTP 409).
        public static let conflict = Code(rawValue: "conflict")
        /// Well-formed, but the rules of the domain refuse it (HTTP 422).
        public static let unprocessable = Code(rawValue: "unprocessable")
        /// A capability the plugin needs was not granted by the operator.
        public static let notGranted = Code(rawValue: "not_granted")
        /// The plugin or a service it needs is not available now (HTTP 503).
        public static let unavailable = Code(rawValue: "unavailable")
        /// Anything else (HTTP 500). The message is generic.
        public static let `internal` = Code(rawValue: "internal")
    }

    /// What kind of error this is.
    public var code: Code
    /// One sentence for a person, naming the cause.
    public var message: String
    /// The input field at fault, as a JSON path (e.g. `$.amount`), where there is one.
    public var field: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    /// `code: message (at field)`, one line.
    public var description: String {
        field.map { "\(code): \(message) (at \($0))" } ?? "\(code): \(message)"
    }
}
