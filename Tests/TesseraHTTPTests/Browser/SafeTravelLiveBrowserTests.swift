import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The guardians' live view over real HTTP and in a real headless Chromium, against `tessera serve`
/// (the module's `.so` loaded by dlopen) on a virtual clock: the link minted at trip start opens
/// `GET /v1/links/cz.tessera.safetravel/live-view/<token>` with no bearer token, the page
/// (`live.html#<token>`) draws the walked track as SVG on a grid, says in sentences where the trip
/// goes, when the last position was (relative to the host's clock) and until when the link works;
/// an unknown, revoked or expired token answers 404, alike, and the page says so (in Czech too).
/// Screenshots artifacts/safetravel-live-*.png.
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
        }
        let walked = try await onThread { try page.evaluate("document.querySelector('#track polyline.walked').getAttribute('points').split(' ').length") }
        #expect(walked.doubleValue == 4)
        #expect(try await onThread { try page.evaluate("document.querySelectorAll('#track line.grid').length") }.doubleValue ?? 0 > 10)
        #expect(try await onThread { try page.evaluate("document.querySelectorAll('#track circle.destination').length") }.doubleValue == 1)
        // Times as a person reads them, relative to the host's clock (08:04 after the four fixes).
        let expires = try await onThread { try SafeTravelBrowserTests.formatted(page, "f.dateTime('2026-03-03T08:00:00Z')") }
        let eta = try await onThread { try SafeTravelBrowserTests.formatted(page, "f.dateTime('2026-03-02T08:30:00Z')") }
        let position = try await onThread { try SafeTravelBrowserTests.formatted(page, "f.coordinates(50.076, 14.42)") }
        let text = { (id: String) async throws -> String in
            try await onThread { try page.evaluate("document.getElementById(\(BrowserPage.quoted(id))).textContent").stringValue ?? "" }
        }
        #expect(try await text("view-heading") == "Trip of ada")
        #expect(try await text("summary") == "Trip to Home. Expected by \(eta) (in 26 minutes). On the way.")
        #expect(try await text("last") == "Last position: \(position), 1 minute ago; battery 77%.")
        #expect(try await text("expiry") == "This link works until \(expires) (in 24 hours).")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("safetravel-live", in: ConsoleBrowserTests.artifacts) }
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
        #expect(try await onThread { try page.developerText() } == [])
        // The same in Czech, for a guardian whose browser is set to it.
        try await onThread {
            try page.navigate(base + "/healthz")
            try page.evaluate("localStorage.setItem('tessera.language', 'cs')")
            try page.navigate(base + "/ui/cz.tessera.safetravel/live.html#" + link)
            try page.waitFor("document.documentElement.lang === 'cs' && document.getElementById('status').textContent.includes('zrušen')", "the closed link in Czech")
        }
        #expect(try await text("status") == "Toto živé sledování už není k dispozici: platnost odkazu vypršela, nebo byl odkaz zrušen.")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("safetravel-live-gone-cs", in: ConsoleBrowserTests.artifacts) }

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
