import Hummingbird
import TesseraSDK

/// What travels with one request through the middlewares to its route: Hummingbird's own state,
/// and the principal the bearer token stands for once ``AuthMiddleware`` has checked it.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who is calling; `nil` only on the routes that need no token (`/healthz`).
    public var principal: Principal?
    /// Whether ``principal`` is the account of a console session (a cookie), not a bearer token's.
    public var signedInByCookie = false
    /// The plugin and operation of a call that ``EdgeResponder`` took past the router; the route
    /// reads them here instead of from `parameters`, which Hummingbird keeps in a generic
    /// dictionary whose literal cost 3 % of a call's CPU (docs/benchmarks.md).
    var operationTarget: (plugin: Substring, operation: Substring)?

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
    }
}
