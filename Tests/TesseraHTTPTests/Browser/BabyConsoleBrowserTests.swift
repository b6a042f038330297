import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The baby diary's page in a real headless Chromium against the real `tessera serve`: the child
/// with its age, the growth chart of its weights, a measurement added through the form (the chart
/// and the timeline follow), and every control labelled. The screenshot is artifacts/baby.png.
@Suite struct BabyConsoleBrowserTests {
    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func thePageShowsTheChildsGrowthAndAddsAMeasurement() async throws {
        guard let executable = HeadlessChromium.executable else {
            Issue.record(Comment(rawValue: HeadlessChromium.installHint))
            return
        }
        let ws = FixtureWorkspace("http-browser-baby")
        try ConsoleBrowserTests.copyShippedManifest("baby", into: ws)
        let grants: [String: Any] = ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "notifications": [:] as [String: Any]]
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
            try page.type("8.35", into: "value")
            try page.evaluate("document.getElementById('date').value = '2026-03-01'")
            try page.click("#measurement-form button[type=submit]")
            try page.waitFor("document.querySelectorAll('#chart circle').length === 3", "the new weight on the chart")
            try page.waitFor("document.getElementById('timeline').innerText.includes('2026-03-01 · measurement · weight · 8.35')", "the weight in the timeline")
            try page.screenshot(to: ConsoleBrowserTests.artifacts + "/baby.png")
        }
        let series = try await call("measurements", #"{"childId": "\#(child)", "kind": "weight"}"#)
        #expect(series["points"]?.arrayValue?.compactMap { $0["value"]?.doubleValue } == [7.9, 8.35, 8.2])
        let unlabelled = try await onThread { try page.evaluate("""
            [...document.querySelectorAll('input, select, textarea')]
              .filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.id || c.name).join(',')
            """) }
        #expect(unlabelled == "")
        _ = try await serve.terminate()
    }
}
