import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The live view's two later parts over real HTTP and in a real headless Chromium, against
/// `tessera serve` (the module's `.so`) on a virtual clock: an SOS pressed outside a trip alerts
/// with a link of its own that shows the SOS's positions; a trip photo uploaded over HTTP is shown
/// on the trip's live view, fetched through a capability link of its own (never the bearer API).
/// And the traveller's console: the live link to copy (with until when it works), a photo through
/// the form's file input, the hold-to-SOS button and its PIN dialog (a wrong PIN as a sentence).
/// Screenshots artifacts/safetravel-live-sos-*, safetravel-live-photo-*, safetravel-sos-*.
@Suite(.needs("chromium")) struct SafeTravelSOSAndPhotoBrowserTests {
    static let ops = "/v1/plugins/cz.tessera.safetravel/ops/"
    static let links = "/v1/links/cz.tessera.safetravel/"
    /// A real 1×1 PNG.
    static let png = Array(Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!)

    static func serve() async throws -> ServeProcess {
        let ws = FixtureWorkspace("http-browser-safetravel-sos-photo")
        try ConsoleBrowserTests.copyShippedManifest("safetravel", into: ws)
        ws.writeDeployment(plugins: [["id": "cz.tessera.safetravel",
                                      "config": ["requireGuardians": false, "pinIterations": 1000] as [String: Any],
                                      "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "location": [:] as [String: Any],
                                                 "notifications": ["spaces": true], "sync": [:] as [String: Any], "files": [:] as [String: Any]]]])
        return try await ServeProcess.start(ws)
    }

    static func post(_ serve: ServeProcess, _ path: String, _ body: String = "{}", token: String) async throws -> RawResponse {
        try await SafeTravelLiveBrowserTests.post(serve, path, body, token: token)
    }

    static func fix(_ serve: ServeProcess, lat: Double, minute: Int, token: String) async throws {
        let tst = 1_772_438_400 + minute * 60
        _ = try await post(serve, "/v1/location", #"{"_type": "location", "lat": \#(lat), "lon": 14.42, "tst": \#(tst), "acc": 8, "batt": 50, "topic": "owntracks/ada/phone"}"#, token: token)
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func anSOSOutsideATripAlertsWithALinkToItsPositions() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let serve = try await Self.serve()
        defer { serve.process.terminate() }
        let admin = try #require(serve.adminToken)
        #expect(try await Self.post(serve, Self.ops + "account-setup", #"{"username": "ada", "pin": "4826"}"#, token: admin).status == 200)
        try await Self.fix(serve, lat: 50.08, minute: 0, token: admin)
        #expect(try await Self.post(serve, Self.ops + "sos-touch-down", token: admin).json?["state"] == "ARMING")
        _ = try await Self.post(serve, "/v1/clock/advance", #"{"by": "3s"}"#, token: admin)
        #expect(try await Self.post(serve, Self.ops + "sos-touch-up", token: admin).json?["state"] == "RELEASED")
        _ = try await Self.post(serve, "/v1/clock/advance", #"{"by": "15s"}"#, token: admin)

        // The alert carries the SOS's link; the link opens with no bearer token.
        let alert = try #require(try await Self.post(serve, Self.ops + "alerts", token: admin).json?["alerts"]?.arrayValue?.first)
        #expect(alert["kind"] == "sos")
        let path = try #require(alert["livePath"]?.stringValue)
        let link = String(path.split(separator: "#").last ?? "")
        let view = try await RawHTTPClient.request(port: serve.port, "GET", Self.links + "live-view/" + link)
        #expect(view.status == 200 && view.json?["kind"] == "sos" && view.json?["state"] == "ALERTED")
        #expect(view.json?["track"]?.arrayValue?.first?["lat"] == 50.08)

        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try page.navigate(base + path)
            try page.waitFor("!document.getElementById('view').hidden && document.querySelector('#track polyline.walked')", "the SOS's positions")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('view-heading').textContent") }.stringValue == "SOS of ada")
        let pressed = try await onThread { try SafeTravelBrowserTests.formatted(page, "f.dateTime('2026-03-02T08:00:03Z')") }
        let summary = try await onThread { try page.evaluate("document.getElementById('summary').textContent") }.stringValue ?? ""
        #expect(summary == "SOS pressed at \(pressed), released at \(pressed). The guardians have been alerted.", "\(summary)")
        let alerts = try await onThread { try page.evaluate("document.getElementById('alerts').textContent") }.stringValue ?? ""
        #expect(alerts.hasSuffix("ada: SOS pressed."), "\(alerts)")  // the live view's alerts carry their kind, not why
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("safetravel-live-sos", in: ConsoleBrowserTests.artifacts) }
        _ = try await serve.terminate()
    }

    @Test(.hangWatchdog) func aTripPhotoIsShownOnTheLiveViewThroughALinkOfItsOwn() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let serve = try await Self.serve()
        defer { serve.process.terminate() }
        let admin = try #require(serve.adminToken)
        _ = try await Self.post(serve, Self.ops + "account-setup", #"{"username": "ada", "pin": "4826"}"#, token: admin)
        let started = try await Self.post(serve, Self.ops + "trip-start", #"{"expectedArrivalAt": "2026-03-02T08:30:00Z"}"#, token: admin)
        let link = try #require(started.json?["liveLink"]?["token"]?.stringValue)
        try await Self.fix(serve, lat: 50.07, minute: 0, token: admin)
        let uploaded = try await RawHTTPClient.request(port: serve.port, "POST", Self.ops + "trip-photo?text=stop",
                                                       headers: [("Authorization", "Bearer \(admin)"), ("Content-Type", "image/png")], body: Self.png)
        #expect(uploaded.status == 200 && uploaded.json?["type"] == "PHOTO", "\(uploaded.text)")

        let view = try await RawHTTPClient.request(port: serve.port, "GET", Self.links + "live-view/" + link)
        let photoToken = try #require(view.json?["photos"]?.arrayValue?.first?["photo"]?.stringValue)
        let photo = try await RawHTTPClient.request(port: serve.port, "GET", Self.links + "live-photo/" + photoToken)
        #expect(photo.status == 200 && photo.headers["cache-control"] == "no-store")
        #expect(photo.json?["data"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map(Array.init) == Self.png, "byte for byte")
        // Never through the bearer API, and the link's own token is no photo's.
        let bearer = try await Self.post(serve, Self.ops + "live-photo", #"{"token": "\#(photoToken)"}"#, token: admin)
        #expect(bearer.status == 403)
        #expect(try await RawHTTPClient.request(port: serve.port, "GET", Self.links + "live-photo/" + link).status == 404)

        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try page.navigate(base + "/ui/cz.tessera.safetravel/live.html#" + link)
            try page.waitFor("document.querySelector('#photos img.thumbnail') && document.querySelector('#photos img.thumbnail').complete", "the photo")
        }
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("safetravel-live-photo", in: ConsoleBrowserTests.artifacts) }
        #expect(try await onThread { try page.evaluate("document.querySelector('#photos img.thumbnail').naturalWidth") }.doubleValue == 1)
        #expect(try await onThread { try page.evaluate("document.querySelector('#photos img.thumbnail').alt") }.stringValue?.hasPrefix("Photo taken at") == true)

        // Revoked with its trip's links, the photo's link closes too.
        _ = try await Self.post(serve, Self.ops + "live-link-revoke", token: admin)
        #expect(try await RawHTTPClient.request(port: serve.port, "GET", Self.links + "live-photo/" + photoToken).status == 404)
        _ = try await serve.terminate()
    }

    @Test(.hangWatchdog) func theTravellerCopiesTheLinkUploadsAPhotoAndAnswersTheSOSDialog() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let serve = try await Self.serve()
        defer { serve.process.terminate() }
        let admin = try #require(serve.adminToken)
        _ = try await Self.post(serve, Self.ops + "account-setup", #"{"username": "ada", "pin": "4826"}"#, token: admin)
        let started = try await Self.post(serve, Self.ops + "trip-start", #"{"expectedArrivalAt": "2026-03-02T08:30:00Z"}"#, token: admin)
        let link = try #require(started.json?["liveLink"]?["token"]?.stringValue)
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try ConsoleBrowserTests.signIn(page, at: base, with: admin)
            try page.navigate(base + "/ui/cz.tessera.safetravel/")
            try page.waitFor("document.body.dataset.ready === 'true' && !document.getElementById('active-trip').hidden", "the active trip")
        }
        let shown = try await onThread { try page.evaluate("document.getElementById('live-link').value") }.stringValue
        #expect(shown == base + "/ui/cz.tessera.safetravel/live.html#" + link)
        let until = try await onThread { try SafeTravelBrowserTests.formatted(page, "f.dateTime('2026-03-03T08:00:00Z')") }
        #expect(try await onThread { try page.evaluate("document.getElementById('live-link-expiry').textContent") }
                == .string("The link works until \(until) (tomorrow)."))

        // A photo chosen in the form's file input goes up as the raw body; the trip then names it.
        let file = NSTemporaryDirectory() + "safetravel-dot-\(UUID().uuidString).png"
        try Data(Self.png).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await onThread {
            let document = try page.send("DOM.getDocument")
            let input = try page.send("DOM.querySelector", ["nodeId": document["root"]?["nodeId"] ?? .null, "selector": "#photo"])
            _ = try page.send("DOM.setFileInputFiles", ["files": [.string(file)], "nodeId": input["nodeId"] ?? .null])
            try page.type("the tram stop", into: "photo-text")
            try page.click("#photo-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent.startsWith('Photo added')", "the uploaded photo")
        }
        let view = try await RawHTTPClient.request(port: serve.port, "GET", Self.links + "live-view/" + link)
        #expect(view.json?["photos"]?.arrayValue?.count == 1, "\(view.text)")

        // Held for the 3 s of the virtual clock, released: the PIN dialog; a wrong PIN shown, the right one SAFE.
        try await onThread { _ = try page.evaluate("document.getElementById('sos').dispatchEvent(new PointerEvent('pointerdown')), true") }
        try await onThread { try page.waitFor("document.getElementById('status').textContent === 'SOS: keep holding the button.'", "the press") }
        _ = try await Self.post(serve, "/v1/clock/advance", #"{"by": "3s"}"#, token: admin)
        try await onThread {
            _ = try page.evaluate("document.getElementById('sos').dispatchEvent(new PointerEvent('pointerup')), true")
            try page.waitFor("document.getElementById('sos-dialog').open", "the PIN dialog")
            try page.type("0000", into: "sos-pin")
            try page.click("#sos-pin-form button[type=submit]")
            try page.waitFor("document.getElementById('sos-error').textContent !== ''", "the wrong PIN's sentence")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('sos-dialog-text').textContent") }
                == "Enter your PIN within 10 seconds, or your guardians are alerted.")
        #expect(try await onThread { try page.evaluate("document.getElementById('sos-error').textContent") } == "That PIN is not right. Try again.")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread {
            try page.screenshots("safetravel-sos", in: ConsoleBrowserTests.artifacts)
            try page.type("4826", into: "sos-pin")
            try page.click("#sos-pin-form button[type=submit]")
            try page.waitFor("!document.getElementById('sos-dialog').open && document.getElementById('status').textContent === 'SOS: you are safe. Nobody was alerted.'", "safe")
        }
        #expect(try await onThread { try page.developerText() } == [])
        let status = try await Self.post(serve, Self.ops + "sos-history", token: admin)
        #expect(status.json?["sos"]?.arrayValue?.first?["state"] == "SAFE", "\(status.text)")
        _ = try await serve.terminate()
    }
}
