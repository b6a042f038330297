import Foundation
import Synchronization
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// Hot swap (DESIGN §8): a new build takes over a running plugin without a failed or lost call,
/// carrying its in-memory state; any failure on the way rolls back to the running generation.
@Suite struct HotSwapTests {
    /// These tests are about what a swap carries, not its time bound: on a loaded machine (the
    /// whole suite runs in parallel on two cores) a call in flight may take longer than the 5 s
    /// default, and the swap would then rightly roll back.
    static let patientDrain: Duration = .seconds(120)

    func counterWorkspace(_ name: String) async throws -> FixtureWorkspace {
        let ws = FixtureWorkspace(name)
        let library = try await PluginBuilder.library(.counterA)
        ws.addManifest(id: "fixture.counter", library: library) { m in
            m["operations"] = [["name": "count", "input": ["type": "object"] as [String: Any], "output": ["type": "object"] as [String: Any]]]
            m["hotSwap"] = true
            m["state"] = ["schema": 1]
        }
        ws.writeDeployment(plugins: [entry("fixture.counter", grants: [:])])
        return ws
    }

    @Test(.hangWatchdog) func twentySwapsUnderEightCallersLoseNoCallAndKeepTheCount() async throws {
        let ws = try await counterWorkspace("swap-concurrent")
        let builds = [try await PluginBuilder.library(.counterB), try await PluginBuilder.library(.counterA)]
        let host = try await startHost(ws)
        #expect(host.status(of: "fixture.counter")?.state == .active)
        let callsPerCaller = 120
        let swapping = Task {
            var reports: [SwapReport] = []
            for i in 0..<20 {
                reports.append(try await host.swap("fixture.counter", to: .library(builds[i % 2]), drainTimeout: Self.patientDrain))
                await Task.yield()
            }
            return reports
        }
        let results = try await withThrowingTaskGroup(of: [JSONValue].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var replies: [JSONValue] = []
                    for _ in 0..<callsPerCaller { replies.append(try await host.call("fixture.counter", "count", input: [:], as: user)) }
                    return replies
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let reports = try await swapping.value
        #expect(reports.map(\.generation) == Array(2...21))
        #expect(reports.allSatisfy { $0.stateBytes > 0 })
        // Every call was served once, by one generation: the counter values are exactly 1…n.
        let counts = results.compactMap { $0["count"]?.integerValue }
        #expect(counts.count == 8 * callsPerCaller)
        #expect(Set(counts) == Set(1...Int64(8 * callsPerCaller)))
        let servedBy = Set(results.compactMap { $0["build"]?.stringValue })
        #expect(servedBy.isSubset(of: ["A", "B"]))
        let last = try await host.call("fixture.counter", "count", input: [:], as: user)
        #expect(last["count"] == .integer(Int64(8 * callsPerCaller + 1)))
        #expect(last["build"] == "A", "the twentieth swap went back to build A")
        let status = try #require(host.status(of: "fixture.counter"))
        #expect(status.generation == 21)
        #expect(status.retiredGenerations == 20)
        // Twenty retired generations are two libraries, and one of them (A) serves again: only B's
        // mapping is retired code, counted once.
        let sizeB = try #require(try FileManager.default.attributesOfItem(atPath: builds[0])[.size] as? Int)
        #expect(status.retiredBytes == sizeB)
        await host.stop()
    }

    // MARK: Rollback

    @Test(arguments: [
        (PluginBuilder.Kind.staticSDK, "gate 1"),  // embeds its own SDK: the link lint refuses it
        (PluginBuilder.Kind.noEntry, "tessera_plugin_entry"),  // no entry symbol after dlopen
        (PluginBuilder.Kind.good, "gate 3"),  // another plugin's id at the handshake
    ])
    func aBuildThatFailsAGateIsRefusedAndTheRunningOneServes(kind: PluginBuilder.Kind, expected: String) async throws {
        let ws = try await counterWorkspace("swap-gate-\(kind.rawValue)")
        let host = try await startHost(ws)
        _ = try await host.call("fixture.counter", "count", input: [:], as: user)
        do {
            _ = try await host.swap("fixture.counter", to: .library(try await PluginBuilder.library(kind)))
            Issue.record("the swap to \(kind) was accepted")
        } catch let error as PluginError {
            #expect(error.message.contains(expected), "\(error)")
            #expect(error.message.contains("keeps serving"))
        }
        #expect(try await host.call("fixture.counter", "count", input: [:], as: user) == ["count": 2, "build": "A"])
        #expect(host.status(of: "fixture.counter")?.generation == 1)
        await host.stop()
    }

    /// An in-process plugin with a build letter and a counter in memory; it can be told to fail
    /// at start or at state import.
    final class Swappable: Plugin {
        enum Failure { case none, start, importState }
        let build: String
        let failure: Failure
        let count = Mutex<Int64>(0)
        init(_ build: String, failing failure: Failure = .none) { self.build = build; self.failure = failure }
        func start(context: PluginContext) async throws {
            if failure == .start { throw PluginError(.unavailable, "build \(build) will not start") }
            context.onOperation("count") { [self] _ in
                ["count": .integer(count.withLock { c in c += 1; return c }), "build": .string(build)]
            }
        }
        func exportState() async throws -> PluginState? { try PluginState(schema: 1, encoding: count.withLock { $0 }) }
        func importState(_ state: PluginState) async throws {
            if failure == .importState { throw PluginError(.invalidInput, "build \(build) cannot read the state") }
            let value = try state.decode(as: Int64.self)
            count.withLock { $0 = value }
        }
    }

    func swappableHost(_ name: String, hotSwap: Bool = true) async throws -> (PluginHost, FixtureWorkspace) {
        let ws = FixtureWorkspace(name)
        ws.addManifest(id: "test.swappable", library: ws.root + "/none.so") { m in
            m["operations"] = [["name": "count", "input": ["type": "object"] as [String: Any], "output": ["type": "object"] as [String: Any]]]
            m["hotSwap"] = hotSwap
            m["state"] = ["schema": 1]
        }
        Fixtures.write("not a shared library", to: ws.root + "/garbage.so")
        ws.writeDeployment(plugins: [entry("test.swappable", grants: [:])])
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(
            dataDirectory: ws.dataDirectory, inProcessPlugins: ["test.swappable": PluginFactory { Swappable("A") }]))
        await host.start()
        return (host, ws)
    }

    func swapError(_ host: PluginHost, _ source: SwapSource) async -> PluginError? {
        do { _ = try await host.swap("test.swappable", to: source); return nil } catch { return error }
    }

    @Test func aFailingStartImportOrGateRollsBackAndTheOldGenerationServes() async throws {
        let (host, ws) = try await swappableHost("swap-rollback")
        _ = try await host.call("test.swappable", "count", input: [:], as: user)

        let start = await swapError(host, .inProcess(PluginFactory { Swappable("B", failing: .start) }))
        #expect(start?.code == .conflict)
        #expect(start?.message.contains("did not start") == true)
        #expect(start?.message.contains("build B will not start") == true)

        let state = await swapError(host, .inProcess(PluginFactory { Swappable("C", failing: .importState) }))
        #expect(state?.code == .conflict)
        #expect(state?.message.contains("state import failed") == true)

        let gate = await swapError(host, .library(ws.root + "/garbage.so"))
        #expect(gate?.code == .unprocessable)
        #expect(gate?.message.contains("gate 1") == true)

        let reply = try await host.call("test.swappable", "count", input: [:], as: user)
        #expect(reply == ["count": 2, "build": "A"], "the first generation kept serving, with its count")
        #expect(host.status(of: "test.swappable")?.generation == 1)

        let report = try await host.swap("test.swappable", to: .inProcess(PluginFactory { Swappable("D") }))
        #expect(report.generation == 2)
        #expect(try await host.call("test.swappable", "count", input: [:], as: user) == ["count": 3, "build": "D"])
        await host.stop()
    }

    @Test func aPluginWhoseManifestForbidsHotSwapIsNotSwapped() async throws {
        let (host, _) = try await swappableHost("swap-forbidden", hotSwap: false)
        let error = await swapError(host, .inProcess(PluginFactory { Swappable("B") }))
        #expect(error?.code == .forbidden)
        #expect(error?.message.contains("hotSwap") == true)
        await host.stop()
    }

    // MARK: Deliveries across a swap

    final class Pinger: Plugin {
        func start(context: PluginContext) async throws {
            let events = try context.capability(.events)
            context.onOperation("ping") { call in try await events.publish("pinged", call.input); return [:] }
        }
    }

    /// Records every event it handles, whichever generation it is.
    final class Listener: Plugin {
        let seen: EventsTests.Recorder
        init(_ seen: EventsTests.Recorder) { self.seen = seen }
        func start(context: PluginContext) async throws {
            context.onEvent("test.pinger/pinged") { [seen] event in
                await Task.yield()
                try seen.handle(event)
            }
        }
    }

    @Test(.hangWatchdog) func eventsDeliveredDuringSwapsArriveExactlyOnceInOrder() async throws {
        let ws = FixtureWorkspace("swap-events")
        let anyOp: [String: Any] = ["type": "object"]
        ws.addManifest(id: "test.pinger", library: ws.root + "/none.so") { m in
            m["requires"] = [["capability": "events", "version": "^1.0"]]
            m["operations"] = [["name": "ping", "input": anyOp, "output": anyOp]]
            m["events"] = ["emits": [["name": "pinged"]]]
        }
        ws.addManifest(id: "test.listener", library: ws.root + "/none.so") { m in
            m["operations"] = [] as [Any]
            m["events"] = ["consumes": ["test.pinger/pinged"]]
            m["hotSwap"] = true
        }
        ws.writeDeployment(plugins: [entry("test.pinger", grants: ["events": [:] as [String: Any]]), entry("test.listener", grants: [:])])
        let seen = EventsTests.Recorder()
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(
            dataDirectory: ws.dataDirectory,
            inProcessPlugins: ["test.pinger": PluginFactory { Pinger() }, "test.listener": PluginFactory { Listener(seen) }]))
        await host.start()
        let swaps = Task {
            for _ in 0..<10 {
                _ = try await host.swap("test.listener", to: .inProcess(PluginFactory { Listener(seen) }), drainTimeout: Self.patientDrain)
                await Task.yield()
            }
        }
        for i in 0..<200 { _ = try await host.call("test.pinger", "ping", input: ["i": .integer(Int64(i))], as: user) }
        try await swaps.value
        await host.settle()
        #expect(seen.sequences == Array(1...200))
        #expect(seen.received.withLock { $0.map { $0.payload["i"]?.integerValue ?? -1 } } == Array(0..<200))
        #expect(host.status(of: "test.listener")?.generation == 11)
        await host.stop()
    }

    @Test(.hangWatchdog) func notificationsFallingDueDuringSwapsAreDeliveredOnce() async throws {
        let suite = NotificationsTests()
        let ws = suite.workspace("swap-notifications", hotSwap: true)
        let host = try await suite.host(ws)
        for i in 0..<50 { try await suite.remind(host, "r\(i)", at: 60 * Double(i + 1)) }
        let swaps = Task {
            for _ in 0..<10 {
                _ = try await host.swap("test.remind", to: .inProcess(PluginFactory { NotificationsTests.Reminder() }), drainTimeout: Self.patientDrain)
            }
        }
        for _ in 0..<60 { _ = try await host.advanceClock(by: 60) }
        try await swaps.value
        let keys = try host.inbox(limit: 1000).map(\.key)
        #expect(keys.count == 50)
        #expect(Set(keys) == Set((0..<50).map { "r\($0)" }))
        #expect(host.status(of: "test.remind")?.generation == 11)
        await host.stop()
    }
}
