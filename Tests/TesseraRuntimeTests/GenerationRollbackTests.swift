import Foundation
import Synchronization
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraSQLite
import TesseraTestFixtures

/// A swap that fails at any step of the generation pipeline (stage, gates, context, standby start,
/// drain, commit, start after a schema change, state import) leaves the serving generation exactly
/// as it was: its database (schema, migrations, rows), its write rules (the events it may emit),
/// its job timers and its location subscription. A successful swap, last, changes each of them,
/// so every assertion here can fail.
@Suite struct GenerationRollbackTests {
    /// A notebook: `save` writes a note and emits `saved` in the same batch; `emit` writes a note
    /// emitting the named event; `fixes` counts the location fixes it was handed; `block` waits
    /// until the test lets it go (a call in flight that outlasts a swap's drain).
    final class Notebook: Plugin {
        enum Failure { case none, start, importState }
        let build: String
        let failure: Failure
        let schema: [StorageMigration]
        let fixes = Mutex(0)
        let gate: Gate?
        init(_ build: String, schema: [StorageMigration] = Notebook.v1, failing failure: Failure = .none, gate: Gate? = nil) {
            self.build = build
            self.schema = schema
            self.failure = failure
            self.gate = gate
        }
        static let v1 = [StorageMigration(version: 1, sql: "CREATE TABLE notes (id TEXT PRIMARY KEY, text TEXT)")]
        static let v2 = v1 + [StorageMigration(version: 2, sql: "ALTER TABLE notes ADD COLUMN tag TEXT")]
        static let v2Failing = v1 + [StorageMigration(version: 2, sql: "CREATE TABLE notes (id TEXT PRIMARY KEY)")]
        static let v1Edited = [StorageMigration(version: 1, sql: "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT)")]

        var migrations: [StorageMigration] { schema }

        func start(context: PluginContext) async throws {
            if failure == .start { throw PluginError(.unavailable, "build \(build) will not start") }
            let storage = try context.capability(.storage)
            let build = self.build
            context.onOperation("save") { call in
                let id = call.input["id"]?.stringValue ?? ""
                try await storage.write { $0.put("notes", id: id, ["text": .text(id)]); $0.emit("saved", ["id": .string(id)]) }
                return ["build": .string(build)]
            }
            context.onOperation("emit") { call in
                let name = call.input["name"]?.stringValue ?? ""
                try await storage.write { $0.put("notes", id: "emit-\(name)", ["text": .text(name)]); $0.emit(name, [:]) }
                return ["build": .string(build)]
            }
            context.onOperation("fixes") { [self] _ in ["count": .integer(Int64(fixes.withLock { $0 })), "build": .string(build)] }
            context.onOperation("block") { [gate] _ in
                await gate?.wait()
                return [:]
            }
            context.onLocationFix { [self] _ in fixes.withLock { $0 += 1 } }
        }

        func exportState() async throws -> PluginState? { try PluginState(schema: 1, encoding: fixes.withLock { $0 }) }
        func importState(_ state: PluginState) async throws {
            if failure == .importState { throw PluginError(.invalidInput, "build \(build) cannot read the state") }
            let count = try state.decode(as: Int.self)
            fixes.withLock { $0 = count }
        }
    }

    /// Holds a call until opened.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>], entered: Int)>((false, [], 0))
        func wait() async {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let open = state.withLock { s -> Bool in
                    s.entered += 1
                    if !s.open { s.waiters.append(c) }
                    return s.open
                }
                if open { c.resume() }
            }
        }
        var entered: Int { state.withLock { $0.entered } }
        func open() {
            let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                s.open = true
                defer { s.waiters = [] }
                return s.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    static let id = "test.notebook"

    /// The manifest of build A, or of the next build (one more event, one more job), which a swap
    /// reads from disk.
    func writeManifest(_ ws: FixtureWorkspace, next: Bool) {
        let anyOp: [String: Any] = ["type": "object"]
        ws.addManifest(id: Self.id, library: ws.root + "/none.so") { m in
            m["requires"] = ["storage", "events", "location", "clock"].map { ["capability": $0, "version": "^1.0"] }
            m["operations"] = ["save", "emit", "fixes", "block"].map { ["name": $0, "input": anyOp, "output": anyOp] }
            m["events"] = ["emits": (next ? ["saved", "archived"] : ["saved"]).map { ["name": $0] }]
            m["jobs"] = (next ? ["tidy", "digest"] : ["tidy"]).map { ["name": $0, "every": "1h"] }
            m["state"] = ["schema": 1]
            m["hotSwap"] = true
        }
    }

    func startNotebook(_ name: String, gate: Gate? = nil) async throws -> (PluginHost, FixtureWorkspace) {
        let ws = FixtureWorkspace(name)
        writeManifest(ws, next: false)
        Fixtures.write("not a shared library", to: ws.root + "/garbage.so")
        let grants: [String: Any] = ["storage": [:] as [String: Any], "events": [:] as [String: Any],
                                     "location": [:] as [String: Any], "clock": [:] as [String: Any]]
        ws.writeDeployment(plugins: [entry(Self.id, grants: grants)])
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(
            dataDirectory: ws.dataDirectory, inProcessPlugins: [Self.id: PluginFactory { Notebook("A", gate: gate) }]))
        await host.start()
        #expect(host.status(of: Self.id)?.state == .active)
        _ = try await host.call(Self.id, "save", input: ["id": "n1"], as: user)
        _ = await host.ingestLocation([fix(1)])
        // The next build's manifest is on disk from now on, as after a rebuild.
        writeManifest(ws, next: true)
        return (host, ws)
    }

    func fix(_ n: Int) -> LocationFix {
        LocationFix(latitude: 50.08, longitude: 14.42, accuracy: 5, timestamp: Date(timeIntervalSince1970: 1_767_225_600 + Double(n)),
                    deviceID: "phone")
    }

    /// What the serving generation's storage and registrations look like from outside: the
    /// database's schema, applied migrations and rows; the plugin's timers.
    struct Fingerprint: Equatable {
        var schema: [String]
        var migrations: [Int64]
        var notes: [String]
        var timers: [String]
    }

    func fingerprint(_ host: PluginHost, _ ws: FixtureWorkspace) throws -> Fingerprint {
        let db = try SQLiteConnection(path: host.storagePath(Self.id), mode: .readOnly)
        let timers = try SQLiteConnection(path: ws.dataDirectory + "/host.sqlite", mode: .readOnly)
        return Fingerprint(
            schema: try db.fetchAll("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").compactMap { $0[0].text },
            migrations: try db.fetchAll("SELECT version FROM _tessera_migrations ORDER BY version").compactMap { $0[0].integer },
            notes: try db.fetchAll("SELECT id FROM notes ORDER BY id").compactMap { $0[0].text },
            timers: try timers.fetchAll("SELECT key FROM timers WHERE plugin = ? ORDER BY key", [.text(Self.id)]).compactMap { $0[0].text })
    }

    /// The old generation serves as before: same build, same storage, still refuses the event only
    /// the next build declares, still gets location fixes.
    func expectServingAsBefore(_ host: PluginHost, _ ws: FixtureWorkspace, _ before: Fingerprint, after step: String,
                               fixes: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try fingerprint(host, ws) == before, "storage or timers changed by the rollback after \(step)", sourceLocation: sourceLocation)
        #expect(host.status(of: Self.id)?.generation == 1, sourceLocation: sourceLocation)
        let archived = await callError(host, Self.id, "emit", ["name": "archived"])
        #expect(archived != nil, "the old generation may emit an event only the next build declares (after \(step))", sourceLocation: sourceLocation)
        _ = await host.ingestLocation([fix(100 + fixes)])
        let counted = try await host.call(Self.id, "fixes", input: [:], as: user)
        #expect(counted == ["count": .integer(Int64(fixes + 1)), "build": "A"], "after \(step)", sourceLocation: sourceLocation)
    }

    func swapError(_ host: PluginHost, _ source: SwapSource, drainTimeout: Duration = .seconds(5)) async -> PluginError? {
        do { _ = try await host.swap(Self.id, to: source, drainTimeout: drainTimeout); return nil } catch { return error }
    }

    @Test func aRollbackAfterEachStepLeavesTheServingGenerationAsItWas() async throws {
        let (host, ws) = try await startNotebook("rollback-steps")
        let before = try fingerprint(host, ws)
        #expect(before.migrations == [1] && before.notes == ["n1"] && before.timers == ["job:tidy"])
        var fixes = 1
        let failures: [(step: String, source: SwapSource, expected: String)] = [
            ("stage", .library(ws.root + "/absent.so"), "absent.so"),
            ("gates", .library(ws.root + "/garbage.so"), "gate 1"),
            ("context", .inProcess(PluginFactory { Notebook("B", schema: Notebook.v1Edited) }), "migration 1 was already applied"),
            ("standby start", .inProcess(PluginFactory { Notebook("B", failing: .start) }), "build B will not start"),
            ("commit", .inProcess(PluginFactory { Notebook("B", schema: Notebook.v2Failing) }), "migration 2 failed"),
            ("start after the schema change", .inProcess(PluginFactory { Notebook("B", schema: Notebook.v2, failing: .start) }), "build B will not start"),
            ("state import", .inProcess(PluginFactory { Notebook("B", schema: Notebook.v2, failing: .importState) }), "state import failed"),
        ]
        for failure in failures {
            let error = await swapError(host, failure.source)
            #expect(error?.message.contains(failure.expected) == true, "\(failure.step): \(String(describing: error))")
            #expect(error?.message.contains("keeps serving") == true, "\(failure.step): \(String(describing: error))")
            try await expectServingAsBefore(host, ws, before, after: failure.step, fixes: fixes)
            fixes += 1
        }

        // The control: a swap that succeeds changes every one of those things.
        let report = try await host.swap(Self.id, to: .inProcess(PluginFactory { Notebook("C", schema: Notebook.v2) }))
        #expect(report.generation == 2)
        let after = try fingerprint(host, ws)
        #expect(after.migrations == [1, 2])
        #expect(after.schema != before.schema)
        #expect(after.timers == ["job:digest", "job:tidy"])
        #expect(try await host.call(Self.id, "emit", input: ["name": "archived"], as: user) == ["build": "C"])
        _ = await host.ingestLocation([fix(1000)])
        #expect(try await host.call(Self.id, "fixes", input: [:], as: user) == ["count": .integer(Int64(fixes + 1)), "build": "C"],
                "the new generation got the count across and the next fix")
        #expect(!FileManager.default.fileExists(atPath: host.storagePath(Self.id) + ".before-swap"), "the copy is removed once committed")
        await host.stop()
    }

    @Test func aDrainTimeoutRollsBackBeforeAnythingShared() async throws {
        let gate = Gate()
        let (host, ws) = try await startNotebook("rollback-drain", gate: gate)
        let before = try fingerprint(host, ws)
        let blocked = Task { try await host.call(Self.id, "block", input: [:], as: user) }
        while gate.entered == 0 { await Task.yield() }
        // A schema change too, so that the commit would migrate if it were (wrongly) reached.
        let error = await swapError(host, .inProcess(PluginFactory { Notebook("B", schema: Notebook.v2) }), drainTimeout: .milliseconds(50))
        #expect(error?.message.contains("did not finish within") == true, "\(String(describing: error))")
        gate.open()
        _ = try await blocked.value
        try await expectServingAsBefore(host, ws, before, after: "the drain timeout", fixes: 1)
        await host.stop()
    }
}
