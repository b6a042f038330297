import Foundation
import Hummingbird
import TesseraClock
import TesseraHub
import TesseraRuntime

/// The HTTP API as one Hummingbird router: the middleware layers, then the routes.
///
/// A request goes through, outermost first:
/// 1. ``AccessLogMiddleware`` — a line per request in the host's log, and its `X-Request-Id`;
/// 2. ``ResponseCountMiddleware`` — counts the response's status for `/metrics`;
/// 3. ``ErrorMiddleware`` — anything thrown below becomes a JSON error response;
/// 4. ``AuthMiddleware`` — a known bearer token, except on the probes (`/healthz`, `/readyz`) and
///    the static files of the console (`/`, `/console/…`) and of the modules (`/ui/…`), and on
///    capability links (`/v1/links/…`, the `link` principal: ``LinkRoutes``);
/// 5. ``RateLimitMiddleware`` — the token's budget (its calls', or its admin routes');
/// 6. the route (``PluginRoutes``, ``LinkRoutes``, ``ServerRoutes``, ``NotificationRoutes``, ``StreamRoutes``,
///    ``LocationRoutes``, ``ClockRoutes``, ``ConsoleRoutes``, ``ModuleAssetRoutes``), or 404/405.
///
/// A plugin operation's call reaches its route without the router's look-up (``EdgeResponder``).
enum APIRouter {
    static func make(host: any HostAPI, tokens: TokenStore, configuration: HTTPConfiguration,
                     metrics: HTTPMetrics, readiness: Readiness, streams: StreamHub, hub: HubStore? = nil,
                     hubFiles: HubFiles? = nil) -> EdgeResponder {
        let router = Router(context: APIRequestContext.self, options: .autoGenerateHeadEndpoints)
        let signIn = SignIn(dataDirectory: tokens.dataDirectory)
        let layers = self.layers(tokens: tokens, signIn: signIn, clock: host.clock, configuration: configuration,
                                 metrics: metrics, hub: hub, log: host.options.log)
        // Middlewares apply to routes added after them, so they come first.
        for middleware in layers.middlewares { router.add(middleware: middleware) }
        let server = ServerRoutes(host: host, report: MetricsReport(metrics: metrics), readiness: readiness)
        let plugins = PluginRoutes(host: host, metrics: metrics, maxBodyBytes: configuration.maxBodyBytes)
        // One route collection per feature, each path in one of them.
        router.addRoutes(RouteTable.feature { table in
            table.add(.get, "/healthz", server.health)
            table.add(.get, "/readyz", server.ready)
            table.add(.get, "/metrics", server.metricsPage)
            table.add(.get, "/openapi.json", server.openAPI)
        })
        router.addRoutes(RouteTable.feature { addPlugins(to: &$0, host: host, plugins: plugins, configuration: configuration) })
        router.addRoutes(RouteTable.feature { addSessionAndAccounts(to: &$0, host: host, signIn: signIn, configuration: configuration) })
        router.addRoutes(RouteTable.feature { addInboxAndFeeds(to: &$0, host: host, configuration: configuration, streams: streams) })
        router.addRoutes(RouteTable.feature { addConsole(to: &$0, host: host) })
        if let hub {
            let routes = HubRoutes(hub: hub, tokens: tokens, maxBodyBytes: configuration.maxBodyBytes)
            router.addRoutes(RouteTable.feature {
                HubRoutes.add(to: &$0, hub: hub, tokens: tokens, maxBodyBytes: configuration.maxBodyBytes,
                              registrationOpen: host.deployment.hubRegistrationOpen)
            })
            if let hubFiles { router.addRoutes(RouteTable.feature { HubFileRoutes.add(to: &$0, files: hubFiles, routes: routes) }) }
            router.addRoutes(RouteTable.feature { HubChannelRoutes.add(to: &$0, routes: routes, mailSink: host.deployment.mail != nil) })
            router.addRoutes(RouteTable.feature { HubMailRoutes.add(to: &$0, routes: routes, mailSink: host.deployment.mail != nil) })
        }
        return EdgeResponder(router: router, layers: layers, operationCall: plugins.call,
                             shortcut: configuration.operationShortcut)
    }

    /// The middlewares of every route (the list at the top).
    static func layers(tokens: TokenStore, signIn: SignIn? = nil, clock: (any ClockSource)? = nil,
                       configuration: HTTPConfiguration, metrics: HTTPMetrics, hub: HubStore?,
                       log: HostLog = .discarding) -> EdgeLayers {
        let limits = configuration.rateLimits
        let limited = limits.calls != nil || limits.admin != nil || !limits.tokens.isEmpty
        return EdgeLayers(
            accessLog: AccessLogMiddleware(log: log),
            responseCount: ResponseCountMiddleware(metrics: metrics),
            errors: ErrorMiddleware(),
            // The hub's routes check their own device tokens (HubRoutes).
            auth: AuthMiddleware(tokens: tokens, openPaths: Set(["/healthz", "/readyz", "/metrics", "/", "/favicon.ico"] + SessionRoutes.openPaths),
                                 openPrefixes: ["/console/", "/ui/"] + (hub == nil ? [] : ["/v1/hub/"]),
                                 basicPaths: ["/v1/location"], linkPrefixes: ["/v1/links/"],
                                 signIn: signIn, now: { [clock] in clock?.now() ?? Date() }),
            rateLimit: limited ? RateLimitMiddleware(limiter: RateLimiter(limits)) : nil)
    }

    /// The plugins: the list, calls (and downloads), capability links, and the operator's swap,
    /// restart and reload.
    static func addPlugins(to table: inout RouteTable, host: any HostAPI, plugins: PluginRoutes, configuration: HTTPConfiguration) {
        table.add(.get, "/v1/plugins", plugins.list)
        table.add(.post, EdgeResponder.operationRoute, plugins.call)
        table.add(.get, "/v1/plugins/:id/ops/:op", onlyWhere: { context in  // download operations only (FileRoutes)
            host.manifest(of: context.parameters.get("id") ?? "")?.operation(named: context.parameters.get("op") ?? "")?.file == .download
        }, FileRoutes(host: host).download)
        table.add(.get, "/v1/links/:id/:op/:token", LinkRoutes(host: host).call)
        table.add(.post, "/v1/plugins/:id/swap", SwapRoute(host: host, maxBodyBytes: configuration.maxBodyBytes).swap)
        table.add(.post, "/v1/plugins/:id/restart", RestartRoute(host: host).restart)
        table.add(.post, "/v1/deployment/reload", ReloadRoute(host: host).reload)
    }

    /// Signing in to the console, its accounts, and this device's hub account.
    static func addSessionAndAccounts(to table: inout RouteTable, host: any HostAPI, signIn: SignIn, configuration: HTTPConfiguration) {
        let session = SessionRoutes(host: host, signIn: signIn, maxBodyBytes: configuration.maxBodyBytes)
        table.add(.get, "/v1/session/setup", session.setup)
        table.add(.post, "/v1/session", session.signIn)
        table.add(.get, "/v1/session", session.show)
        table.add(.delete, "/v1/session", session.signOut)
        table.add(.post, "/v1/session/account", session.firstAccount)
        table.add(.post, "/v1/session/register", session.register)
        table.add(.put, "/v1/session/language", session.setLanguage)
        let accounts = AccountRoutes(host: host, signIn: signIn, maxBodyBytes: configuration.maxBodyBytes)
        table.add(.get, "/v1/accounts", accounts.list)
        table.add(.post, "/v1/accounts", accounts.create)
        table.add(.delete, "/v1/accounts/:name", accounts.remove)
        let account = SyncAccountRoutes(host: host, signIn: signIn, maxBodyBytes: configuration.maxBodyBytes)
        table.add(.post, "/v1/sync/register", account.register)
        table.add(.post, "/v1/sync/login", account.login)
        table.add(.post, "/v1/sync/logout", account.logout)
        table.add(.get, "/v1/sync/me", account.me)
    }

    /// The inbox, the SSE stream, the location endpoint and the clock.
    static func addInboxAndFeeds(to table: inout RouteTable, host: any HostAPI, configuration: HTTPConfiguration, streams: StreamHub) {
        let notifications = NotificationRoutes(host: host, maxBodyBytes: configuration.maxBodyBytes)
        let stream = StreamRoutes(host: host, hub: streams, keepAlive: configuration.streamKeepAlive)
        let location = LocationRoutes(host: host, maxBodyBytes: configuration.maxBodyBytes)
        let clock = ClockRoutes(host: host, maxBodyBytes: configuration.maxBodyBytes)
        table.add(.get, "/v1/notifications", notifications.list)
        table.add(.post, "/v1/notifications/read", notifications.markRead)
        table.add(.get, "/v1/stream", stream.stream)
        table.add(.post, "/v1/location", location.ingest)
        table.add(.get, "/v1/clock", clock.show)
        table.add(.post, "/v1/clock/advance", clock.advance)
    }

    /// The web console and the modules' pages (static files; no token needed to fetch them).
    static func addConsole(to table: inout RouteTable, host: any HostAPI) {
        let console = ConsoleRoutes(imagesFrom: host.deployment.mapTiles?.origin)
        let modules = ModuleAssetRoutes(host: host)
        table.add(.get, "/", console.index)
        table.add(.get, "/console/:file", console.asset)
        table.add(.get, "/console/messages/:file", console.message)
        table.add(.get, "/console/vendor/leaflet/**", console.leaflet)
        table.add(.get, "/favicon.ico", console.icon)
        table.add(.get, "/ui/:id", modules.serve)
        table.add(.get, "/ui/:id/**", modules.serve)
    }
}
