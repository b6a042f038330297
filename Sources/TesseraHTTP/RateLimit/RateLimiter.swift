import Foundation
import Synchronization

/// One ``TokenBucket`` per key (a token's name), made full on first use. The keys are the host's
/// token names, so the table cannot grow past the token file.
final class RateLimiter: Sendable {
    let limit: HTTPConfiguration.RateLimit
    private let buckets = Mutex<[String: TokenBucket]>([:])
    private let clock = ContinuousClock()
    private let origin: ContinuousClock.Instant

    init(_ limit: HTTPConfiguration.RateLimit) {
        self.limit = limit
        origin = clock.now
    }

    /// `nil` if `key` may make a request now; otherwise the whole seconds to wait (at least 1), as
    /// `Retry-After` says it.
    func admit(_ key: String) -> Int? {
        let elapsed = clock.now - origin
        let now = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        let wait = buckets.withLock { table in
            var bucket = table[key] ?? TokenBucket(capacity: limit.burst, refillPerSecond: limit.perSecond, now: now)
            defer { table[key] = bucket }
            return bucket.take(now: now)
        }
        guard let wait else { return nil }
        return wait.isFinite ? max(1, Int(wait.rounded(.up))) : 3600
    }
}
