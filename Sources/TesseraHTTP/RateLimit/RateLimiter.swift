import Foundation
import Synchronization
import TesseraSDK

/// One ``TokenBucket`` per token and budget, made full on first use, sized by the token's limit
/// (``HTTPConfiguration/RateLimits``). The keys are the host's token names, so the table cannot
/// grow past twice the token file.
final class RateLimiter: Sendable {
    let limits: HTTPConfiguration.RateLimits
    private let buckets = Mutex<[BucketKey: TokenBucket]>([:])
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant

    private struct BucketKey: Hashable {
        let token: String
        let budget: RateLimitBudget
    }

    /// What one request found in its bucket.
    struct Decision: Sendable, Equatable {
        /// The budget it spent (the policy's name in the headers).
        let budget: RateLimitBudget
        /// The limit of that bucket.
        let limit: HTTPConfiguration.RateLimit
        /// Requests that would still pass now.
        let remaining: Int
        /// Whole seconds until the bucket is full again.
        let secondsUntilFull: Int
        /// `nil` if the request passes; otherwise the whole seconds to wait (at least 1), as
        /// `Retry-After` says it.
        let retryAfter: Int?
    }

    init(_ limits: HTTPConfiguration.RateLimits) {
        self.limits = limits
        origin = clock.now
    }

    /// A limiter with one limit for every token's calls, and the default for admin routes.
    convenience init(_ limit: HTTPConfiguration.RateLimit) {
        self.init(HTTPConfiguration.RateLimits(calls: limit))
    }

    /// Takes a request from `token`'s bucket for `budget`; `nil` when that budget has no limit.
    func admit(_ token: String, _ budget: RateLimitBudget = .calls) -> Decision? {
        guard let limit = limits.limit(for: token, budget) else { return nil }
        let elapsed = clock.now - origin
        let now = elapsed.timeInterval
        let key = BucketKey(token: token, budget: budget)
        let (wait, bucket) = buckets.withLock { table in
            var bucket = table[key] ?? TokenBucket(capacity: limit.burst, refillPerSecond: limit.perSecond, now: now)
            let wait = bucket.take(now: now)
            table[key] = bucket
            return (wait, bucket)
        }
        return Decision(budget: budget, limit: limit, remaining: bucket.remaining,
                        secondsUntilFull: Self.wholeSeconds(bucket.secondsUntilFull, atLeast: 0),
                        retryAfter: wait.map { Self.wholeSeconds($0, atLeast: 1) })
    }

    /// Seconds rounded up, an hour for "never" (a bucket without refill).
    static func wholeSeconds(_ seconds: Double, atLeast floor: Int) -> Int {
        seconds.isFinite ? max(floor, Int(seconds.rounded(.up))) : 3600
    }
}
