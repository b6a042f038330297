/// An error a plugin throws to its caller, or the host returns for a call it refused.
///
/// The host turns it into the error the caller sees (`{"error": {"code", "message", "field"}}` over
/// HTTP, one line on stderr from the CLI). Any other error thrown by plugin code reaches the caller
/// as ``Code-swift.struct/internal`` with a generic message, so internals never leak.
public struct PluginError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable error code.
    ///
    /// A plugin's own codes (``PluginError/reason``) can be written as string literals:
    /// `reason: "split_sum"`.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// The code as text, e.g. `"invalid_input"`.
        public let rawValue: String
        /// Creates a code from its text.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code as text.
        public var description: String { rawValue }
        /// Creates a code from a literal: `"split_sum"`.
        public init(stringLiteral value: String) { self.rawValue = value }

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
    /// The plugin's own, more exact code for this refusal (`split_sum`, `pin_locked`), where
    /// ``code`` alone does not say enough; `nil` otherwise.
    ///
    /// ``code`` stays the kind of refusal (and so the HTTP status); the reason says which rule
    /// refused, so a client can show its own sentence for it. A plugin lists its reasons in its
    /// manifest's `reasons`, in snake_case, and never writes them into ``message``. (SDK 1.10.)
    public var reason: Code?

    /// Creates an error.
    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
        self.reason = nil
    }

    /// Creates an error that names the plugin's own reason for it.
    ///
    /// ```swift
    /// throw PluginError(.invalidInput, "the parts add up to 90.00 but the transaction is 100.00",
    ///                   field: "$.parts", reason: .splitSum)
    /// ```
    public init(_ code: Code, _ message: String, field: String? = nil, reason: Code?) {
        self.code = code
        self.message = message
        self.field = field
        self.reason = reason
    }

    /// `code: message (at field)`, or `code (reason): message (at field)`, one line.
    public var description: String {
        let kind = reason.map { "\(code) (\($0))" } ?? "\(code)"
        return field.map { "\(kind): \(message) (at \($0))" } ?? "\(kind): \(message)"
    }
}
