import Testing
@testable import TesseraHTTP

/// The token bucket behind 429, on a clock the test steps.
@Suite struct RateLimitTests {
    @Test func aBurstPassesThenTheRefillRateDecides() {
        var bucket = TokenBucket(capacity: 3, refillPerSecond: 2, now: 0)
        #expect(bucket.take(now: 0) == nil)
        #expect(bucket.take(now: 0) == nil)
        #expect(bucket.take(now: 0) == nil)
        #expect(bucket.take(now: 0) == 0.5)  // one token refills in half a second
        #expect(bucket.take(now: 0.25) == 0.25)
        #expect(bucket.take(now: 0.5) == nil)
        #expect(bucket.take(now: 100) == nil)  // refilled, but never past the capacity
        #expect(bucket.take(now: 100) == nil)
        #expect(bucket.take(now: 100) == nil)
        #expect(bucket.take(now: 100) != nil)
    }

    @Test func aClockThatStepsBackDoesNotMintTokens() {
        var bucket = TokenBucket(capacity: 1, refillPerSecond: 1, now: 10)
        #expect(bucket.take(now: 10) == nil)
        #expect(bucket.take(now: 5) != nil)
        #expect(bucket.take(now: 10.5) != nil)
        #expect(bucket.take(now: 11) == nil)
    }

    @Test func retryAfterIsWholeSecondsAndPerKey() {
        let limiter = RateLimiter(.init(perSecond: 0.5, burst: 1))
        #expect(limiter.admit("a") == nil)
        #expect(limiter.admit("a") == 2)
        #expect(limiter.admit("b") == nil)
    }
}
