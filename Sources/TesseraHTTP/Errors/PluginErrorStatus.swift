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
    /// | `unprocessable` | 422 |
    /// | `unavailable` | 503 |
    /// | `plugin_crashed` (the plugin's process died during the call) | 502 |
    /// | `plugin_timeout` (the call ran past its deadline) | 504 |
    /// | `internal`, and any code not above | 500, with a generic message |
    ///
    /// A 500 never carries the plugin's message: it may hold internals (a path, a query, a token).
    /// The host logs what happened; the client only learns that it failed.
    public init(_ error: PluginError) {
        guard let status = Self.status(for: error.code) else {
            self.init(.internalServerError, code: PluginError.Code.internal.rawValue, "the operation failed; the host's log has the details")
            return
        }
        self.init(status, code: error.code.rawValue, error.message, field: error.field)
    }

    /// The status for each code a client may see as it is; `nil` for the ones answered as 500.
    static func status(for code: PluginError.Code) -> HTTPResponse.Status? {
        switch code {
        case .invalidInput: .badRequest
        case .forbidden, .notGranted: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .unprocessable: .unprocessableContent
        case .unavailable: .serviceUnavailable
        case .pluginCrashed: .badGateway
        case .pluginTimeout: .gatewayTimeout
        default: nil
        }
    }
}
