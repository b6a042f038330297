import Foundation
import Synchronization
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Reloading a serving host's deployment (issue 46; docs/operating.md, "Reloading"): under load,
/// `tessera reload` and SIGHUP enable, reconfigure and disable a plugin while another plugin's
/// calls all succeed; a file that does not check, or that changes what only a restart applies, is
/// refused and the deployment in force keeps serving. And `serve` ends, saying why, when a plugin
/// the deployment enables is refused.
@Suite struct ReloadServeTests {
    static let example = "dev.tessera.example", hello = "dev.tessera.hello"
    static var storageAndClock: [String: Any] { ["storage": [:] as [String: Any], "clock": [:] as [String: Any]] }

    func workspace(_ label: String) -> FixtureWorkspace {
        let ws = FixtureWorkspace(label)
        ws.addExampleManifest()
        let hello = Fixtures.repositoryRoot + "/Plugins/Hello/manifest.json"
        Fixtures.write((try? String(contentsOfFile: hello, encoding: .utf8)) ?? "", to: ws.root + "/hello.json")
        return ws
    }

    func deployment(_ ws: FixtureWorkspace, example: [String: Any]?, extra: [String: Any] = [:]) {
        var plugins: [[String: Any]] = [["id": Self.hello, "grants": ["storage": [:] as [String: Any]]]]
        if let example { plugins.append(["id": Self.example].merging(example) { a, _ in a }) }
        ws.writeDeployment(plugins: plugins, extra: extra)
    }

    /// Calls one operation over and over until told to stop, counting what answered 200 and what did not.
    final class Load: Sendable {
        let ok = Atomic<Int>(0), failed = Mutex<[String]>([]), stop = Atomic<Bool>(false)
        func run(_ post: @escaping @Sendable () async -> (Int, String)) -> Task<Void, Never> {
            Task {
                while !stop.load(ordering: .relaxed) {
                    let (status, body) = await post()
                    if status == 200 { ok.add(1, ordering: .relaxed) } else { failed.withLock { $0.append("\(status) \(body)") } }
                }
            }
        }

        /// Waits until `count` calls have answered 200 (polling another process's progress, not the time).
        func waitForAnswers(_ count: Int) async throws {
            for _ in 0..<3000 where ok.load(ordering: .relaxed) < count && failed.withLock({ $0.isEmpty }) {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    @Test(.hangWatchdog) func reloadAppliesPluginChangesUnderLoadAndRefusesBadFiles() async throws {
        let ws = workspace("reload-serve")
        deployment(ws, example: ["enabled": false, "grants": Self.storageAndClock])
        let (process, text) = try await ServeTests.serve(ws)
        try await withCleanup({ await process.terminateAndWait() }) {
            let drained = Task { await process.output() }  // the access log must not fill the pipe
            let lines = text.split(separator: "\n").map(String.init)
            let token = try #require(lines.firstIndex { $0.hasPrefix("admin token") }.map { lines[$0 + 1].trimmingCharacters(in: .whitespaces) })
            let url = try #require(text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression).map { String(text[$0]) })
            let api = API(url: url, token: token)
            func reload() async throws -> ProcessResult {
                try await runDetached(Fixtures.tesseraExecutable, ["reload", "--url", url, "--token", token, "--deployment", ws.deploymentFile])
            }

            // Hello's callers run through every step below.
            let helloLoad = Load()
            let helloCallers = (0..<3).map { i in helloLoad.run { await api.post("/v1/plugins/\(Self.hello)/ops/greet", #"{"name": "caller \#(i)"}"#) } }

            // 1. Enabled: the example starts.
            deployment(ws, example: ["grants": Self.storageAndClock])
            let enabled = try await reload()
            #expect(enabled.status == 0, "\(enabled.stderr)")
            #expect(enabled.stdout.contains("started: \(Self.example)"), "\(enabled.stdout)")
            #expect(await api.post("/v1/plugins/\(Self.example)/ops/add-note", #"{"text": "before the new grants"}"#).0 == 200)

            // 2. New grants, while the example's own callers go on: swapped in, every call answered, the data kept.
            let exampleLoad = Load()
            let exampleCallers = (0..<2).map { _ in exampleLoad.run { await api.post("/v1/plugins/\(Self.example)/ops/list-notes", "{}") } }
            try await exampleLoad.waitForAnswers(10)
            deployment(ws, example: ["grants": Self.storageAndClock.merging(["notifications": [:] as [String: Any]]) { a, _ in a }])
            let (reconfigured, report) = await api.post("/v1/deployment/reload", "")
            try await exampleLoad.waitForAnswers(exampleLoad.ok.load(ordering: .relaxed) + 10)  // and calls after it
            exampleLoad.stop.store(true, ordering: .relaxed)
            for caller in exampleCallers { await caller.value }
            #expect(reconfigured == 200, "\(report)")
            #expect(report.contains(#""reconfigured":["\#(Self.example)"]"#), "\(report)")
            #expect(exampleLoad.failed.withLock { $0 }.isEmpty, "\(exampleLoad.failed.withLock { $0.prefix(3) })")
            #expect(exampleLoad.ok.load(ordering: .relaxed) > 0)
            let (_, plugins) = await api.get("/v1/plugins")
            #expect(plugins.contains("notifications"), "the new grant is in force: \(plugins)")
            #expect(await api.post("/v1/plugins/\(Self.example)/ops/list-notes", "{}").1.contains("before the new grants"))

            // 3. A grant beyond the manifest's request: refused, nothing changes.
            deployment(ws, example: ["grants": ["storage": ["quotaMB": 5000] as [String: Any], "clock": [:] as [String: Any]]])
            let refused = try await reload()
            #expect(refused.status == 6, "\(refused.stdout) \(refused.stderr)")
            #expect(refused.stderr.contains(Self.example) && refused.stderr.contains("keeps serving"), "\(refused.stderr)")
            #expect(await api.get("/v1/plugins").1.contains("notifications"), "the deployment in force is still the last one applied")

            // 4. A setting only a restart applies: refused, saying which.
            deployment(ws, example: ["grants": Self.storageAndClock], extra: ["http": ["port": 9]])
            let restartOnly = try await reload()
            #expect(restartOnly.status == 6)
            #expect(restartOnly.stderr.contains("http") && restartOnly.stderr.contains("restart"), "\(restartOnly.stderr)")

            // 5. SIGHUP: disabled; its calls are refused as not active, Hello's go on.
            deployment(ws, example: ["enabled": false, "grants": Self.storageAndClock])
            kill(process.processIdentifier, SIGHUP)
            var state = ""
            for _ in 0..<600 where state != "disabled" {
                state = await api.pluginState(Self.example)
                if state != "disabled" { try await Task.sleep(for: .milliseconds(50)) }  // waits for another process, not for time
            }
            #expect(state == "disabled")
            #expect(await api.post("/v1/plugins/\(Self.example)/ops/list-notes", "{}").0 == 503)

            helloLoad.stop.store(true, ordering: .relaxed)
            for caller in helloCallers { await caller.value }
            #expect(helloLoad.failed.withLock { $0 }.isEmpty, "Hello's calls failed: \(helloLoad.failed.withLock { $0.prefix(3) })")
            #expect(helloLoad.ok.load(ordering: .relaxed) > 20, "Hello was called throughout: \(helloLoad.ok.load(ordering: .relaxed))")
            await process.terminateAndWait()
            let log = await drained.value
            #expect(log.contains("SIGHUP") && log.contains("stopped: \(Self.example)"), "\(log.suffix(2000))")
            // Nobody answers there now: its own exit code, not 5 ("plugin not active").
            let nobody = try await reload()
            #expect(nobody.status == 10 && nobody.stderr.contains("no host answers"), "\(nobody.status) \(nobody.stderr)")
        }
    }

    @Test(.hangWatchdog) func serveEndsSayingWhichEnabledPluginWasRefused() async throws {
        let ws = workspace("serve-refused")
        ws.addManifest(id: "fixture.missing", library: ws.root + "/libMissing.so")
        ws.writeDeployment(plugins: [["id": Self.hello, "grants": ["storage": [:] as [String: Any]]], ["id": "fixture.missing"]])
        let ended = try await runDetached(Fixtures.tesseraExecutable, ["serve", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory, "--port", "0"])
        #expect(ended.status == 6, "\(ended.stdout)")
        #expect(ended.stderr.contains("fixture.missing is rejected") && ended.stderr.contains("libMissing.so")
                && ended.stderr.contains("--keep-going"), "\(ended.stderr)")

        let process = try ChildProcess(Fixtures.tesseraExecutable, ["serve", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory,
                                                                    "--port", "0", "--keep-going"])
        let text = await process.output(until: "Ctrl-C to stop")
        #expect(text.contains("Ctrl-C to stop") && text.contains("rejected"), "\(text)")
        await process.terminateAndWait()
    }

    /// The running host's API with the admin token.
    struct API: Sendable {
        let url: String, token: String

        func post(_ path: String, _ body: String) async -> (Int, String) { await send("POST", path, body) }
        func get(_ path: String) async -> (Int, String) { await send("GET", path, nil) }

        func pluginState(_ id: String) async -> String {
            let (_, body) = await get("/v1/plugins")
            let plugins = (try? JSONValue(parsing: Array(body.utf8)))?["plugins"]?.arrayValue ?? []
            return plugins.first { $0["id"]?.stringValue == id }?["state"]?.stringValue ?? ""
        }

        private func send(_ method: String, _ path: String, _ body: String?) async -> (Int, String) {
            do {
                let response = try await RawHTTPClient.request(method, url: url + path, token: token, json: body?.isEmpty == false ? body : nil)
                return (response.status, response.text)
            } catch {
                return (-1, "\(error)")
            }
        }
    }
}
