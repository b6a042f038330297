/// How the HTTP edge listens and what it accepts.
public struct HTTPConfiguration: Sendable {
    /// The address to bind: loopback by default, so a device host is not reachable from the network.
    public var host: String
    /// The port; 0 lets the system pick a free one (``HTTPServer/start()`` returns it).
    public var port: Int
    /// The largest request body accepted, in bytes; larger ones get 413 without being buffered.
    public var maxBodyBytes: Int
    /// Each token's budget for ordinary calls; `nil` for none. (The same as `rateLimits.calls`.)
    public var rateLimit: RateLimit? {
        get { rateLimits.calls }
        set { rateLimits.calls = newValue }
    }
    /// Every budget: ordinary calls, admin routes, and the tokens that differ.
    public var rateLimits: RateLimits
    /// How often an idle `GET /v1/stream` sends a keep-alive comment (and looks for entries another
    /// process wrote).
    public var streamKeepAlive: Duration
    /// Whether a plugin operation's call skips the router's look-up (``EdgeResponder``): on, except
    /// to measure what that saves (`tessera-bench http` runs the edge both ways). The answers are
    /// the same either way.
    public var operationShortcut = true
    /// Whether connections are accepted on threads Swift's shared pool never lends to plugin code
    /// (``HTTPServer/edgeThreads``) and the probes, the metrics and the plugin list answered on
    /// the event loop that reads the connection (``HostEndpointsOnTheLoop``), so that they answer
    /// while in-process plugins hold every thread of the shared pool (issue 43). Every other
    /// request runs on that pool either way. On, except to measure what it costs (`tessera-bench
    /// http`: the edge with Hummingbird's plain HTTP/1 server, all on the pool).
    public var ownThreads = true

    /// A token-bucket limit: `burst` requests at once, refilled at `perSecond`.
    public struct RateLimit: Sendable, Hashable {
        public var perSecond: Double
        public var burst: Double

        public init(perSecond: Double, burst: Double) {
            self.perSecond = perSecond
            self.burst = burst
        }
    }

    /// Each token's budgets (docs/http.md, "Rate limit"): one bucket for ordinary calls and one for
    /// the admin routes (swap, clock, tokens), so that neither starves the other; a token named in
    /// `tokens` gets its own limit for calls (`nil`: none).
    public struct RateLimits: Sendable, Hashable {
        /// Every token's ordinary calls, unless `tokens` names it; `nil` for no limit.
        public var calls: RateLimit?
        /// Every token's admin routes; `nil` for no limit.
        public var admin: RateLimit?
        /// Tokens, by name, whose calls have another limit (`nil`: none).
        public var tokens: [String: RateLimit?]

        public init(calls: RateLimit? = HTTPConfiguration.defaultRateLimit, admin: RateLimit? = HTTPConfiguration.defaultAdminRateLimit,
                    tokens: [String: RateLimit?] = [:]) {
            self.calls = calls
            self.admin = admin
            self.tokens = tokens
        }

        /// The limit of `token`'s bucket for `budget`.
        func limit(for token: String, _ budget: RateLimitBudget) -> RateLimit? {
            switch budget {
            case .admin: admin
            case .calls: tokens[token] ?? calls
            }
        }
    }

    /// 1 MiB: far above any operation input a person types, far below what could hurt the host.
    public static let defaultMaxBodyBytes = 1 << 20
    /// Bursts of 1,000 per token, refilled at 300 a second: a console page, a phone flushing its
    /// queue of fixes, a script or a fuzzer's burst pass whole; only a client that keeps above 300
    /// requests a second for seconds on end is slowed. (50 a second with bursts of 100, the earlier
    /// default, refused most of a 16-connection load and of a fuzzing run.)
    public static let defaultRateLimit = RateLimit(perSecond: 300, burst: 1000)
    /// The admin routes: bursts of 100, 10 a second, in a bucket of their own.
    public static let defaultAdminRateLimit = RateLimit(perSecond: 10, burst: 100)

    /// 15 s: well inside the idle timeouts of common proxies (60 s and up).
    public static let defaultStreamKeepAlive: Duration = .seconds(15)

    /// A configuration whose calls are limited by `rateLimit` (`nil`: none), admin routes by the default.
    public init(host: String = "127.0.0.1", port: Int = 8420, maxBodyBytes: Int = defaultMaxBodyBytes,
                rateLimit: RateLimit? = defaultRateLimit, streamKeepAlive: Duration = defaultStreamKeepAlive) {
        self.init(host: host, port: port, maxBodyBytes: maxBodyBytes, rateLimits: RateLimits(calls: rateLimit), streamKeepAlive: streamKeepAlive)
    }

    /// A configuration with every budget given.
    public init(host: String = "127.0.0.1", port: Int = 8420, maxBodyBytes: Int = defaultMaxBodyBytes,
                rateLimits: RateLimits, streamKeepAlive: Duration = defaultStreamKeepAlive) {
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.rateLimits = rateLimits
        self.streamKeepAlive = streamKeepAlive
    }
}
