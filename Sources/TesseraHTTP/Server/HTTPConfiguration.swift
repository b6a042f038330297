/// How the HTTP edge listens and what it accepts.
public struct HTTPConfiguration: Sendable {
    /// The address to bind: loopback by default, so a device host is not reachable from the network.
    public var host: String
    /// The port; 0 lets the system pick a free one (``HTTPServer/start()`` returns it).
    public var port: Int
    /// The largest request body accepted, in bytes; larger ones get 413 without being buffered.
    public var maxBodyBytes: Int
    /// Each token's request budget; `nil` for none.
    public var rateLimit: RateLimit?
    /// How often an idle `GET /v1/stream` sends a keep-alive comment (and looks for entries another
    /// process wrote).
    public var streamKeepAlive: Duration

    /// A token-bucket limit: `burst` requests at once, refilled at `perSecond`.
    public struct RateLimit: Sendable, Hashable {
        public var perSecond: Double
        public var burst: Double

        public init(perSecond: Double, burst: Double) {
            self.perSecond = perSecond
            self.burst = burst
        }
    }

    /// 1 MiB: far above any operation input a person types, far below what could hurt the host.
    public static let defaultMaxBodyBytes = 1 << 20
    /// 50 requests a second with bursts of 100 per token: a console page's burst of calls passes,
    /// a runaway script is slowed.
    public static let defaultRateLimit = RateLimit(perSecond: 50, burst: 100)

    /// 15 s: well inside the idle timeouts of common proxies (60 s and up).
    public static let defaultStreamKeepAlive: Duration = .seconds(15)

    public init(host: String = "127.0.0.1", port: Int = 8420, maxBodyBytes: Int = defaultMaxBodyBytes,
                rateLimit: RateLimit? = defaultRateLimit, streamKeepAlive: Duration = defaultStreamKeepAlive) {
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.rateLimit = rateLimit
        self.streamKeepAlive = streamKeepAlive
    }
}
