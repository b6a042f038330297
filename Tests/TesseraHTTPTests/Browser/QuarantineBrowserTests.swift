import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The console's plugin table for a process-tier plugin, in a real headless Chromium against the
/// real `tessera serve`: a plugin crashed five times into quarantine is shown quarantined, with its
/// crashes and a Restart button; pressing it (the admin's POST /v1/plugins/{id}/restart) brings it
/// back, and the table says so with its new child. Screenshot: artifacts/console-quarantine.png.
@Suite(.needs("chromium")) struct QuarantineBrowserTests {
    @Test(.hangWatchdog) func theOperatorSeesAQuarantinedPluginAndRestartsItFromTheConsole() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-quarantine")
        let anyOp: [String: Any] = ["type": "object"]
        ws.addManifest(id: "fixture.isolated", library: try await PluginBuilder.library(.isolated)) { m in
            m["requires"] = [["capability": "storage", "version": "^1.0"]]
            m["operations"] = ["echo", "crash"].map { ["name": $0, "input": anyOp, "output": anyOp] }
        }
        ws.writeDeployment(plugins: [["id": "fixture.isolated", "isolation": "process", "grants": ["storage": [:] as [String: Any]]]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        // Five crashes within the window (the default policy), the virtual clock moved past each backoff.
        for _ in 1...5 {
            #expect(try await post(serve.port, "/v1/plugins/fixture.isolated/ops/crash", token: token, body: #"{"kind": "abort"}"#) == 502)
            #expect(try await post(serve.port, "/v1/clock/advance", token: token, body: #"{"by": "1m"}"#) == 200)
        }

        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread { try ConsoleBrowserTests.signIn(page, at: base, with: token) }
        let row = "document.querySelector('tr[data-plugin=\"fixture.isolated\"]')"
        let before = try await onThread { try page.evaluate("\(row).innerText").stringValue ?? "" }
        #expect(before.contains("quarantined"), "\(before)")
        #expect(before.contains("runs in its own process") && before.contains("5 recent crashes"), "\(before)")
        #expect(before.contains("SIGABRT"), "\(before)")
        #expect(try await onThread { try page.evaluate("getComputedStyle(\(row).querySelector('.state')).color") } !=
                    (try await onThread { try page.evaluate("getComputedStyle(document.body).color") }))
        try await onThread {
            try page.screenshot(to: ConsoleBrowserTests.artifacts + "/console-quarantine.png")
            try page.click("button[data-restart=\"fixture.isolated\"]")
            try page.waitFor("\(row).querySelector('.state').textContent === 'active'", "the plugin active again")
        }
        let after = try await onThread { try page.evaluate("\(row).innerText").stringValue ?? "" }
        #expect(after.contains("runs in its own process, process "), "\(after)")
        #expect(try await onThread { try page.evaluate("document.querySelector('button[data-restart]') === null") } == true)
        #expect(try await post(serve.port, "/v1/plugins/fixture.isolated/ops/echo", token: token, body: #"{"a": 1}"#) == 200)
    }

    /// An admin's POST to the serving host; its status.
    func post(_ port: Int, _ path: String, token: String, body: String) async throws -> Int {
        try await RawHTTPClient.request("POST", url: "http://127.0.0.1:\(port)" + path, token: token, json: body).status
    }
}
