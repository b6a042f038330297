import Foundation
import Synchronization
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraSQLite
import TesseraTestFixtures

/// Events between plugins: emitted with a write or published alone, handed to every subscriber
/// at least once in publish order, retried with backoff when a subscriber throws, and kept for a
/// subscriber that is not running.
@Suite struct EventsTests {
    /// Records what it receives; throws for the first `failures` events it sees.
    final class Recorder: Sendable {
        let received = Mutex<[PublishedEvent]>([])
        let failuresLeft: Mutex<Int>
        init(failures: Int = 0) { failuresLeft = Mutex(failures) }
        func handle(_ event: PublishedEvent) throws {
            let fail = failuresLeft.withLock { left -> Bool in
                if left > 0 { left -= 1; return true }
                return false
            }
            if fail { throw PluginError(.unavailable, "not now") }
            received.withLock { $0.append(event) }
        }
        var sequences: [Int64] { received.withLock { $0.map(\.sequence) } }
    }

    /// `add` writes a note and emits `added` in the same batch; `ping` publishes `pinged` alone;
    /// `bad` emits an event its manifest does not declare.
    final class Publisher: Plugin {
        var migrations: [StorageMigration] { [StorageMigration(version: 1, sql: "CREATE TABLE notes (id TEXT PRIMARY KEY, text TEXT)")] }
        func start(context: PluginContext) async throws {
            let storage = try context.capability(.storage)
            let events = try context.capability(.events)
            context.onOperation("add") { call in
                let id = call.input["id"]?.stringValue ?? ""
                try await storage.write {
                    $0.put("notes", id: id, ["text": .text(id)])
                    $0.emit("added", ["id": .string(id)])
                }
                return [:]
            }
            context.onOperation("ping") { _ in try await events.publish("pinged", [:]); return [:] }
            context.onOperation("bad") { _ in
                try await storage.write { $0.put("notes", id: "x", [:]); $0.emit("undeclared", [:]) }
                return [:]
            }
        }
    }

    final class Subscriber: Plugin {
        let recorder: Recorder
        init(_ recorder: Recorder) { self.recorder = recorder }
        func start(context: PluginContext) async throws {
            context.onEvent("test.pub/added") { [recorder] in try recorder.handle($0) }
            context.onEvent("test.pub/pinged") { [recorder] in try recorder.handle($0) }
        }
    }

    func workspace(_ name: String) -> FixtureWorkspace {
        let ws = FixtureWorkspace(name)
        let anyOp: [String: Any] = ["type": "object"]
        ws.addManifest(id: "test.pub", library: ws.root + "/none.so") { m in
            m["requires"] = [["capability": "storage", "version": "^1.0"], ["capability": "events", "version": "^1.0"]]
            m["operations"] = ["add", "ping", "bad"].map { ["name": $0, "input": anyOp, "output": anyOp] }
            m["events"] = ["emits": [["name": "added"], ["name": "pinged"]]]
        }
        for id in ["test.sub", "test.flaky"] {
            ws.addManifest(id: id, library: ws.root + "/none.so") { m in
                m["requires"] = [] as [Any]
                m["operations"] = [] as [Any]
                m["events"] = ["consumes": ["test.pub/added", "test.pub/pinged"]]
            }
        }
        ws.writeDeployment(plugins: [
            entry("test.pub", grants: ["storage": [:] as [String: Any], "events": [:] as [String: Any]]),
            entry("test.sub", grants: [:]), entry("test.flaky", grants: [:]),
        ])
        return ws
    }

    func host(_ ws: FixtureWorkspace, _ plugins: [String: PluginFactory], only: Set<String>? = nil) async throws -> PluginHost {
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(
            dataDirectory: ws.dataDirectory, onlyPlugins: only, inProcessPlugins: plugins))
        await host.start()
        return host
    }

    @Test func everySubscriberGetsEveryEventInOrderAndAFailingOneIsRetriedAlone() async throws {
        let ws = workspace("events-order")
        let steady = Recorder(), flaky = Recorder(failures: 2)
        let host = try await host(ws, [
            "test.pub": PluginFactory { Publisher() }, "test.sub": PluginFactory { Subscriber(steady) },
            "test.flaky": PluginFactory { Subscriber(flaky) },
        ])
        for i in 1...5 { _ = try await host.call("test.pub", "add", input: ["id": .string("n\(i)")], as: user) }
        _ = try await host.call("test.pub", "ping", input: [:], as: user)
        await host.settle()
        #expect(steady.sequences == [1, 2, 3, 4, 5, 6])
        #expect(steady.received.withLock { $0.map(\.name) } == ["added", "added", "added", "added", "added", "pinged"])
        #expect(steady.received.withLock { $0.first?.payload["id"] } == "n1")
        // The flaky subscriber failed on #1 and holds back its later events, keeping the order.
        #expect(flaky.sequences.isEmpty)
        let failing = try #require(try host.eventDeliveries().first { $0.subscription.subscriber == "test.flaky" })
        #expect(failing.cursor.attempts == 1)
        #expect(failing.cursor.lastError?.contains("not now") == true)
        #expect(failing.behind == 6)
        // Backoff on the host's clock: 1 s, then 2 s.
        _ = try await host.advanceClock(by: 1)
        await host.settle()
        #expect(flaky.sequences.isEmpty)
        _ = try await host.advanceClock(by: 2)
        await host.settle()
        #expect(flaky.sequences == [1, 2, 3, 4, 5, 6])
        #expect(steady.sequences == [1, 2, 3, 4, 5, 6], "the other subscriber got nothing twice")
        await host.stop()
    }

    @Test func anEventWaitsForASubscriberThatIsNotRunning() async throws {
        let ws = workspace("events-offline")
        let first = try await host(ws, ["test.pub": PluginFactory { Publisher() }], only: ["test.pub"])
        for i in 1...3 { _ = try await first.call("test.pub", "add", input: ["id": .string("n\(i)")], as: user) }
        await first.settle()
        await first.stop()

        let recorder = Recorder()
        let second = try await host(ws, ["test.pub": PluginFactory { Publisher() }, "test.sub": PluginFactory { Subscriber(recorder) }],
                                    only: ["test.pub", "test.sub"])
        await second.settle()
        #expect(recorder.sequences == [1, 2, 3])
        await second.stop()
    }

    @Test func anUndeclaredEventIsRefusedAndNothingOfTheBatchIsWritten() async throws {
        let ws = workspace("events-undeclared")
        let host = try await host(ws, ["test.pub": PluginFactory { Publisher() }], only: ["test.pub"])
        let error = await callError(host, "test.pub", "bad", [:])
        #expect(error?.code == .forbidden)
        #expect(error?.message.contains("'undeclared'") == true)
        let db = try SQLiteConnection(path: host.storagePath("test.pub"), mode: .readOnly)
        #expect(try db.fetchOne("SELECT COUNT(*) FROM notes")?.first == .integer(0))
        #expect(try db.fetchOne("SELECT COUNT(*) FROM _tessera_outbox")?.first == .integer(0))
        await host.stop()
    }
}
