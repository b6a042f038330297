import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// `tessera plugins swap` against a `tessera serve` whose plugin runs in the process tier
/// (docs/isolation.md, docs/hot-swap.md): the new build takes over in a new child, the data
/// written before is there after, and a file that is not a plugin is refused while the old child
/// serves on.
@Suite struct ProcessTierSwapServeTests {
    func http(_ method: String, _ url: String, _ path: String, token: String, body: String? = nil) async throws -> (Int, JSONValue) {
        let response = try await RawHTTPClient.request(method, url: url + path, token: token, json: body)
        return (response.status, response.json ?? .null)
    }

    @Test(.hangWatchdog) func aServedProcessTierPluginIsSwappedToANewBuild() async throws {
        let ws = FixtureWorkspace("serve-process-swap")
        ws.addExampleManifest()
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "isolation": "process",
                                      "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
        let build = ws.root + "/libTesseraExample-next.so"
        let original = try Data(contentsOf: URL(fileURLWithPath: Fixtures.buildDirectory + "/libTesseraExample.so"))
        try (original + Data([0])).write(to: URL(fileURLWithPath: build))
        Fixtures.write("not a plugin", to: ws.root + "/broken.so")

        let (process, text) = try await ServeTests.serve(ws)
        try await withCleanup({ await process.terminateAndWait() }) {
            let lines = text.split(separator: "\n").map(String.init)
            let token = try #require(lines.firstIndex { $0.hasPrefix("admin token") }.map { lines[$0 + 1].trimmingCharacters(in: .whitespaces) })
            let url = try #require(text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression).map { String(text[$0]) })

            let (added, addedBody) = try await http("POST", url, "/v1/plugins/dev.tessera.example/ops/add-note", token: token, body: #"{"text": "before the swap"}"#)
            #expect(added == 200, "\(addedBody)")
            func swap(_ path: String) async throws -> ProcessResult {
                try await runDetached(Fixtures.tesseraExecutable, ["plugins", "swap", "dev.tessera.example", path, "--url", url, "--token", token,
                                                                   "--deployment", ws.deploymentFile])
            }
            let swapped = try await swap(build)
            #expect(swapped.status == 0, "\(swapped.stderr)")
            #expect(swapped.stdout.contains("dev.tessera.example: generation 2 serving"), "\(swapped.stdout)")
            let (listed, notes) = try await http("POST", url, "/v1/plugins/dev.tessera.example/ops/list-notes", token: token, body: "{}")
            #expect(listed == 200, "\(notes)")
            #expect(notes.serialized().contains("before the swap"), "\(notes)")
            let refused = try await swap(ws.root + "/broken.so")
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("gate 1") && refused.stderr.contains("generation keeps serving"), "\(refused.stderr)")
            let (after, afterBody) = try await http("POST", url, "/v1/plugins/dev.tessera.example/ops/add-note", token: token, body: #"{"text": "after"}"#)
            #expect(after == 200, "\(afterBody)")
        }
    }
}
