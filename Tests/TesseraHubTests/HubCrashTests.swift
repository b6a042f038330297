import Foundation
import Glibc
import Testing
import TesseraSDK
import TesseraSQLite
import TesseraSync
import TesseraTestFixtures

/// `kill -9` of a hub process mid-sync: every push it acknowledged is still there after a restart,
/// and sync resumes (pushing everything again is safe: idempotent).
@Suite("Hub crash safety", .timeLimit(.minutes(2)))
struct HubCrashTests {
    /// `tessera serve` on the hub deployment of `ws`, as its own process; returns it and its port.
    static func serve(_ ws: FixtureWorkspace) throws -> (ChildProcess, Int) {
        let process = try ChildProcess(Fixtures.tesseraExecutable, ["serve", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory, "--port", "0"])
        let out = process.standardOutput!
        var text = ""
        while !text.contains("Ctrl-C to stop") {
            let chunk = out.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let port = text.firstMatch(of: /127\.0\.0\.1:(\d+)\//).flatMap({ Int($0.1) }) else {
            throw Failure("the hub did not start: \(text)")
        }
        return (process, port)
    }

    @Test("acknowledged pushes survive kill -9 of the hub; sync resumes after the restart")
    func killNine() async throws {
        let ws = FixtureWorkspace("hub-crash")
        ws.writeDeployment(plugins: [], extra: ["role": "hub"])  // a virtual clock at 2026-03-02T08:00:00Z
        let added = try run(Fixtures.tesseraExecutable, ["hub", "person", "add", "ada", "--deployment", ws.deploymentFile, "--data", ws.dataDirectory],
                            input: "correct horse battery\n")
        #expect(added.status == 0, "\(added.stderr)")
        var (process, port) = try Self.serve(ws)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let login = try await HubClient(port: port).request("POST", "/v1/hub/login",
                                                            json: #"{"name":"ada","password":"correct horse battery","device":"phone"}"#)
        let token = try #require(login.json?["token"]?.stringValue)
        // A device on a clock at the hub's virtual time, with 60 notes in its log.
        let database = try SQLiteDatabase(path: ws.root + "/device.sqlite")
        try database.withConnection { try $0.execute("CREATE TABLE notes(id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '')") }
        let device = try SyncStore(database: database, tables: [SyncedTable("notes")], node: HLCNode(0xD1), now: TestClock().now)
        for i in 0..<60 { try device.write([.put(table: "notes", id: "n\(i)", values: ["title": .text("note \(i)")])], in: "personal") }
        let log = try device.changes(in: "personal")
        let batches = stride(from: 0, to: log.count, by: 20).map { Array(log[$0..<min($0 + 20, log.count)]) }
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
        process.waitUntilExit()
        _ = await inFlight.value
        // Restarted on the same files: what was acknowledged is there.
        (process, port) = try Self.serve(ws)
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
        process.terminate()
        process.waitUntilExit()
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
