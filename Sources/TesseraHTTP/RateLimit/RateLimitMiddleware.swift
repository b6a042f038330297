import HTTPTypes
import Hummingbird

/// Spends a request from its token's bucket, and tells the client where it stands with the IETF
/// draft's fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` (the bucket's size and
/// the seconds it takes to refill) and `RateLimit` (what remains, and the seconds until the bucket
/// is full again), on every answer. Once the bucket is empty: 429 with `Retry-After`.
///
/// Runs after ``AuthMiddleware``: the budget is per token, and requests without a principal
/// (the probes, the console's files) and `/metrics` are not counted. Admin routes spend their own bucket
/// (``RateLimitBudget``).
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let decision = try admit(request, context)
        var response = try await next(request, context)
        if let decision { response.headers.append(contentsOf: Self.fields(decision)) }
        return response
    }

    /// Spends the request from its bucket: the decision whose fields its answer carries, `nil` for
    /// a request that is not counted, or the 429 of an empty bucket.
    ///
    /// `budget`, when the caller knows it (the edge's shortcut: a plugin operation spends `calls`),
    /// spares reading it from the path.
    func admit(_ request: Request, _ context: Context, budget: RateLimitBudget? = nil) throws -> RateLimiter.Decision? {
        guard let principal = context.principal else { return nil }
        let decision: RateLimiter.Decision?
        if let budget {
            decision = limiter.admit(principal.id, budget)
        } else {
            // A scraper's `/metrics` every few seconds is not a client's calls (issue 46): never limited.
            let path = request.uri.path
            guard path != "/metrics" else { return nil }
            decision = limiter.admit(principal.id, RateLimitBudget.of(request.method, path: path))
        }
        guard let decision else { return nil }
        if let wait = decision.retryAfter {
            var error = APIError.rateLimited(retryAfterSeconds: wait)
            error.headers.append(contentsOf: Self.fields(decision))
            throw error
        }
        return decision
    }

    /// `RateLimit-Policy: "calls";q=1000;w=4` and `RateLimit: "calls";r=998;t=1`. A token bucket
    /// is described as its capacity (`q`) over the time it takes to refill from empty (`w`).
    static func fields(_ decision: RateLimiter.Decision) -> HTTPFields {
        let name = decision.budget.rawValue
        let quota = Int(decision.limit.burst.rounded(.down))
        let window = RateLimiter.wholeSeconds(decision.limit.burst / decision.limit.perSecond, atLeast: 1)
        return [
            .rateLimitPolicy: "\"\(name)\";q=\(quota);w=\(window)",
            .rateLimit: "\"\(name)\";r=\(decision.remaining);t=\(decision.secondsUntilFull)",
        ]
    }
}

extension HTTPField.Name {
    /// The quota policy a response was counted against (draft-ietf-httpapi-ratelimit-headers).
    static let rateLimitPolicy = HTTPField.Name("RateLimit-Policy")!
    /// What remains of that quota (draft-ietf-httpapi-ratelimit-headers).
    static let rateLimit = HTTPField.Name("RateLimit")!
}
