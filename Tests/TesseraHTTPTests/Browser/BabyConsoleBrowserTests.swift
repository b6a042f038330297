import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The baby diary's page in a real headless Chromium against the real `tessera serve`: the child
/// with its age, the growth chart of its weights, a measurement added through the form (the chart
/// and the timeline follow), the health card, a post whose photo file is uploaded through the form
/// and then rendered from `photo-get` (as is the child's photo), the calendar's month switched, and
/// every control labelled.
/// The screenshot is artifacts/baby.png.
@Suite struct BabyConsoleBrowserTests {
    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func thePageShowsTheChildsGrowthAndAddsAMeasurement() async throws {
        guard let executable = HeadlessChromium.executable else {
            Issue.record(Comment(rawValue: HeadlessChromium.installHint))
            return
        }
        let ws = FixtureWorkspace("http-browser-baby")
        try ConsoleBrowserTests.copyShippedManifest("baby", into: ws)
        let grants: [String: Any] = ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "notifications": [:] as [String: Any],
                                     "files": [:] as [String: Any]]
        ws.writeDeployment(plugins: [["id": "cz.tessera.baby", "grants": grants]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        func call(_ operation: String, _ body: String) async throws -> JSONValue {
            let response = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.baby/ops/\(operation)",
                                                           headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                           body: Array(body.utf8))
            return try JSONValue(parsing: response.text)
        }
        let child = try #require(try await call("child-create", #"{"name": "Ema", "birthDate": "2025-06-15", "weightKg": 8.2}"#)["id"]?.stringValue)
        _ = try await call("measurement-add", #"{"childId": "\#(child)", "kind": "weight", "value": 7.9, "date": "2026-02-01"}"#)
        _ = try await call("health-card-set", #"{"childId": "\#(child)", "bloodGroup": "A+", "insurer": "111"}"#)
        _ = try await call("allergy-add", #"{"childId": "\#(child)", "allergen": "pyl", "severity": "moderate"}"#)
        // The child's photo (2×2), shown beside the name.
        let portrait = try #require(try await call("photo-put", #"{"data": "\#(Self.portraitPNG)"}"#)["address"]?.stringValue)
        _ = try await call("child-update", #"{"id": "\#(child)", "photo": "\#(portrait)"}"#)
        // A real PNG (48×32) for the post's file input.
        let photoFile = ws.root + "/zahrada.png"
        try Data(base64Encoded: Self.photoPNG)!.write(to: URL(fileURLWithPath: photoFile))

        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try HeadlessChromium(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try ConsoleBrowserTests.signIn(page, at: base, with: token)
            try page.navigate(base + "/ui/cz.tessera.baby/")
            try page.waitFor("document.body.dataset.ready === 'true'", "the page to load")
            try page.waitFor("document.getElementById('children').innerText.includes('Ema (2025-06-15) — 0 y 8 m 15 d — owner')", "the child and its age")
            try page.waitFor("document.querySelectorAll('#chart circle').length === 2", "the two weights on the chart")
            try page.waitFor("[...document.querySelectorAll('#children img')].some((i) => i.complete && i.naturalWidth === 2)", "the child's photo rendered")
            try page.type("8.35", into: "value")
            try page.evaluate("document.getElementById('date').value = '2026-03-01'")
            try page.click("#measurement-form button[type=submit]")
            try page.waitFor("document.querySelectorAll('#chart circle').length === 3", "the new weight on the chart")
            try page.waitFor("document.getElementById('timeline').innerText.includes('2026-03-01 · measurement · weight · 8.35')", "the weight in the timeline")

            // The health card.
            try page.waitFor("document.getElementById('health-card').innerText.includes('A+')", "the blood group")
            try page.waitFor("document.getElementById('health-card').innerText.includes('111 Všeobecná')", "the insurer")
            try page.waitFor("document.getElementById('health-card').innerText.includes('pyl (moderate)')", "the allergy")

            // A post with a photo file through the form: uploaded, kept by the post, rendered.
            try page.type("U babičky na zahradě", into: "post-text")
            try page.evaluate("document.getElementById('post-date').value = '2026-02-28'")
            let document = try page.send("DOM.getDocument")
            let input = try page.send("DOM.querySelector", ["nodeId": document["root"]?["nodeId"] ?? .null, "selector": "#post-photos"])
            _ = try page.send("DOM.setFileInputFiles", ["nodeId": input["nodeId"] ?? .null, "files": [.string(photoFile)]])
            try page.click("#post-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent === 'Post added.'", "the post added")
            try page.waitFor("[...document.querySelectorAll('#timeline img')].some((i) => i.complete && i.naturalWidth === 48)", "the post's photo rendered")

            // The calendar: March has the new weight; February, one month back, the post and the first weight.
            try page.waitFor("document.getElementById('calendar-month').textContent === '2026-03'", "the calendar at March")
            try page.waitFor("document.querySelector('#calendar-grid td[data-date=\"2026-03-01\"]').innerText.includes('measurement 1')", "March 1st's weight")
            try page.click("#calendar-previous")
            try page.waitFor("document.getElementById('calendar-month').textContent === '2026-02'", "the calendar at February")
            try page.waitFor("document.querySelector('#calendar-grid td[data-date=\"2026-02-28\"]').innerText.includes('post 1')", "the post on February 28th")
            try page.click("#calendar-grid button[data-date=\"2026-02-28\"]")
            try page.waitFor("document.getElementById('calendar-day').innerText.includes('U babičky na zahradě')", "the day's post")
            try page.screenshot(to: ConsoleBrowserTests.artifacts + "/baby.png")
        }
        let posts = try await call("timeline", #"{"types": ["post"]}"#)["items"]?.arrayValue ?? []
        #expect(posts.map { $0["note"] } == ["U babičky na zahradě"])
        #expect(posts.first?["photos"]?.arrayValue?.count == 1)
        let series = try await call("measurements", #"{"childId": "\#(child)", "kind": "weight"}"#)
        #expect(series["points"]?.arrayValue?.compactMap { $0["value"]?.doubleValue } == [7.9, 8.35, 8.2])
        let unlabelled = try await onThread { try page.evaluate("""
            [...document.querySelectorAll('input, select, textarea')]
              .filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.id || c.name).join(',')
            """) }
        #expect(unlabelled == "")
        _ = try await serve.terminate()
    }

    /// A 2×2 PNG of one colour.
    static let portraitPNG = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGM4IRcFRAwQCgAkxgUBBHQ3qwAAAABJRU5ErkJggg=="
    /// A 48×32 PNG of one colour.
    static let photoPNG = "iVBORw0KGgoAAAANSUhEUgAAADAAAAAgCAIAAADbtmxLAAAAN0lEQVR4nO3OQQ0AMAgEMOQgEYmTNRccjyYV0Op5p1R8ICQkJJQeCAkJCaUHQkJCQumBkJDQsg/NGXB56ZUnBQAAAABJRU5ErkJggg=="
}
