import Hummingbird

/// Refuses a request with 429 and `Retry-After` once its token's bucket is empty. Runs after
/// ``AuthMiddleware``: the budget is per token, and requests without a principal (`/healthz`)
/// are not counted.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let principal = context.principal, let wait = limiter.admit(principal.id) {
            throw APIError.rateLimited(retryAfterSeconds: wait)
        }
        return try await next(request, context)
    }
}
