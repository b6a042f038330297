import Hummingbird
import TesseraHub

extension APIError {
    /// The answer to a ``HubError``: its kind gives the status, its code and message pass as they
    /// are — except a 500, whose message (the store's failure) stays in the host's log.
    init(_ error: HubError) {
        let status: HTTPResponse.Status = switch error.kind {
        case .invalidInput: .badRequest
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .gone: .gone
        case .payloadTooLarge: .contentTooLarge
        case .unprocessable: .unprocessableContent
        case .insufficientStorage: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage")
        case .tooManyRequests: .tooManyRequests
        case .unavailable: .serviceUnavailable
        case .internal: .internalServerError
        }
        if error.kind == .internal {
            self.init(status, code: "internal", "the hub failed; its log has the details")
        } else if error.kind == .unauthorized {
            self = .unauthorized(error.message)
            code = error.code.rawValue
        } else {
            self.init(status, code: error.code.rawValue, error.message, field: error.field)
        }
    }
}
