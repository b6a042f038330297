import HTTPTypes

/// The two budgets a token has. Admin routes never share a bucket with ordinary calls, so an
/// operator can still swap a plugin or move the clock while a client spends its call budget (a
/// `plugins swap` under load was refused with 429 when they shared one).
enum RateLimitBudget: String, Sendable, Hashable {
    /// Every route but the admin ones: operations, the inbox, the stream, location, listings.
    case calls
    /// `POST /v1/plugins/{id}/swap`, `POST /v1/plugins/{id}/restart`, `POST /v1/clock/advance`,
    /// and anything under `/v1/tokens`.
    case admin

    /// The budget a request spends, from its method and path alone (the middleware runs before the
    /// router has matched a route).
    static func of(_ method: HTTPRequest.Method, path: String) -> RateLimitBudget {
        guard method == .post else { return .calls }
        if path == "/v1/clock/advance" || path == "/v1/tokens" || path.hasPrefix("/v1/tokens/") { return .admin }
        // `/v1/plugins/{id}/swap` and `/restart` exactly: an operation named `swap` is `/v1/plugins/{id}/ops/swap`.
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 5, parts[1] == "v1", parts[2] == "plugins", !parts[3].isEmpty, parts[4] == "swap" || parts[4] == "restart" { return .admin }
        return .calls
    }
}
