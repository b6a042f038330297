/// A token bucket: holds up to `capacity` tokens, refilled continuously at `refillPerSecond`; each
/// request takes one. Bursts up to the capacity pass; past it, requests pass at the refill rate.
///
/// Time is given in seconds on a monotonic clock by the caller, so tests can step it exactly.
struct TokenBucket: Sendable {
    let capacity: Double
    let refillPerSecond: Double
    private(set) var tokens: Double
    private var updatedAt: Double

    /// A full bucket at time `now`.
    init(capacity: Double, refillPerSecond: Double, now: Double) {
        self.capacity = capacity
        self.refillPerSecond = refillPerSecond
        tokens = capacity
        updatedAt = now
    }

    /// Takes a token at `now` if there is one and returns `nil`; otherwise returns how many seconds
    /// until there will be one, and takes nothing.
    mutating func take(now: Double) -> Double? {
        tokens = min(capacity, tokens + max(0, now - updatedAt) * refillPerSecond)
        updatedAt = max(updatedAt, now)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        return refillPerSecond > 0 ? (1 - tokens) / refillPerSecond : .infinity
    }

    /// Whole requests that would pass now, as of the last ``take(now:)``.
    var remaining: Int { Int(tokens.rounded(.down)) }

    /// Seconds until the bucket is full again, as of the last ``take(now:)`` (infinite without refill).
    var secondsUntilFull: Double {
        guard tokens < capacity else { return 0 }
        return refillPerSecond > 0 ? (capacity - tokens) / refillPerSecond : .infinity
    }
}
