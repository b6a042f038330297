import TesseraSDK

extension Deployment {
    /// `http.rateLimit`: each token's request budgets at the HTTP edge, as the operator wrote them.
    /// A member left out is `nil` and keeps the edge's default (docs/http.md, "Rate limit").
    public struct RateLimits: Sendable, Hashable {
        /// One token bucket: `burst` requests at once, refilled at `perSecond` (0: no limit).
        public struct Bucket: Sendable, Hashable {
            public var perSecond: Double?
            public var burst: Int?
            public init(perSecond: Double? = nil, burst: Int? = nil) {
                self.perSecond = perSecond
                self.burst = burst
            }
        }

        /// Every token's ordinary calls (`http.rateLimit.perSecond` and `.burst`).
        public var calls = Bucket()
        /// Every token's admin routes: swap, clock, tokens (`http.rateLimit.admin`).
        public var admin = Bucket()
        /// Named tokens whose calls have another limit (`http.rateLimit.tokens`).
        public var tokens: [String: Bucket] = [:]

        public init() {}

        /// `http.rateLimit`, already checked against the deployment schema.
        init(_ doc: JSONValue?) {
            guard let doc else { return }
            calls = Self.bucket(doc)
            admin = Self.bucket(doc["admin"])
            for (name, limit) in doc["tokens"]?.objectValue ?? [:] { tokens[name] = Self.bucket(limit) }
        }

        static func bucket(_ doc: JSONValue?) -> Bucket {
            Bucket(perSecond: doc?["perSecond"]?.doubleValue, burst: doc?["burst"]?.integerValue.map(Int.init))
        }
    }
}
