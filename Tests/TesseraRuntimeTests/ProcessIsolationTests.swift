import Foundation
import Synchronization
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// The process tier (docs/isolation.md): the same plugin library, loaded in a child process
/// (`tessera-plugin-runner`), with its capability calls answered by the host; crashes and
/// runaway calls contained, restarts on the host's clock, quarantine after a crash loop.
@Suite(.hangWatchdog) struct ProcessIsolationTests {
    /// A workspace with `fixture.isolated` in the process tier (storage, clock, notifications,
    /// events) and `fixture.good` in the host's process.
    func workspace(_ name: String) async throws -> FixtureWorkspace {
        let ws = FixtureWorkspace(name)
        let anyOp: [String: Any] = ["type": "object"]
        ws.addManifest(id: "fixture.isolated", library: try await PluginBuilder.library(.isolated)) { m in
            m["requires"] = ["storage", "clock", "notifications", "events"].map { ["capability": $0, "version": "^1.0"] }
            var ops: [[String: Any]] = ["echo", "pid", "crash", "read-file", "add-note", "notes", "remind"].map { ["name": $0, "input": anyOp, "output": anyOp] }
            ops.append(["name": "spin", "input": anyOp, "output": anyOp, "timeoutSeconds": 5])
            m["operations"] = ops
            m["events"] = ["emits": [["name": "note-added"]], "consumes": ["fixture.isolated/note-added"]]
        }
        ws.addManifest(id: "fixture.good", library: try await PluginBuilder.library(.good))
        let grants: [String: Any] = ["storage": [:] as [String: Any], "clock": [:] as [String: Any],
                                     "notifications": [:] as [String: Any], "events": [:] as [String: Any]]
        ws.writeDeployment(plugins: [entry("fixture.isolated", grants: grants, extra: ["isolation": "process"]),
                                     entry("fixture.good", grants: [:])])
        return ws
    }

    func host(_ ws: FixtureWorkspace, policy: IsolationPolicy = IsolationPolicy()) async throws -> PluginHost {
        var options = HostOptions(dataDirectory: ws.dataDirectory)
        options.isolation = policy
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: options)
        await host.start()
        return host
    }

    func childPID(_ host: PluginHost) async throws -> Int32 {
        Int32(try #require(try await host.call("fixture.isolated", "pid", input: [:], as: user)["pid"]?.integerValue))
    }

    @Test func aProcessTierPluginRunsInAChildWithTheSameCapabilities() async throws {
        let ws = try await workspace("isolation-capabilities")
        let host = try await host(ws)
        try await withCleanup({ await host.stop() }) {
            #expect(host.status(of: "fixture.isolated")?.state == .active, "\(host.status(of: "fixture.isolated")?.history ?? [])")
            let pid = try await childPID(host)
            #expect(pid != getpid())
            #expect(host.isolatedProcessID("fixture.isolated") == pid)
            // The library's constructor ran in the children (the gates' and the serving one), never here.
            let constructorPID = try await host.call("fixture.isolated", "pid", input: [:], as: user)["constructorPID"]?.integerValue
            #expect(constructorPID == Int64(pid))
            // Not here: no copy this host staged is mapped in this process. (The pids file is no proof
            // any more: ProcessSandboxTests loads the same fixture in-process, in this same process.)
            let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
            #expect(!maps.contains(ws.dataDirectory + "/generations/"))

            // Storage through the boundary: the record API, and read-only SQL; the clock's time is the host's virtual time.
            _ = try await host.call("fixture.isolated", "add-note", input: ["id": "a", "text": "buy milk"], as: user)
            let notes = try await host.call("fixture.isolated", "notes", input: [:], as: user)
            #expect(notes.arrayValue?.first?["text"] == "buy milk")
            #expect(notes.arrayValue?.first?["at"] == "2026-03-02T08:00:00Z")
            // The host's own file holds it.
            #expect(FileManager.default.fileExists(atPath: host.storagePath("fixture.isolated")))

            // Events: the batch's event reached the plugin's own subscription, in the child.
            await host.settle()
            let seen = try await host.call("fixture.isolated", "notes", input: [:], as: user)
            #expect(seen.arrayValue?.contains { $0["id"] == "seen:a" } == true, "\(seen)")
            #expect(try host.publishedEvents(of: "fixture.isolated").map(\.name) == ["note-added"])

            // Timers on the virtual clock: scheduled from the child, fired by the host into the child,
            // whose handler writes and schedules a notification.
            let reminded = try await host.call("fixture.isolated", "remind", input: ["in": 3600, "text": "stretch"], as: user)
            #expect(reminded["pending"] == 1)
            let firings = try await host.advanceClock(by: 2 * 3600)
            #expect(firings.contains { $0.timer.name == "reminder" && $0.outcome == .delivered }, "\(firings)")
            let after = try await host.call("fixture.isolated", "notes", input: [:], as: user)
            #expect(after.arrayValue?.first { $0["id"] == "fired:remind:3600.0" }?["at"] == "2026-03-02T09:00:00Z", "\(after)")
            await host.settle()
            #expect(try host.inbox().contains { $0.title == "Reminder" })
            await host.stop()
        }
    }

    @Test(arguments: [("segfault", "SIGSEGV"), ("abort", "SIGABRT"), ("fatal", "SIG")])
    func eachCrashKindAnswersTheCallInFlightAndThePluginRestarts(kind: String, signal: String) async throws {
        let ws = try await workspace("isolation-crash-\(kind)")
        let host = try await host(ws)
        let first = try await childPID(host)
        let crash = await callError(host, "fixture.isolated", "crash", ["kind": .string(kind)])
        #expect(crash?.code == .pluginCrashed, "\(String(describing: crash))")
        #expect(crash?.message.contains(signal) == true, "\(String(describing: crash))")
        // The host and the plugin in its process serve on.
        #expect(try await host.call("fixture.good", "hello", input: [:], as: user)["hello"] == "world")
        // Until the backoff (1 s on the host's clock) has passed, the plugin says when it restarts.
        let waiting = await callError(host, "fixture.isolated", "pid", [:])
        #expect(waiting?.code == .unavailable && waiting?.message.contains("restarts at") == true, "\(String(describing: waiting))")
        _ = try await host.advanceClock(by: 1)
        let second = try await childPID(host)
        #expect(second != first)
        await host.stop()
    }

    /// What the edge calls (``PluginHost/answer(_:_:json:as:)``): a process-tier plugin's answer
    /// comes as the text its child sent, checked but never read into a tree and written out again;
    /// one in the host's process answers with its value. Either reads as ``PluginHost/call`` does.
    @Test func aProcessTierAnswerReachesTheEdgeAsTheTextTheChildSent() async throws {
        let ws = try await workspace("isolation-answer-text")
        let host = try await host(ws)
        try await withCleanup({ await host.stop() }) {
            let input: JSONValue = ["title": "mléko \"2 l\"", "amounts": [1, 2.5, -3], "nested": ["ok": true, "none": nil]]
            let json = Array(input.serialized().utf8)
            let answer = try await host.answer("fixture.isolated", "echo", json: json, as: user)
            guard case .text(let text) = answer else { Issue.record("not answered as text: \(answer)"); return }
            // The child's serialisation of what it returned, as it came: the same value the host's
            // call reads, and the same bytes the child writes for it.
            #expect(try JSONValue(parsing: text) == input)
            #expect(try await host.call("fixture.isolated", "echo", json: json, as: user) == input)
            #expect(answer.value == input)

            let inProcess = try await host.answer("fixture.good", "hello", json: Array(#"{"name":"ada"}"#.utf8), as: admin)
            guard case .value(let value) = inProcess else { Issue.record("an in-process plugin answered as text"); return }
            #expect(value == (try await host.call("fixture.good", "hello", input: ["name": "ada"], as: admin)))
        }
    }

    @Test func aCrashLoopQuarantinesThePluginUntilTheOperatorRestartsIt() async throws {
        let ws = try await workspace("isolation-quarantine")
        let host = try await host(ws, policy: IsolationPolicy(quarantineAfter: 3, crashWindow: 600))
        for i in 1...3 {
            let crash = await callError(host, "fixture.isolated", "crash", ["kind": "abort"])
            #expect(crash?.code == .pluginCrashed)
            if i < 3 { _ = try await host.advanceClock(by: 60) }
        }
        let status = try #require(host.status(of: "fixture.isolated"))
        #expect(status.state == .quarantined)
        #expect(status.reason?.contains("3 crashes") == true, "\(status.reason ?? "")")
        #expect(status.json["state"] == "quarantined")
        // No restart however long one waits; the others keep serving.
        _ = try await host.advanceClock(by: 3600)
        let refused = await callError(host, "fixture.isolated", "pid", [:])
        #expect(refused?.code == .unavailable && refused?.message.contains("quarantined") == true, "\(String(describing: refused))")
        #expect(try await host.call("fixture.good", "hello", input: [:], as: user)["hello"] == "world")
        // The operator's restart lifts it.
        try await host.restartIsolated("fixture.isolated")
        #expect(host.status(of: "fixture.isolated")?.state == .active)
        #expect(try await childPID(host) != getpid())
        await host.stop()
    }

    @Test func aRunawayCallHitsItsDeadlineAndTheChildIsKilled() async throws {
        let ws = try await workspace("isolation-deadline")
        let host = try await host(ws)
        let first = try await childPID(host)
        let outcome = Mutex<PluginError??>(nil)
        let spinning = Task {
            let error = await callError(host, "fixture.isolated", "spin", [:])
            outcome.withLock { $0 = .some(error) }
        }
        // The deadline (5 s, the operation's timeoutSeconds) is on the host's virtual clock: move it
        // until the call is answered.
        while outcome.withLock({ $0 }) == nil {
            _ = try await host.advanceClock(by: 1)
            await Task.yield()
        }
        await spinning.value
        let error = try #require(outcome.withLock { $0 } ?? nil)
        #expect(error.code == .pluginTimeout, "\(error)")
        #expect(error.message.contains("5 s"))
        // Killed: the process is gone, and a new one serves after the backoff.
        _ = try await host.advanceClock(by: 2)
        let second = try await childPID(host)
        #expect(second != first)
        #expect(kill(first, 0) == -1)
        await host.stop()
    }

    @Test func otherPluginsKeepServingWhileOneCrashesRepeatedly() async throws {
        let ws = try await workspace("isolation-neighbours")
        let host = try await host(ws, policy: IsolationPolicy(quarantineAfter: 100))
        let crashing = Task {
            var crashes = 0
            for _ in 0..<5 {
                if await callError(host, "fixture.isolated", "crash", ["kind": "segfault"])?.code == .pluginCrashed { crashes += 1 }
                _ = try await host.advanceClock(by: 120)
            }
            return crashes
        }
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var failed = 0
                    for i in 0..<200 {
                        let reply = try? await host.call("fixture.good", "hello", input: ["name": .string("n\(i)")], as: user)
                        if reply?["hello"] != .string("n\(i)") { failed += 1 }
                    }
                    return failed
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(try await crashing.value == 5)
        #expect(failures == 0)
        await host.stop()
    }

    /// The example plugin's own scenario (Tests/TesseraExampleTests: notes, a reminder on its due
    /// time, its notification, the daily job) on its shipped library, in each tier: the same
    /// answers, whichever process runs the code.
    @Test(arguments: ["inProcess", "process"])
    func theExamplePluginsScenarioGivesTheSameAnswersInEitherTier(tier: String) async throws {
        let ws = FixtureWorkspace("isolation-example-\(tier)")
        ws.addExampleManifest()
        ws.writeDeployment(plugins: [entry("dev.tessera.example", grants: ["storage": [:] as [String: Any], "clock": [:] as [String: Any],
                                                                         "notifications": [:] as [String: Any]],
                                           extra: ["isolation": tier])])
        let host = try await host(ws)
        let id = "dev.tessera.example"
        #expect(host.status(of: id)?.state == .active, "\(host.status(of: id)?.history ?? [])")
        #expect((host.isolatedProcessID(id) != nil) == (tier == "process"))

        let saved = try await host.call(id, "add-note", input: ["text": "buy milk"], as: user)
        #expect(saved["at"] == "2026-03-02T08:00:00Z")
        _ = try await host.advanceClock(by: 60)
        _ = try await host.call(id, "add-note", input: ["text": "call mum"], as: user)
        let list = try await host.call(id, "list-notes", input: [:], as: user)
        #expect(list["notes"]?.arrayValue?.compactMap { $0["text"]?.stringValue } == ["call mum", "buy milk"])
        let refused = await callError(host, id, "add-note", ["text": ""])
        #expect(refused?.code == .invalidInput)

        _ = try await host.call(id, "remind", input: ["text": "stretch", "in": "2h"], as: user)
        let firings = try await host.advanceClock(by: 3 * 3600)
        let reminder = try #require(firings.first { $0.timer.name == "reminder" })
        #expect(reminder.outcome == .delivered)
        let reminders = try await host.call(id, "list-reminders", input: [:], as: user)
        #expect(reminders["reminders"]?.arrayValue?.first?["firedAt"] == "2026-03-02T10:01:00Z")
        #expect(try host.inbox().map(\.title) == ["stretch"])

        let days = try await host.advanceClock(by: 2 * 86_400)
        #expect(days.filter { $0.timer.name == "daily-summary" && $0.outcome == .delivered }.count == 2)
        let summaries = try await host.call(id, "summaries", input: [:], as: user)
        #expect(summaries.arrayValue?.compactMap { $0["note_count"]?.integerValue } == [2, 2])
        await host.stop()
    }
}
