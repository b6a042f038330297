import TesseraSDK

/// Why the hub refused a request: a kind (which the HTTP edge turns into a status), a stable
/// machine-readable code (`invalid_credentials`, `last_owner`, `space_deleted`, …; docs/hub.md lists
/// them all), and one sentence for a person.
public struct HubError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The class of refusal.
    public enum Kind: Sendable, Hashable {
        /// 400: the request is malformed.
        case invalidInput
        /// 401: no valid credentials.
        case unauthorized
        /// 403: authenticated, but the role does not allow it.
        case forbidden
        /// 404: no such thing (or not one the caller may know of).
        case notFound
        /// 409: the request conflicts with the current state.
        case conflict
        /// 410: the thing existed and is gone for good (a deleted space, an expired invitation).
        case gone
        /// 413: a file larger than the hub takes in one file (`payload_too_large`).
        case payloadTooLarge
        /// 422: well-formed, but its content is wrong (a file whose bytes do not hash to its address).
        case unprocessable
        /// 507: the person's files on the hub would pass their quota (`quota_exceeded`).
        case insufficientStorage
        /// 429: the person sent as much as the hub takes in a while (`mail_rate_exceeded`).
        case tooManyRequests
        /// 503: the hub lacks what the request needs (`unavailable`: no mail server configured).
        case unavailable
        /// 500: the hub failed (its store); the message is for the log, not the client.
        case `internal`
    }

    public var kind: Kind
    /// The refusal's own code, in snake_case: the same type as a plugin's (`PluginError.Code`), so
    /// the host has one kind of error code; written as a literal (`"last_owner"`).
    public var code: PluginError.Code
    public var message: String
    /// The JSON path of the input field at fault, where there is one.
    public var field: String?

    public init(_ kind: Kind, _ code: PluginError.Code, _ message: String, field: String? = nil) {
        self.kind = kind
        self.code = code
        self.message = message
        self.field = field
    }

    public var description: String { "\(code): \(message)" }

    /// A failure of the hub's own store.
    static func store(_ error: any Error) -> HubError {
        HubError(.internal, "store", "the hub's store failed: \(error)")
    }
}
