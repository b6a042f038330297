import Hummingbird
import NIOCore
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
    /// dictionary whose literal cost 3 % of a call's CPU (docs/benchmarks.md). Strings, which the
    /// route needs, rather than the path's substrings: a pair of those was moved into the context
    /// through generic code, 0.4 % of a call's CPU.
    var operationTarget: (plugin: String, operation: String)?
    /// The request's id, when the edge's own server took the request (``EdgeServerService``); the
    /// access line and `X-Request-Id` write it, and the request's logger carries it too.
    var requestID: EdgeRequestID?
    /// The connection, for the peer's address where a route needs it (`/metrics`); kept rather
    /// than its address read, since reading it costs on every request.
    private let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }

    /// Whether the request came from a loopback address (127.0.0.0/8, ::1, or IPv4 mapped into IPv6).
    var fromLoopback: Bool {
        guard let address = channel.remoteAddress else { return false }
        switch address {
        case .v4(let v4): return (UInt32(bigEndian: v4.address.sin_addr.s_addr) >> 24) == 127
        case .v6:
            let text = address.ipAddress ?? ""
            return text == "::1" || text.hasPrefix("::ffff:127.")
        default: return false
        }
    }
}

extension APIRequestContext {
    /// Refuses a request that is not an admin's: 401 without a principal, 403 with another role.
    /// `doing` completes "… needs an admin token" ("swapping a plugin").
    func requireAdmin(_ doing: String) throws {
        guard let principal else { throw APIError.unauthorized("this route needs a token") }
        guard principal.role == .admin else { throw PluginError(.forbidden, "\(doing) needs an admin token") }
    }
}
