import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TesseraHTTP
import TesseraHub
import TesseraHubPostgres
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraSQLite
import TesseraSync
import TesseraSystem

/// `cells` cell changes from device A through a real hub to device B, over HTTP on loopback
/// (docs/hub.md): A writes `cells / 5` new rows of 5 columns in its personal space, pushes its log
/// in batches of 10,000 changes, and B pulls pages of 10,000 and applies each. Devices and hub are
/// files with the host's settings (WAL, `synchronous=FULL`). Ends with equal merkle roots on A, B
/// and the hub; then times the in-sync check when nothing changed. With `database`, the hub keeps
/// its store there (PostgreSQL) instead of `hub.sqlite`.
func hubBenchmark(cells: Int, scratch: String, database: (any HubDatabase)? = nil) async throws -> HubBenchmarkResult {
    precondition(cells % 5 == 0 && cells > 0)
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    let deploymentFile = scratch + "/hub.json"
    try Data(#"{"name": "bench-hub", "role": "hub", "manifestDirectories": [], "providers": {"clock": {"kind": "system"}}, "plugins": []}"#.utf8)
        .write(to: URL(fileURLWithPath: deploymentFile))
    let data = scratch + "/hub-data"
    let host = try PluginHost(deployment: DeploymentReader.read(file: deploymentFile), options: HostOptions(dataDirectory: data))
    await host.start()
    let hub = if let database { try await HubStore(database: database, now: { Date() }) }
              else { try await HubStore(dataDirectory: data, now: { Date() }) }
    let server = HTTPServer(host: host, tokens: TokenStore(dataDirectory: data),
                            configuration: HTTPConfiguration(port: 0, maxBodyBytes: 16 << 20, rateLimit: nil), hub: hub)
    let port = try await server.start()
    server.markReady()
    return try await withCleanup({ await server.stop(); await host.stop() }) {
        // A new person each run: a PostgreSQL store outlives the run.
        let person = "bench-" + UUID().uuidString.prefix(8).lowercased()
        _ = try await hub.createPerson(name: person, password: "bench-password")
        let tokenA = try await hub.login(name: person, password: "bench-password", deviceName: "a").token
        let tokenB = try await hub.login(name: person, password: "bench-password", deviceName: "b").token
        let a = try benchDevice(scratch + "/device-a.sqlite", node: 0xA)
        let b = try benchDevice(scratch + "/device-b.sqlite", node: 0xB)
        try writeRows(a, rows: cells / 5)
        let client = BenchHTTPClient(port: port)
        let plugin = "dev.tessera.bench"
        var result = HubBenchmarkResult(cells: cells)

        let push = try await timeAsync {
            var since: HLCTimestamp?
            while true {
                let read = try await timeAsync { () async throws -> ([SyncChange], [UInt8]) in
                    let page = try a.changes(in: "personal", since: since, limit: 10_000)
                    return (page, SyncWire.encode(page))
                }
                result.deviceReadSeconds += read.seconds
                let (page, body) = read.value
                guard let last = page.last else { break }
                result.pushedBytes += body.count
                result.changes += page.count
                let (status, _, _) = try await client.send("POST", "/v1/hub/sync/\(plugin)/push", token: tokenA, body: body,
                                                            contentType: "application/x-tessera-sync")
                guard status == 200 else { throw PluginError(.internal, "push answered \(status)") }
                since = last.timestamp
            }
        }
        result.pushSeconds = push.seconds
        let pull = try await timeAsync {
            var cursor: Int64 = 0
            while true {
                let (status, headers, body) = try await client.send("GET", "/v1/hub/sync/\(plugin)/pull?after=\(cursor)&limit=10000&maxBytes=16000000",
                                                                    token: tokenB)
                guard status == 200 else { throw PluginError(.internal, "pull answered \(status)") }
                result.pulledBytes += body.count
                let apply = try await timeAsync {
                    let changes = try SyncWire.decode(body)
                    if !changes.isEmpty { try b.applyRemote(changes) }
                }
                result.deviceApplySeconds += apply.seconds
                cursor = Int64(headers["Tessera-Sync-Cursor"] ?? "") ?? cursor
                if headers["Tessera-Sync-More"] != "true" { break }
            }
        }
        result.pullSeconds = pull.seconds
        let root = try a.merkle(for: "personal").rootHash
        guard try b.merkle(for: "personal").rootHash == root else { throw PluginError(.internal, "B's merkle root differs from A's") }
        // The in-sync check when nothing changed: one round trip with the root.
        var checks: [Double] = []
        for _ in 0..<200 {
            let check = try await timeAsync {
                let (status, _, body) = try await client.send("POST", "/v1/hub/sync/\(plugin)/check", token: tokenB,
                                                              body: Array(#"{"spaces":{"personal":{"root":\#(root)}}}"#.utf8), contentType: "application/json")
                guard status == 200, String(decoding: body, as: UTF8.self).contains("in_sync") else { throw PluginError(.internal, "check: \(status)") }
            }
            checks.append(check.seconds * 1e9)  // the harness reports nanoseconds
        }
        result.check = Summary(checks)
        return result
    }
}

struct HubBenchmarkResult {
    let cells: Int
    var changes = 0
    var pushedBytes = 0
    var pulledBytes = 0
    var pushSeconds = 0.0
    var pullSeconds = 0.0
    /// Of the push, A reading its log and encoding; of the pull, B decoding and applying.
    var deviceReadSeconds = 0.0
    var deviceApplySeconds = 0.0
    var check = Summary([])
}

private func timeAsync<T>(_ body: () async throws -> T) async throws -> (value: T, seconds: Double) {
    let start = ContinuousClock.now
    let value = try await body()
    let elapsed = ContinuousClock.now - start
    return (value, elapsed.timeInterval)
}

/// A device's store for the hub benchmarks: a new SQLite file with the host's settings and one
/// synced table, `entries`. `hub-load` opens a thousand of them, with small statement caches.
func benchDevice(_ path: String, node: UInt64, statementCacheCapacity: Int = 256,
                 now: @escaping @Sendable () -> Date = { Date() }) throws -> SyncStore {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let database = try SQLiteDatabase(path: path, statementCacheCapacity: statementCacheCapacity)
    try database.withConnection {
        try $0.execute("CREATE TABLE entries(id TEXT PRIMARY KEY, kind TEXT, at TEXT, amount REAL, note TEXT, author TEXT)")
    }
    return try SyncStore(database: database, tables: [SyncedTable("entries", keepConflicts: ["note"])], node: HLCNode(node), now: now)
}

private func writeRows(_ store: SyncStore, rows: Int) throws {
    var random = SplitMix64(seed: 7)
    let kinds = ["bottle", "nap", "diaper", "temperature", "note"]
    let ids = SyncBenchmarkRowIDs.current.make(rows, random: &random)
    for start in stride(from: 0, to: rows, by: 500) {
        var batch: [RecordChange] = []
        for i in start..<min(start + 500, rows) {
            var values: [String: SQLValue] = [:]
            values["kind"] = .text(kinds[i % kinds.count])
            values["at"] = .text(String(format: "2026-03-02T%02d:%02d:00Z", (i % 1440) / 60, i % 60))
            values["amount"] = .real(Double(60 + random.below(120)))
            values["note"] = .text(i % 3 == 0 ? "a bit fussy after" : "")
            values["author"] = .text("mum")
            batch.append(.put(table: "entries", id: ids[i], values: values))
        }
        try store.write(batch, in: "personal")
    }
}

/// The database `tessera-bench hub-postgresql` uses: `TESSERA_BENCH_POSTGRES=host:port/database`,
/// the user from `PGUSER` (default `tessera`), the password from `PGPASSWORD`.
func benchPostgresDatabase() throws -> PostgresHubDatabase {
    let environment = ProcessInfo.processInfo.environment
    guard let target = environment["TESSERA_BENCH_POSTGRES"], let slash = target.firstIndex(of: "/"),
          let colon = target[..<slash].lastIndex(of: ":"), let port = Int(target[target.index(after: colon)..<slash]) else {
        throw PluginError(.invalidInput, "set TESSERA_BENCH_POSTGRES=host:port/database (an empty database; PGUSER, PGPASSWORD)")
    }
    return PostgresHubDatabase(host: String(target[..<colon]), port: port, user: environment["PGUSER"] ?? "tessera",
                               password: environment["PGPASSWORD"], database: String(target[target.index(after: slash)...]), tls: .disable)
}
