import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Safe travel's places on the traveller's page, in a real headless Chromium against the real
/// `tessera serve` on a virtual clock: a place added through the form (a latitude of 95 refused
/// first, with a sentence saying what a latitude is), listed with its radius in metres, the
/// crossings its guardians are told of and "not known yet"; fixes through the OwnTracks route walk
/// into it; the page then says "inside", and the guardians' arrival notification is in the inbox
/// once; the place is removed with its button. Screenshots artifacts/safetravel-places-*.png.
@Suite(.needs("chromium")) struct SafeTravelPlacesBrowserTests {
    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func theTravellerAddsAPlaceWalksIntoItAndRemovesIt() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-safetravel-places")
        try ConsoleBrowserTests.copyShippedManifest("safetravel", into: ws)
        ws.writeDeployment(plugins: [["id": "cz.tessera.safetravel",
                                      "config": ["requireGuardians": false, "pinIterations": 1000] as [String: Any],
                                      "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "location": [:] as [String: Any],
                                                 "notifications": ["spaces": true], "sync": [:] as [String: Any]]]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        let base = "http://127.0.0.1:\(serve.port)"
        _ = try await SafeTravelBrowserTests.post(serve, "/v1/plugins/cz.tessera.safetravel/ops/account-setup", #"{"username": "ada", "pin": "4826"}"#, token: token)
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try ConsoleBrowserTests.signIn(page, at: base, with: token)
            try page.navigate(base + "/ui/cz.tessera.safetravel/")
            try page.waitFor("document.body.dataset.ready === 'true' && !document.getElementById('places-section').hidden", "the places")
            try page.type("School", into: "place-name")
            try page.type("95", into: "place-lat")
            try page.type("14.42", into: "place-lon")
            try page.click("#place-form button[type=submit]")
            try page.waitFor("document.getElementById('place-error').textContent !== ''", "the refusal of the latitude")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('place-error').textContent") }
                == "Latitude is a number from -90 to 90, such as 50.088.")
        #expect(try await onThread { try page.evaluate("document.getElementById('place-lat').getAttribute('aria-invalid')") } == "true")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread {
            try page.evaluate("document.getElementById('place-lat').value = ''")
            try page.type("50.08", into: "place-lat")
            try page.click("#place-form button[type=submit]")
            try page.waitFor("document.body.dataset.ready === 'true' && document.getElementById('places').rows.length === 1", "the place listed")
        }
        let row = try await onThread { try page.evaluate("[...document.getElementById('places').rows[0].cells].slice(0, 4).map((c) => c.textContent).join('|')") }
        #expect(row.stringValue == "School|150 m|on arrival and on leaving|not known yet")

        // 1 km south, then at the gate: an OwnTracks fix a minute.
        for (minute, lat) in [(0, 50.071), (1, 50.0801)] {
            let tst = 1_772_438_400 + minute * 60
            _ = try await SafeTravelBrowserTests.post(serve, "/v1/location", #"{"_type": "location", "lat": \#(lat), "lon": 14.42, "tst": \#(tst), "acc": 8, "topic": "owntracks/ada/phone"}"#, token: token)
            _ = try await SafeTravelBrowserTests.post(serve, "/v1/clock/advance", #"{"by": "1m"}"#, token: token)
        }
        try await onThread {
            try page.navigate(base + "/ui/cz.tessera.safetravel/")
            try page.waitFor("document.body.dataset.ready === 'true' && document.getElementById('places').rows.length === 1", "the places again")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('places').rows[0].cells[3].textContent") }.stringValue == "inside")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("safetravel-places", in: ConsoleBrowserTests.artifacts) }
        let inbox = try await RawHTTPClient.request(port: serve.port, "GET", "/v1/notifications", headers: [("Authorization", "Bearer \(token)")])
        #expect(inbox.text.components(separatedBy: "ada arrived at School").count == 2, "\(inbox.text)")

        try await onThread {
            try page.click("#places button[aria-label='Remove School']")
            try page.waitFor("document.body.dataset.ready === 'true' && document.getElementById('places').rows.length === 0", "the place removed")
        }
        let unlabelled = try await onThread { try page.evaluate("""
            [...document.querySelectorAll('input, select, textarea, button')]
              .filter((c) => (c.labels?.length ?? 0) === 0 && !c.getAttribute('aria-label') && !c.textContent.trim()).map((c) => c.id || c.name).join(',')
            """) }
        #expect(unlabelled == "")
        _ = try await serve.terminate()
    }
}
