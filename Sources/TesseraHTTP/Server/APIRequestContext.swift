import Hummingbird
import TesseraSDK

/// What travels with one request through the middlewares to its route: Hummingbird's own state,
/// and the principal the bearer token stands for once ``AuthMiddleware`` has checked it.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who is calling; `nil` only on the routes that need no token (`/healthz`).
    public var principal: Principal?

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
    }
}
