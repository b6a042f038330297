import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// `tessera plugins restart ID` against a running `tessera serve` (POST /v1/plugins/{id}/restart):
/// a process-tier plugin crashed into quarantine serves again, and a plugin in the host's process
/// is refused with the reason.
@Suite(.hangWatchdog) struct PluginsRestartTests {
    /// An admin's POST to the serving host; the status and the JSON answer.
    func post(_ url: String, _ path: String, token: String, body: String = "{}") async throws -> (Int, JSONValue) {
        let response = try await RawHTTPClient.request("POST", url: url + path, token: token, json: body)
        return (response.status, response.json ?? .null)
    }

    @Test func theOperatorRestartsAQuarantinedPluginOfAServingHost() async throws {
        let ws = FixtureWorkspace("serve-restart")
        let anyOp: [String: Any] = ["type": "object"]
        ws.addManifest(id: "fixture.isolated", library: try await PluginBuilder.library(.isolated)) { m in
            m["requires"] = [["capability": "storage", "version": "^1.0"]]
            m["operations"] = ["echo", "crash"].map { ["name": $0, "input": anyOp, "output": anyOp] }
        }
        ws.addManifest(id: "fixture.good", library: try await PluginBuilder.library(.good))
        ws.writeDeployment(plugins: [["id": "fixture.isolated", "isolation": "process", "grants": ["storage": [:] as [String: Any]]],
                                     ["id": "fixture.good", "grants": [:] as [String: Any]]])
        let (process, text) = try await ServeTests.serve(ws)
        try await withCleanup({ await process.terminateAndWait() }) {
            let lines = text.split(separator: "\n").map(String.init)
            let token = try #require(lines.firstIndex { $0.hasPrefix("admin token") }.map { lines[$0 + 1].trimmingCharacters(in: .whitespaces) })
            let url = try #require(text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression).map { String(text[$0]) })

            // Five crashes within the window (the host's default policy), the virtual clock moved past each backoff.
            for _ in 1...5 {
                let (status, answer) = try await post(url, "/v1/plugins/fixture.isolated/ops/crash", token: token, body: #"{"kind": "abort"}"#)
                #expect(status == 502, "\(answer)")
                #expect(answer["error"]?["code"] == "plugin_crashed")
                #expect(try await post(url, "/v1/clock/advance", token: token, body: #"{"by": "1m"}"#).0 == 200)
            }
            let (refused, quarantined) = try await post(url, "/v1/plugins/fixture.isolated/ops/echo", token: token, body: #"{"a": 1}"#)
            #expect(refused == 503)
            #expect(quarantined["error"]?["message"]?.stringValue?.contains("quarantined") == true, "\(quarantined)")

            func restart(_ id: String, token: String) async throws -> ProcessResult {
                try await runDetached(Fixtures.tesseraExecutable, ["plugins", "restart", id, "--url", url, "--token", token, "--deployment", ws.deploymentFile])
            }
            let restarted = try await restart("fixture.isolated", token: token)
            #expect(restarted.status == 0, "\(restarted.stderr)")
            #expect(restarted.stdout.contains("fixture.isolated: active, process"), "\(restarted.stdout)")
            let (status, echoed) = try await post(url, "/v1/plugins/fixture.isolated/ops/echo", token: token, body: #"{"a": 1}"#)
            #expect(status == 200)
            #expect(echoed["a"] == 1, "\(echoed)")

            // A plugin in the host's process: refused, and why; a wrong token: exit 4.
            let inProcess = try await restart("fixture.good", token: token)
            #expect(inProcess.status == 1)
            #expect(inProcess.stderr.contains("does not run in the process tier"), "\(inProcess.stderr)")
            #expect(try await restart("fixture.isolated", token: "not-a-token").status == 4)
        }
    }
}
