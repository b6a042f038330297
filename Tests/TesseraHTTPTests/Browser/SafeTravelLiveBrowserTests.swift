import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The guardians' live view over real HTTP and in a real headless Chromium, against `tessera serve`
/// (the module's `.so` loaded by dlopen) on a virtual clock: the link minted at trip start opens
/// `GET /v1/links/cz.tessera.safetravel/live-view/<token>` with no bearer token, the page
/// (`live.html#<token>`) draws the walked track as SVG on a grid and says when the link expires; an
/// unknown, revoked or expired token answers 404, alike. The screenshot is artifacts/safetravel-live.png.
@Suite(.needs("chromium")) struct SafeTravelLiveBrowserTests {
    static func post(_ serve: ServeProcess, _ path: String, _ body: String, token: String) async throws -> RawResponse {
        try await RawHTTPClient.request(port: serve.port, "POST", path,
                                        headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                        body: Array(body.utf8))
    }

    /// The capability link, asked for with no Authorization header at all.
    static func open(_ serve: ServeProcess, _ linkToken: String) async throws -> RawResponse {
        try await RawHTTPClient.request(port: serve.port, "GET", "/v1/links/cz.tessera.safetravel/live-view/\(linkToken)")
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func aGuardianOpensTheLiveViewWithTheLinkAloneUntilItStopsWorking() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-safetravel-live")
        try ConsoleBrowserTests.copyShippedManifest("safetravel", into: ws)
        ws.writeDeployment(plugins: [["id": "cz.tessera.safetravel",
                                      "config": ["requireGuardians": false, "pinIterations": 1000] as [String: Any],
                                      "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "location": [:] as [String: Any],
                                                 "notifications": ["spaces": true], "sync": [:] as [String: Any]]]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let admin = try #require(serve.adminToken)
        let ops = "/v1/plugins/cz.tessera.safetravel/ops/"
        #expect(try await Self.post(serve, ops + "account-setup", #"{"username": "ada", "pin": "4826"}"#, token: admin).status == 200)
        let started = try await Self.post(serve, ops + "trip-start", #"""
            {"destination": {"name": "Home", "lat": 50.088, "lon": 14.42}, "expectedArrivalAt": "2026-03-02T08:30:00Z",
             "route": [{"lat": 50.07, "lon": 14.42}, {"lat": 50.088, "lon": 14.42}]}
            """#, token: admin)
        let link = try #require(started.json?["liveLink"]?["token"]?.stringValue)
        for minute in 0..<4 {
            let tst = 1_772_438_400 + minute * 60
            _ = try await Self.post(serve, "/v1/location", #"{"_type": "location", "lat": \#(50.07 + 0.002 * Double(minute)), "lon": 14.42, "tst": \#(tst), "acc": 8, "batt": \#(80 - minute), "topic": "owntracks/ada/phone"}"#, token: admin)
            _ = try await Self.post(serve, "/v1/clock/advance", #"{"by": "1m"}"#, token: admin)
        }

        // Over HTTP, no bearer token: the trip, and only what the page needs.
        let answer = try await Self.open(serve, link)
        #expect(answer.status == 200 && answer.headers["cache-control"] == "no-store")
        #expect(answer.json?["track"]?.arrayValue?.count == 4 && answer.json?["battery"] == 77 && answer.json?["traveller"] == "ada")
        let unknown = try await Self.open(serve, String(repeating: "x", count: 32))
        let misshapen = try await Self.open(serve, "not-a-token")
        #expect(unknown.status == 404 && misshapen.status == 404 && unknown.body == misshapen.body)
        #expect(!unknown.text.contains("xxxxxxxx"), "the answer does not repeat the token")
        #expect(try await RawHTTPClient.request(port: serve.port, "GET", "/v1/links/cz.tessera.safetravel/trip-status/\(link)").status == 404,
                "a link reaches only an operation open to links")

        // The page, in a browser that holds no token of this host.
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try page.navigate(base + "/ui/cz.tessera.safetravel/live.html#" + link)
            try page.waitFor("document.querySelector('#track polyline.walked') && !document.getElementById('view').hidden", "the live track")
            try page.screenshot(to: ConsoleBrowserTests.artifacts + "/safetravel-live.png")
        }
        let walked = try await onThread { try page.evaluate("document.querySelector('#track polyline.walked').getAttribute('points').split(' ').length") }
        #expect(walked.doubleValue == 4)
        #expect(try await onThread { try page.evaluate("document.querySelectorAll('#track line.grid').length") }.doubleValue ?? 0 > 10)
        #expect(try await onThread { try page.evaluate("document.querySelectorAll('#track circle.destination').length") }.doubleValue == 1)
        let expiry = try await onThread { try page.evaluate("document.getElementById('expiry').textContent").stringValue ?? "" }
        #expect(expiry == "This link works until 2026-03-03T08:00:00.000Z.")
        let external = try await onThread { try page.evaluate("""
            [...document.querySelectorAll('script[src], link[href], img[src], image')]
              .map((n) => n.src || n.href || '').filter((u) => u && !u.startsWith(location.origin)).join(',')
            """) }
        #expect(external == "", "no external tiles or scripts")

        // Revoked: the same 404, and the page says the link no longer works.
        #expect(try await Self.post(serve, ops + "live-link-revoke", "{}", token: admin).json?["revoked"] == 1)
        let revoked = try await Self.open(serve, link)
        #expect(revoked.status == 404 && revoked.body == unknown.body)
        try await onThread {
            try page.navigate(base + "/healthz")  // away first: the same address again would only move to the fragment
            try page.navigate(base + "/ui/cz.tessera.safetravel/live.html#" + link)
            try page.waitFor("document.getElementById('status').textContent.includes('expired or was revoked')", "the closed link")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('view').hidden") }.boolValue == true)

        // Expired: a new link, the trip ended, and the clock moved past the hour of grace.
        let fresh = try #require(try await Self.post(serve, ops + "live-link", "{}", token: admin).json?["token"]?.stringValue)
        #expect(try await Self.open(serve, fresh).status == 200)
        #expect(try await Self.post(serve, ops + "trip-end", #"{"pin": "4826"}"#, token: admin).status == 200)
        _ = try await Self.post(serve, "/v1/clock/advance", #"{"by": "59m59s"}"#, token: admin)
        #expect(try await Self.open(serve, fresh).status == 200)
        _ = try await Self.post(serve, "/v1/clock/advance", #"{"by": "1s"}"#, token: admin)
        let expired = try await Self.open(serve, fresh)
        #expect(expired.status == 404 && expired.body == unknown.body)
        _ = try await serve.terminate()
    }
}
