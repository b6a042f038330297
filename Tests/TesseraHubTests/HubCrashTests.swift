import Foundation
import Glibc
import Synchronization
import Testing
import TesseraSDK
import TesseraSQLite
import TesseraSync
import TesseraHubFixtures
import TesseraTestFixtures

/// `kill -9` of a hub process mid-sync: every push it acknowledged is still there after a restart,
/// and sync resumes (pushing everything again is safe: idempotent).
@Suite("Hub crash safety", .hangWatchdog)
struct HubCrashTests {
    /// `tessera serve` on the hub deployment of `ws`, as its own process; returns it and its port.
    static func serve(_ ws: FixtureWorkspace, environment: [String: String]? = nil) async throws -> (ChildProcess, Int) {
        let process = try ChildProcess(Fixtures.tesseraExecutable, ["serve", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory, "--port", "0"],
                                       environment: environment)
        let text = await process.output(until: "Ctrl-C to stop")
        guard let port = text.firstMatch(of: /127\.0\.0\.1:(\d+)\//).flatMap({ Int($0.1) }) else {
            throw Failure("the hub did not start: \(text)")
        }
        return (process, port)
    }

    @Test("acknowledged pushes survive kill -9 of the hub; sync resumes after the restart")
    func killNine() async throws {
        let ws = FixtureWorkspace("hub-crash")
        ws.writeDeployment(plugins: [], extra: ["role": "hub"])  // a virtual clock at 2026-03-02T08:00:00Z
        // The operator adds Ada with one password, then sets another (as for a forgotten one).
        let added = try await runDetached(Fixtures.tesseraExecutable, ["hub", "person", "add", "ada", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory],
                                          input: "first password\n")
        #expect(added.status == 0, "\(added.stderr)")
        let reset = try await runDetached(Fixtures.tesseraExecutable, ["hub", "person", "password", "ada", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory],
                                          input: "correct horse battery\n")
        #expect(reset.status == 0 && reset.stdout.contains("set ada's password; 0 devices signed out"), "\(reset.stdout)\(reset.stderr)")
        var (process, port) = try await Self.serve(ws)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let login = try await HubClient(port: port).request("POST", "/v1/hub/login",
                                                            json: #"{"name":"ada","password":"correct horse battery","device":"phone"}"#)
        let token = try #require(login.json?["token"]?.stringValue)
        // The operator lists people while the hub serves.
        let listed = try await runDetached(Fixtures.tesseraExecutable, ["hub", "person", "list", "--json", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory])
        #expect(listed.stdout.contains(#""devices":1"#) && listed.stdout.contains(#""name":"ada""#), "\(listed.stdout)\(listed.stderr)")
        let (log, batches) = try Self.deviceLog(at: ws.root + "/device.sqlite", node: 0xD1)
        // Two batches acknowledged; the third is in flight when the hub is killed.
        var acknowledged: Set<ChangeID> = []
        for batch in batches.prefix(2) {
            let answer = try await Self.push(batch, port: port, token: token)
            #expect(answer.status == 200 && answer.json?["accepted"]?.integerValue == Int64(batch.count))
            acknowledged.formUnion(batch.map(\.id))
        }
        let third = batches[2], firstPort = port
        let inFlight = Task { [third, firstPort, token] in _ = try? await Self.push(third, port: firstPort, token: token) }
        kill(process.processIdentifier, SIGKILL)
        _ = await process.exitStatus()
        _ = await inFlight.value
        // Restarted on the same files: what was acknowledged is there.
        (process, port) = try await Self.serve(ws)
        let held = try await Self.pullAll(port: port, token: token)
        #expect(acknowledged.isSubset(of: Set(held.map(\.id))))
        // The device resumes: pushing everything again stores only what was missing.
        var stored: Int64 = 0
        for batch in batches {
            let answer = try await Self.push(batch, port: port, token: token)
            #expect(answer.status == 200 && answer.json?["rejected"]?.arrayValue?.isEmpty == true)
            stored += answer.json?["stored"]?.integerValue ?? 0
        }
        #expect(stored == Int64(log.count - held.count))
        let all = try await Self.pullAll(port: port, token: token)
        #expect(Set(all.map(\.id)) == Set(log.map(\.id)) && all.count == log.count)
        await process.terminateAndWait()
    }

    /// Issue 46: `tessera backup` of a hub (SQLite) while a device pushes, then `tessera restore`:
    /// every push acknowledged before the backup began is served by a hub on the restored data,
    /// to the same device token.
    @Test("a hub backed up while a device pushes restores every push acknowledged before the backup")
    func backupUnderLoad() async throws {
        let ws = FixtureWorkspace("hub-backup")
        ws.writeDeployment(plugins: [], extra: ["role": "hub"])
        let added = try await runDetached(Fixtures.tesseraExecutable, ["hub", "person", "add", "ada", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory],
                                          input: "correct horse battery\n")
        #expect(added.status == 0, "\(added.stderr)")
        let (process, port) = try await Self.serve(ws)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let login = try await HubClient(port: port).request("POST", "/v1/hub/login",
                                                            json: #"{"name":"ada","password":"correct horse battery","device":"phone"}"#)
        let token = try #require(login.json?["token"]?.stringValue)
        let (_, batches) = try Self.deviceLog(at: ws.root + "/device.sqlite", node: 0xD2, notes: 2000)
        let acknowledged = Mutex<Set<ChangeID>>([])
        // Stopped by a flag, not by cancelling the task: a push waits on its socket in a thread of
        // its own (RawHTTPClient), which cancelling the task neither interrupts nor ends the loop.
        let stopWriting = Mutex(false)
        let writer = Task {
            for batch in batches where !stopWriting.withLock({ $0 }) {
                guard let answer = try? await Self.push(batch, port: port, token: token), answer.status == 200 else { continue }
                acknowledged.withLock { $0.formUnion(batch.map(\.id)) }
            }
        }
        // Some pushes in, then the backup while the writer goes on.
        while acknowledged.withLock({ $0.count }) < 100 { await Task.yield() }
        let before = acknowledged.withLock { $0 }
        let archive = ws.root + "/hub.tar"
        let backup = try await runDetached(Fixtures.tesseraExecutable, ["backup", "--to", archive, "--deployment", ws.deploymentFile, "--data", ws.dataDirectory])
        #expect(backup.status == 0, "\(backup.stderr)")
        let duringBackup = acknowledged.withLock { $0.count } - before.count  // pushes the hub took while the backup ran
        stopWriting.withLock { $0 = true }
        _ = await writer.value
        await process.terminateAndWait()

        let restored = ws.root + "/restored"
        let restore = try await runDetached(Fixtures.tesseraExecutable, ["restore", archive, "--deployment", ws.deploymentFile, "--data", restored])
        #expect(restore.status == 0, "\(restore.stderr)")
        let again = try ChildProcess(Fixtures.tesseraExecutable, ["serve", "--deployment", ws.deploymentFile, "--data", restored, "--port", "0"])
        defer { if again.isRunning { kill(again.processIdentifier, SIGKILL) } }
        let text = await again.output(until: "Ctrl-C to stop")
        let againPort = try #require(text.firstMatch(of: /127\.0\.0\.1:(\d+)\//).flatMap { Int($0.1) }, "\(text)")
        let held = Set(try await Self.pullAll(port: againPort, token: token).map(\.id))
        #expect(before.isSubset(of: held), "lost \(before.subtracting(held).count) of \(before.count) pushes acknowledged before the backup (\(duringBackup) more were taken while it ran)")
        await again.terminateAndWait()
    }

    @Test("two hub processes on one PostgreSQL database: one is killed -9 mid-push, the other has every acknowledged change and the device resumes through it", .needs("initdb", "pg_ctl"))
    func replicaKilled() async throws {
        let server = try await PostgresTestServer.shared()
        let database = try await server.createDatabase()
        // The password reaches the hub through the variable the deployment names, never the file.
        let environment = ProcessInfo.processInfo.environment.merging(["TESSERA_TEST_HUB_PASSWORD": server.password]) { $1 }
        let store: [String: Any] = ["kind": "postgresql", "host": server.host, "port": server.port, "user": server.user,
                                    "database": database, "passwordEnv": "TESSERA_TEST_HUB_PASSWORD", "tls": "disable"]
        let (first, second) = (FixtureWorkspace("hub-pg-a"), FixtureWorkspace("hub-pg-b"))
        for ws in [first, second] {
            ws.writeDeployment(plugins: [], extra: ["role": "hub", "providers": [
                "storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"], "hubStore": store]])
        }
        let added = try await runDetached(Fixtures.tesseraExecutable, ["hub", "person", "add", "ada", "--deployment", first.deploymentFile,
                                                                       "--data", first.dataDirectory],
                                          input: "correct horse battery\n", environment: environment)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(!FileManager.default.fileExists(atPath: first.dataDirectory + "/hub.sqlite"))
        let (replicaA, portA) = try await Self.serve(first, environment: environment)
        let (replicaB, portB) = try await Self.serve(second, environment: environment)
        defer { for process in [replicaA, replicaB] where process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Ada, added through the first's deployment, logs in on the second.
        let login = try await HubClient(port: portB).request("POST", "/v1/hub/login",
                                                             json: #"{"name":"ada","password":"correct horse battery","device":"phone"}"#)
        let token = try #require(login.json?["token"]?.stringValue)
        let (log, batches) = try Self.deviceLog(at: first.root + "/device.sqlite", node: 0xD2)
        // Two batches acknowledged by replica A; the third in flight to A when A is killed.
        var acknowledged: Set<ChangeID> = []
        for batch in batches.prefix(2) {
            let answer = try await Self.push(batch, port: portA, token: token)
            #expect(answer.status == 200 && answer.json?["stored"]?.integerValue == Int64(batch.count))
            acknowledged.formUnion(batch.map(\.id))
        }
        let third = batches[2]
        let inFlight = Task { [third, token] in _ = try? await Self.push(third, port: portA, token: token) }
        kill(replicaA.processIdentifier, SIGKILL)
        _ = await replicaA.exitStatus()
        _ = await inFlight.value
        // Replica B holds everything A acknowledged, and the device resumes through B.
        let held = try await Self.pullAll(port: portB, token: token)
        #expect(acknowledged.isSubset(of: Set(held.map(\.id))))
        var stored: Int64 = 0
        for batch in batches {
            let answer = try await Self.push(batch, port: portB, token: token)
            #expect(answer.status == 200 && answer.json?["rejected"]?.arrayValue?.isEmpty == true)
            stored += answer.json?["stored"]?.integerValue ?? 0
        }
        #expect(stored == Int64(log.count - held.count))
        let all = try await Self.pullAll(port: portB, token: token)
        #expect(Set(all.map(\.id)) == Set(log.map(\.id)) && all.count == log.count)
        await replicaB.terminateAndWait()
    }

    @Test("a hub that cannot use its PostgreSQL store says why at once: a wrong password, a server that is not there", .needs("initdb", "pg_ctl"))
    func postgresRefusalsAreClear() async throws {
        let server = try await PostgresTestServer.shared()
        let database = try await server.createDatabase()
        let ws = FixtureWorkspace("hub-pg-refused")
        for (port, password, expected) in [(server.port, "not-the-password", "password authentication failed"),
                                           (try freeLoopbackPort(), server.password, "Connection refused")] {
            ws.writeDeployment(plugins: [], extra: ["role": "hub", "providers": ["clock": ["kind": "system"], "hubStore": [
                "kind": "postgresql", "host": server.host, "port": port, "user": server.user, "database": database, "tls": "disable"]]])
            let result = try await runDetached(Fixtures.tesseraExecutable, ["hub", "person", "add", "ada", "--deployment", ws.deploymentFile],
                                               input: "correct horse battery\n",
                                               environment: ProcessInfo.processInfo.environment.merging(["PGPASSWORD": password]) { $1 })
            #expect(result.status != 0)
            #expect(result.stderr.contains(expected), "\(result.stderr)")
            #expect(!result.stderr.contains(password), "the password is never printed")
        }
    }

    /// A device on a clock at the hubs' virtual time, with 60 notes in its log: the log, and the
    /// log in batches of 20.
    static func deviceLog(at path: String, node: UInt64, notes: Int = 60) throws -> ([SyncChange], [[SyncChange]]) {
        let database = try SQLiteDatabase(path: path)
        try database.withConnection { try $0.execute("CREATE TABLE notes(id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '')") }
        let device = try SyncStore(database: database, tables: [SyncedTable("notes")], node: HLCNode(node), now: TestClock().now)
        for i in 0..<notes { try device.write([.put(table: "notes", id: "n\(i)", values: ["title": .text("note \(i)")])], in: "personal") }
        let log = try device.changes(in: "personal")
        return (log, stride(from: 0, to: log.count, by: 20).map { Array(log[$0..<min($0 + 20, log.count)]) })
    }

    static func push(_ changes: [SyncChange], port: Int, token: String) async throws -> HubResponse {
        try await HubClient(port: port).request("POST", "/v1/hub/sync/\(DeviceReplica.plugin)/push", token: token,
                                                body: SyncWire.encode(changes), contentType: "application/x-tessera-sync")
    }

    static func pullAll(port: Int, token: String) async throws -> [SyncChange] {
        var cursor: Int64 = 0
        var changes: [SyncChange] = []
        while true {
            let page = try await HubClient(port: port).request("GET", "/v1/hub/sync/\(DeviceReplica.plugin)/pull?after=\(cursor)&limit=25", token: token)
            guard page.status == 200 else { throw Failure("pull: \(page.status)") }
            changes += try SyncWire.decode(page.body)
            cursor = Int64(page.header("Tessera-Sync-Cursor") ?? "") ?? cursor
            if page.header("Tessera-Sync-More") != "true" { return changes }
        }
    }
}
