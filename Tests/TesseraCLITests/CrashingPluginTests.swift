import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Issue 43: a host that an in-process plugin crashes ends at once and says which plugin and which
/// signal, so that its supervisor restarts it. The fixture plugin, in `tessera serve`'s own
/// process, is asked to crash: by a bad pointer (SIGSEGV in its code) and by `fatalError` (a trap
/// inside Swift's runtime, called from its code). Each time the host's last line names
/// `fixture.isolated` and the signal, and the process ends by that signal. Swift's backtracer,
/// which the host's handlers replace, took about 24 s here before the host exited.
@Suite(.hangWatchdog) struct CrashingPluginTests {
    /// `tessera serve` with the fixture plugin in its own process, offering `operations`: the
    /// process, the admin token and the URL.
    static func serveTheFixtureInProcess(_ name: String, operations: [String]) async throws -> (ChildProcess, String, String) {
        let ws = FixtureWorkspace(name)
        let anyOp: [String: Any] = ["type": "object"]
        ws.addManifest(id: "fixture.isolated", library: try await PluginBuilder.library(.isolated)) { m in
            m["operations"] = operations.map { ["name": $0, "input": anyOp, "output": anyOp] }
        }
        ws.writeDeployment(plugins: [["id": "fixture.isolated", "grants": [:] as [String: Any]]])  // in the host's process
        let (process, text) = try await ServeTests.serve(ws)
        let lines = text.split(separator: "\n").map(String.init)
        let token = try #require(lines.firstIndex { $0.hasPrefix("admin token") }.map { lines[$0 + 1].trimmingCharacters(in: .whitespaces) })
        let url = try #require(text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression).map { String(text[$0]) })
        return (process, token, url)
    }

    @Test(arguments: [("segfault", SIGSEGV, "SIGSEGV"), ("fatal", SIGILL, "SIGILL")])
    func anInProcessCrashEndsTheHostAtOnceNamingThePluginAndTheSignal(kind: String, signal: Int32, name: String) async throws {
        let (process, token, url) = try await Self.serveTheFixtureInProcess("serve-crashing-\(kind)", operations: ["echo", "crash"])
        defer { if process.isRunning { process.killNow() } }

        let asked = ContinuousClock.now
        let call = Task {  // the connection ends with the host
            _ = try? await RawHTTPClient.request("POST", url: url + "/v1/plugins/fixture.isolated/ops/crash", token: token,
                                                 json: #"{"kind": "\#(kind)"}"#, timeout: 120)
        }
        // When the host says it crashed, and when it has ended: the first tells how long the
        // request took to reach the plugin, the second how long the host took to die after it.
        var said = await process.output(until: "crashed the host")
        let crashed = ContinuousClock.now - asked
        let status = try await onOwnThread { process.terminationStatus }
        let ended = ContinuousClock.now - asked
        _ = await call.value
        said += await process.output()
        print("\(kind): the plugin crashed \(crashed) after the request, the host ended \(ended) after the request, status \(status): \(said.split(separator: "\n").last ?? "")")
        #expect(said.contains("tessera: plugin 'fixture.isolated' crashed the host (\(name), signal \(signal))"), "\(said)")
        #expect(status == signal, "the process ended by \(name)")
    }
}
