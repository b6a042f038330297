import HTTPTypes

/// The two budgets a token has. Admin routes never share a bucket with ordinary calls, so an
/// operator can still swap a plugin or move the clock while a client spends its call budget (a
/// `plugins swap` under load was refused with 429 when they shared one).
enum RateLimitBudget: String, Sendable, Hashable {
    /// Every route but the admin ones: operations, the inbox, the stream, location, listings.
    case calls
    /// `POST /v1/plugins/{id}/swap`, `POST /v1/plugins/{id}/restart`, `POST /v1/clock/advance`,
    /// `POST /v1/deployment/reload`, and anything under `/v1/tokens`.
    case admin

    /// The budget a request spends, from its method and path alone (the middleware runs before the
    /// router has matched a route).
    /// Read from the path's bytes: this runs on every request (splitting the path into Strings
    /// was 2 % of an operation call's CPU).
    static func of(_ method: HTTPRequest.Method, path: String) -> RateLimitBudget {
        guard method == .post else { return .calls }
        let bytes = path.utf8
        if bytes.elementsEqual("/v1/clock/advance".utf8) || bytes.elementsEqual("/v1/deployment/reload".utf8) || bytes.elementsEqual("/v1/tokens".utf8)
            || bytes.starts(with: "/v1/tokens/".utf8) { return .admin }
        // `/v1/plugins/{id}/swap` and `/restart` exactly: an operation named `swap` is `/v1/plugins/{id}/ops/swap`.
        let prefix = "/v1/plugins/".utf8
        guard bytes.starts(with: prefix) else { return .calls }
        let rest = bytes.dropFirst(prefix.count)
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")), slash > rest.startIndex else { return .calls }
        let action = rest[rest.index(after: slash)...]
        return action.elementsEqual("swap".utf8) || action.elementsEqual("restart".utf8) ? .admin : .calls
    }
}
