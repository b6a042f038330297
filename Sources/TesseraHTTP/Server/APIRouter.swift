import Hummingbird
import TesseraRuntime

/// The HTTP API as one Hummingbird router: the middleware layers, then the routes.
///
/// A request goes through, outermost first:
/// 1. ``ResponseCountMiddleware`` — counts the response's status for `/metrics`;
/// 2. ``ErrorMiddleware`` — anything thrown below becomes a JSON error response;
/// 3. ``AuthMiddleware`` — a known bearer token, except on `/healthz`;
/// 4. ``RateLimitMiddleware`` — the token's budget;
/// 5. the route (``PluginRoutes``, ``ServerRoutes``), or 404/405.
enum APIRouter {
    static func make(host: PluginHost, tokens: TokenStore, configuration: HTTPConfiguration,
                     metrics: HTTPMetrics, readiness: Readiness) -> Router<APIRequestContext> {
        let router = Router(context: APIRequestContext.self, options: .autoGenerateHeadEndpoints)
        // Middlewares apply to routes added after them, so they come first.
        router.add(middleware: ResponseCountMiddleware(metrics: metrics))
        router.add(middleware: ErrorMiddleware(log: host.options.log))
        router.add(middleware: AuthMiddleware(tokens: tokens, openPaths: ["/healthz"]))
        if let limit = configuration.rateLimit {
            router.add(middleware: RateLimitMiddleware(limiter: RateLimiter(limit)))
        }
        let server = ServerRoutes(host: host, metrics: metrics, readiness: readiness)
        let plugins = PluginRoutes(host: host, metrics: metrics, maxBodyBytes: configuration.maxBodyBytes)
        var table = RouteTable(router: router)
        table.add(.get, "/healthz", server.health)
        table.add(.get, "/readyz", server.ready)
        table.add(.get, "/metrics", server.metricsPage)
        table.add(.get, "/openapi.json", server.openAPI)
        table.add(.get, "/v1/plugins", plugins.list)
        table.add(.post, "/v1/plugins/:id/ops/:op", plugins.call)
        table.add(.post, "/v1/plugins/:id/swap", SwapRoute(host: host, maxBodyBytes: configuration.maxBodyBytes).swap)
        table.finish()
        return router
    }
}
