import TesseraManifest

extension HTTPConfiguration.RateLimits {
    /// The budgets a deployment's `http.rateLimit` asks for, over the defaults. `callsPerSecond`
    /// and `callsBurst` (`tessera serve --rate-limit`, `--rate-burst`) replace the calls' values
    /// when given. A member the deployment leaves out keeps the default (a token's, the calls'
    /// value); a `perSecond` of 0 means no limit.
    public init(_ deployment: Deployment.RateLimits, callsPerSecond: Double? = nil, callsBurst: Double? = nil) {
        var callsBucket = deployment.calls
        if let callsPerSecond { callsBucket.perSecond = callsPerSecond }
        if let callsBurst { callsBucket.burst = Int(callsBurst) }
        let calls = Self.resolve(callsBucket, over: HTTPConfiguration.defaultRateLimit)
        let admin = Self.resolve(deployment.admin, over: HTTPConfiguration.defaultAdminRateLimit)
        // A token's limit inherits what it leaves out from the calls' limit, as resolved.
        let base = HTTPConfiguration.RateLimit(perSecond: calls?.perSecond ?? 0, burst: calls?.burst ?? HTTPConfiguration.defaultRateLimit.burst)
        let tokens = deployment.tokens.mapValues { Self.resolve($0, over: base) }
        self.init(calls: calls, admin: admin, tokens: tokens)
    }

    /// `bucket` with `fallback`'s values where it has none; `nil` when it refills at 0 (no limit).
    static func resolve(_ bucket: Deployment.RateLimits.Bucket, over fallback: HTTPConfiguration.RateLimit) -> HTTPConfiguration.RateLimit? {
        let perSecond = bucket.perSecond ?? fallback.perSecond
        guard perSecond > 0 else { return nil }
        return HTTPConfiguration.RateLimit(perSecond: perSecond, burst: bucket.burst.map(Double.init) ?? fallback.burst)
    }
}
