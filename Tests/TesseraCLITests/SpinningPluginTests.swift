import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Issue 43: the host stays itself while in-process plugins spin. A served host with the fixture
/// plugin in its own process is sent more calls of `spin` (an endless loop that never suspends)
/// than it has plugin threads; once every `tessera-plug-N` thread is running one, `/healthz` and
/// the admin's plugin list still answer, and SIGTERM stops the host (the clean stop waits 2 s for
/// the calls in flight, then the host ends and says why). Before plugin code had threads of its
/// own (`PluginThreads`), the spins held Swift's whole pool and neither happened; before the stop's
/// deadline, the host waited for the spins for ever.
@Suite(.hangWatchdog) struct SpinningPluginTests {
    static func get(_ url: String, token: String? = nil) async throws -> Int {
        var request = URLRequest(url: URL(string: url)!)
        request.timeoutInterval = 60
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as! HTTPURLResponse).statusCode
    }

    /// The kernel's state letter of each of `pid`'s threads named `tessera-plug-*` (R: running).
    static func pluginThreadStates(_ pid: Int32) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            guard let stat = try? ServeTests.readProcFile("/proc/\(pid)/task/\(task)/stat"),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
            let name = stat[stat.index(after: open)..<close]
            guard name.hasPrefix("tessera-plug-") else { return nil }
            return stat[stat.index(close, offsetBy: 2)...].split(separator: " ").first.map(String.init)
        }
    }

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

    @Test func healthzAndTheAdminAnswerAndSIGTERMStopsTheHostWhileEveryPluginThreadSpins() async throws {
        let (process, token, url) = try await Self.serveTheFixtureInProcess("serve-spinning", operations: ["echo", "spin"])
        defer { if process.isRunning { process.killNow() } }

        // A first call starts the plugin threads (they are made when a plugin first needs them).
        var echo = URLRequest(url: URL(string: url + "/v1/plugins/fixture.isolated/ops/echo")!)
        echo.httpMethod = "POST"
        echo.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        echo.setValue("application/json", forHTTPHeaderField: "Content-Type")
        echo.httpBody = Data("{}".utf8)
        #expect((try await URLSession.shared.data(for: echo).1 as! HTTPURLResponse).statusCode == 200)
        let threads = Self.pluginThreadStates(process.processIdentifier).count
        #expect(threads >= 2, "the host has threads for plugins")
        // One more than the plugin threads and than Swift's pool (a thread per core) have threads.
        let spins = max(threads, ProcessInfo.processInfo.activeProcessorCount) + 1
        for _ in 0..<spins {
            Task.detached {
                var request = URLRequest(url: URL(string: url + "/v1/plugins/fixture.isolated/ops/spin")!)
                request.httpMethod = "POST"
                request.timeoutInterval = 600
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.httpBody = Data("{}".utf8)
                _ = try? await URLSession.shared.data(for: request)
            }
        }
        // Every plugin thread running a spin (the kernel says R), checked every 50 ms for at most a minute.
        var spinning = false
        for _ in 0..<1200 {
            let states = Self.pluginThreadStates(process.processIdentifier)
            if states.count == threads && states.allSatisfy({ $0 == "R" }) { spinning = true; break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(spinning, "every plugin thread spins: \(Self.pluginThreadStates(process.processIdentifier))")

        let started = ContinuousClock.now
        #expect(try await Self.get(url + "/healthz") == 200)
        #expect(try await Self.get(url + "/v1/plugins", token: token) == 200)
        let answered = ContinuousClock.now - started
        process.terminate()  // SIGTERM
        let stopping = ContinuousClock.now
        let status = try await onOwnThread { process.terminationStatus }
        let said = await process.output()
        let stopped = ContinuousClock.now - stopping
        print("while \(threads) plugin threads spin: /healthz and /v1/plugins answered in \(answered); SIGTERM stopped the host in \(stopped) (status \(status))")
        #expect(!process.isRunning)
        #expect(said.contains("stopping now: the clean stop took longer than 2 s"), "\(said)")
    }
}
