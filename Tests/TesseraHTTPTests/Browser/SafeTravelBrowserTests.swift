import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Safe travel's page in a real headless Chromium, against the real `tessera serve` on a virtual
/// clock: set up with a PIN, start a trip through the form, positions through the OwnTracks route
/// (`POST /v1/location`) while the clock moves, the walked track drawn as SVG beside the
/// destination, a wrong PIN shown, then the trip ended. The screenshot is kept in
/// artifacts/safetravel.png.
@Suite(.needs("chromium")) struct SafeTravelBrowserTests {
    static func post(_ serve: ServeProcess, _ path: String, _ body: String, token: String) async throws -> String {
        let answer = try await RawHTTPClient.request(port: serve.port, "POST", path,
                                                     headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                     body: Array(body.utf8))
        return answer.text
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func theTravellerSetsUpStartsATripSeesItsTrackAndEndsIt() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-safetravel")
        try ConsoleBrowserTests.copyShippedManifest("safetravel", into: ws)
        ws.writeDeployment(plugins: [["id": "cz.tessera.safetravel",
                                      "config": ["requireGuardians": false, "pinIterations": 1000] as [String: Any],
                                      "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "location": [:] as [String: Any],
                                                 "notifications": ["spaces": true], "sync": [:] as [String: Any]]]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try ConsoleBrowserTests.signIn(page, at: base, with: token)
            try page.navigate(base + "/ui/cz.tessera.safetravel/")
            try page.waitFor("document.body.dataset.ready === 'true' && !document.getElementById('setup-section').hidden", "the set-up form")
            try page.type("ada", into: "username")
            try page.type("4826", into: "setup-pin")
            try page.click("#setup-form button[type=submit]")
            try page.waitFor("!document.getElementById('start-form').hidden && document.body.dataset.ready === 'true'", "the trip form")
            try page.type("Home", into: "dest-name")
            try page.type("50.088", into: "dest-lat")
            try page.type("14.42", into: "dest-lon")
            try page.type("2026-03-02T08:30:00Z", into: "eta")
            try page.click("#start-form button[type=submit]")
            try page.waitFor("!document.getElementById('active-trip').hidden", "the active trip")
        }
        // A walk north, a fix a minute through the OwnTracks route, the clock moved by the server's route.
        for minute in 0..<4 {
            let tst = 1_772_438_400 + minute * 60
            _ = try await Self.post(serve, "/v1/location", #"{"_type": "location", "lat": \#(50.07 + 0.002 * Double(minute)), "lon": 14.42, "tst": \#(tst), "acc": 8, "batt": \#(80 - minute), "topic": "owntracks/ada/phone"}"#, token: token)
            _ = try await Self.post(serve, "/v1/clock/advance", #"{"by": "1m"}"#, token: token)
        }
        try await onThread {
            try page.navigate(base + "/ui/cz.tessera.safetravel/")
            try page.waitFor("document.body.dataset.ready === 'true' && document.querySelector('#track polyline.walked')", "the track")
            try page.screenshot(to: ConsoleBrowserTests.artifacts + "/safetravel.png")
        }
        let walked = try await onThread { try page.evaluate("document.querySelector('#track polyline.walked').getAttribute('points').split(' ').length") }
        #expect(walked.doubleValue == 4)
        #expect(try await onThread { try page.evaluate("document.querySelectorAll('#track circle.destination').length") }.doubleValue == 1)
        let summary = try await onThread { try page.evaluate("document.getElementById('trip-summary').textContent").stringValue ?? "" }
        #expect(summary.contains("To Home, expected by 2026-03-02T08:30:00.000Z") && summary.contains("m to go"))
        #expect(try await onThread { try page.evaluate("document.getElementById('positions').rows.length") }.doubleValue == 4)

        try await onThread {
            try page.type("0000", into: "end-pin")
            try page.click("#end-form button[type=submit]")
            try page.waitFor("document.getElementById('end-error').textContent.includes('INVALID_PIN')", "the wrong PIN's error")
            try page.type("4826", into: "end-pin")
            try page.click("#end-form button[type=submit]")
            try page.waitFor("!document.getElementById('start-form').hidden && document.body.dataset.ready === 'true'", "the trip ended")
        }
        let unlabelled = try await onThread { try page.evaluate("""
            [...document.querySelectorAll('input, select, textarea')]
              .filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.id || c.name).join(',')
            """) }
        #expect(unlabelled == "")
        #expect(try await Self.post(serve, "/v1/plugins/cz.tessera.safetravel/ops/trips", "{}", token: token).contains("\"state\":\"ENDED\""))
        _ = try await serve.terminate()
    }
}
