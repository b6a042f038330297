import Foundation
import Testing
import TesseraManifest
import TesseraTestFixtures
@testable import TesseraHTTP

/// The token bucket behind 429 (on a clock the test steps), the budgets per token and route, and
/// the limits over real HTTP: a burst that fits, a bucket run dry, the admin routes' own bucket.
@Suite struct RateLimitTests {
    @Test func aBurstPassesThenTheRefillRateDecides() {
        var bucket = TokenBucket(capacity: 3, refillPerSecond: 2, now: 0)
        #expect(bucket.take(now: 0) == nil)
        #expect(bucket.take(now: 0) == nil)
        #expect(bucket.take(now: 0) == nil)
        #expect(bucket.remaining == 0)
        #expect(bucket.secondsUntilFull == 1.5)
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
        #expect(limiter.admit("a")?.retryAfter == nil)
        #expect(limiter.admit("a")?.retryAfter == 2)
        #expect(limiter.admit("b")?.retryAfter == nil)
    }

    /// 200 requests at one instant: the old default (bursts of 100, 50 a second) let half through;
    /// the new one (bursts of 1,000, 300 a second) lets all of them.
    @Test func theDefaultBucketTakesABurstTheOldOneRefused() {
        func passing(_ limit: HTTPConfiguration.RateLimit) -> Int {
            var bucket = TokenBucket(capacity: limit.burst, refillPerSecond: limit.perSecond, now: 0)
            return (0..<200).filter { _ in bucket.take(now: 0) == nil }.count
        }
        #expect(passing(.init(perSecond: 50, burst: 100)) == 100)
        #expect(passing(HTTPConfiguration.defaultRateLimit) == 200)
        #expect(HTTPConfiguration.defaultRateLimit.burst >= 1000 && HTTPConfiguration.defaultRateLimit.perSecond >= 200)
    }

    @Test func adminRoutesAreTheirOwnBudget() {
        #expect(RateLimitBudget.of(.post, path: "/v1/plugins/cz.tessera.stag/swap") == .admin)
        #expect(RateLimitBudget.of(.post, path: "/v1/clock/advance") == .admin)
        #expect(RateLimitBudget.of(.post, path: "/v1/tokens/ada") == .admin)
        #expect(RateLimitBudget.of(.get, path: "/v1/clock") == .calls)
        #expect(RateLimitBudget.of(.post, path: "/v1/plugins/x/ops/swap") == .calls)  // an operation named swap
        #expect(RateLimitBudget.of(.post, path: "/v1/plugins/x/ops/op") == .calls)
        #expect(RateLimitBudget.of(.get, path: "/v1/plugins/x/swap") == .calls)
        let limiter = RateLimiter(.init(calls: .init(perSecond: 0.001, burst: 1), admin: .init(perSecond: 0.001, burst: 1)))
        #expect(limiter.admit("ops", .calls)?.retryAfter == nil)
        #expect(limiter.admit("ops", .calls)?.retryAfter != nil)
        #expect(limiter.admit("ops", .admin)?.retryAfter == nil)  // the calls spent nothing of it
    }

    @Test func theDeploymentSetsEachBudgetAndEachTokensLimit() throws {
        let ws = FixtureWorkspace("http-rate-deployment")
        ws.writeDeployment(plugins: [], extra: ["http": ["rateLimit": [
            "perSecond": 100, "burst": 400, "admin": ["burst": 5],
            "tokens": ["phone": ["perSecond": 2], "load-test": ["perSecond": 0]],
        ] as [String: Any]]])
        let deployment = try DeploymentReader.read(file: ws.deploymentFile)
        let limits = HTTPConfiguration.RateLimits(deployment.httpRateLimits)
        #expect(limits.calls == .init(perSecond: 100, burst: 400))
        #expect(limits.admin == .init(perSecond: HTTPConfiguration.defaultAdminRateLimit.perSecond, burst: 5))
        #expect(limits.limit(for: "phone", .calls) == .init(perSecond: 2, burst: 400))
        #expect(limits.limit(for: "load-test", .calls) == nil)
        #expect(limits.limit(for: "load-test", .admin) == limits.admin)
        #expect(limits.limit(for: "anyone", .calls) == limits.calls)
        // `serve --rate-limit/--rate-burst` win over the deployment for the calls' default.
        let flags = HTTPConfiguration.RateLimits(deployment.httpRateLimits, callsPerSecond: 7, callsBurst: 9)
        #expect(flags.calls == .init(perSecond: 7, burst: 9))
        let off = HTTPConfiguration.RateLimits(deployment.httpRateLimits, callsPerSecond: 0)
        #expect(off.calls == nil)
        // Without `http.rateLimit`: the defaults.
        #expect(HTTPConfiguration.RateLimits(Deployment.RateLimits()) == HTTPConfiguration.RateLimits())

        ws.writeDeployment(plugins: [], extra: ["http": ["rateLimit": ["burst": 0]]])
        #expect(throws: ManifestError.self) { try DeploymentReader.read(file: ws.deploymentFile) }
    }

    /// Over real HTTP with the default limits: 200 concurrent calls from one token all pass (the
    /// old default refused half of them at once: see the bucket test above).
    @Test(.hangWatchdog) func aConcurrentBurstPassesWholeWithTheDefaults() async throws {
        try await TestServer.start(rateLimits: HTTPConfiguration.RateLimits(), transport: .socket).use { server in
            let (port, token) = (server.port, server.adminToken)
            let headers = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<200 {
                    group.addTask {
                        try await RawHTTPClient.request(port: port, "POST", "/v1/plugins/\(ProbePlugin.id)/ops/echo", headers: headers, body: Array("{}".utf8)).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.count == 200)
            #expect(statuses.allSatisfy { $0 == 200 }, "\(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")
        }
    }

    /// A bucket run dry: 429 with `Retry-After`, and the draft's `RateLimit` fields on every answer.
    /// The admin routes still pass, from a bucket of their own; another token has its own.
    @Test func anEmptyBucketAnswers429AndTheAdminRoutesStillPass() async throws {
        // One token per 10,000 s: the buckets stay empty however long a loaded machine takes between calls
        // (at one per 100 s, a full run on CI found them refilled).
        try await TestServer.start(rateLimits: .init(calls: .init(perSecond: 0.0001, burst: 3), admin: .init(perSecond: 0.0001, burst: 2))).use { server in
            var remaining: [String] = []
            for _ in 0..<3 {
                let ok = try await server.call("echo", "{}")
                #expect(ok.status == 200)
                #expect(ok.headers["ratelimit-policy"] == #""calls";q=3;w=30000"#)
                remaining.append(ok.headers["ratelimit"] ?? "")
            }
            #expect(remaining.map { $0.split(separator: ";")[1] } == ["r=2", "r=1", "r=0"])
            let limited = try await server.call("echo", "{}")
            #expect(limited.status == 429)
            #expect(limited.errorCode == "rate_limited")
            let retryAfter = try #require(limited.headers["retry-after"].flatMap { Int($0) })
            #expect(retryAfter >= 1 && retryAfter <= 10_000)
            #expect(limited.headers["ratelimit"]?.hasPrefix(#""calls";r=0;t="#) == true)
            #expect(try await server.request("GET", "/v1/plugins").status == 429)
            // The admin's calls are spent; moving the clock is not a call.
            let advance = try await server.request("POST", "/v1/clock/advance", json: #"{"by": "1s"}"#)
            #expect(advance.status == 200)
            #expect(advance.headers["ratelimit-policy"] == #""admin";q=2;w=20000"#)
            let swap = try await server.request("POST", "/v1/plugins/\(ProbePlugin.id)/swap", json: #"{"library": "/nowhere.so"}"#)
            #expect(swap.status == 404)
            #expect(try await server.request("POST", "/v1/clock/advance", json: #"{"by": "1s"}"#).status == 429)
            // Another token has its own buckets; /healthz spends none.
            #expect(try await server.call("echo", "{}", as: .user).status == 200)
            #expect(try await server.request("GET", "/healthz", as: .none).status == 200)
        }
    }
}
