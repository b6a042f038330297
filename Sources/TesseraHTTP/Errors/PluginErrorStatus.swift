import Hummingbird
import TesseraRuntime
import TesseraSDK

extension APIError {
    /// The answer to a ``PluginError`` from the host or a plugin.
    ///
    /// | code | status |
    /// | --- | --- |
    /// | `invalid_input` | 400 |
    /// | `forbidden`, `not_granted` | 403 |
    /// | `not_found` | 404 |
    /// | `conflict` | 409 |
    /// | `payload_too_large` | 413 |
    /// | `unsupported_media_type` | 415 |
    /// | `unprocessable` | 422 |
    /// | `quota_exceeded` | 507 |
    /// | `unavailable` | 503 |
    /// | `plugin_crashed` (the plugin's process died during the call) | 502 |
    /// | `plugin_timeout` (the call ran past its deadline) | 504 |
    /// | the hub's space codes (`last_owner`, …: `spaceStatus(for:)`) and mail codes (`mail_rate_exceeded` 429, …: `mailStatus(for:)`) | as the hub answered |
    /// | `internal`, and any code not above | 500, with a generic message |
    ///
    /// A 500 never carries the plugin's message: it may hold internals (a path, a query, a token).
    /// The host logs what happened; the client only learns that it failed.
    public init(_ error: PluginError) {
        guard let status = Self.status(for: error.code) else {
            self.init(.internalServerError, code: PluginError.Code.internal.rawValue, "the operation failed; the host's log has the details")
            return
        }
        // A plugin the host is still starting: worth asking again in a second.
        let retry: HTTPFields = error.code == .unavailable && error.message.hasSuffix(PluginError.startingMessageEnding)
            ? [.retryAfter: "1"] : [:]
        self.init(status, code: error.code.rawValue, error.message, field: error.field, reason: error.reason?.rawValue, headers: retry)
    }

    /// The status for each code a client may see as it is; `nil` for the ones answered as 500.
    static func status(for code: PluginError.Code) -> HTTPResponse.Status? {
        switch code {
        case .invalidInput: .badRequest
        case .forbidden, .notGranted: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .unprocessable: .unprocessableContent
        case .payloadTooLarge: .contentTooLarge
        case .unsupportedMediaType: .unsupportedMediaType
        case .quotaExceeded: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
        case .unavailable: .serviceUnavailable
        case .pluginCrashed: .badGateway
        case .pluginTimeout: .gatewayTimeout
        default: spaceStatus(for: code) ?? mailStatus(for: code)
        }
    }
}
