import Foundation
import Synchronization
import TesseraHubPostgres
import TesseraSDK
import TesseraSQLite
import TesseraSync

/// `tessera-bench hub-load`: many devices syncing through real hubs (issue 48).
///
/// People have 1–3 devices each (seeded). Every device keeps its own SQLite file, as a device
/// host does, and talks to a hub over HTTP on loopback. The hubs are `tessera serve` processes
/// of this build with a hub deployment: one on its embedded SQLite store, and one or two replicas
/// over one PostgreSQL database (a real server this benchmark starts, `PostgresTestServer`). A
/// person's devices are spread over the replicas in turn.
///
/// One turn of a person: each of their devices in turn writes one new row (5 cell changes) in
/// the person's space and pushes it; then each of the person's other devices pulls until it has
/// that row. People take their turns at once, as many at every size (at most ``peopleAtOnce``, and
/// no more than the smallest size has), so a size's latency is measured at the same offered load
/// as the others' and the ratio between sizes is the growth with devices; the devices' clock is
/// virtual (a second further each round), so nothing waits on the wall clock but the work.
///
/// Measured per hub set and size: changes per second through the hubs; the push-to-pull latency
/// (from the start of the push to the end of the pull that brought the row to a sibling); the hub
/// processes' CPU per change (and PostgreSQL's, from `/proc`). Beside them, in the same run, bare
/// PostgreSQL: the same rows inserted into a plain table, in transactions of one push's rows.
struct HubLoadRow {
    let hubs: String
    let devices: Int
    let people: Int
    /// How many of them took their turns at once.
    let atOnce: Int
    let changes: Int
    let seconds: Double
    /// Push start → a sibling's pull that brought the row, in nanoseconds.
    let latency: Summary
    /// The same less the devices' own work in it (decoding and applying what they pulled): the
    /// hub's part, and HTTP's, of the latency.
    let hubLatency: Summary
    let hubCPUPerChange: Double
    let postgresCPUPerChange: Double?
    /// CPU per change of this process: the devices (their SQLite files, their HTTP clients).
    let devicesCPUPerChange: Double

    var changesPerSecond: Double { Double(changes) / seconds }
    /// The cores the hubs, PostgreSQL and the devices kept busy on average: on a machine whose cores
    /// are all busy, another replica has no CPU to add.
    var coresInUse: Double {
        (hubCPUPerChange + (postgresCPUPerChange ?? 0) + devicesCPUPerChange) * Double(changes) / seconds / 1e9
    }
}

/// The most people who take their turns at once.
let peopleAtOnce = 8

/// The devices of one person, with their hub tokens and stores.
final class LoadPerson: Sendable {
    let name: String
    let devices: [LoadDevice]
    init(name: String, devices: [LoadDevice]) { self.name = name; self.devices = devices }
}

final class LoadDevice: Sendable {
    let token: String
    let hub: BenchHTTPClient
    let store: SyncStore
    /// The last cursor this device pulled to.
    let cursor = Mutex<Int64>(0)
    init(token: String, hub: BenchHTTPClient, store: SyncStore) { self.token = token; self.hub = hub; self.store = store }
}

/// The virtual clock of the devices: a second further each round.
final class LoadClock: Sendable {
    private let time = Mutex(Date(timeIntervalSince1970: 1_772_438_400))
    var now: @Sendable () -> Date { { [self] in time.withLock { $0 } } }
    func advance() { time.withLock { $0 = $0.addingTimeInterval(1) } }
}

/// Makes the people of the largest size (devices per person 1–3, seeded), each a hub account, and
/// each device logged in on a hub of `hubs` in turn.
func makeLoadPeople(devices: Int, hubs: HubProcesses, scratch: String, clock: LoadClock) async throws -> [LoadPerson] {
    var random = SplitMix64(seed: 48)
    var counts: [Int] = []
    while counts.reduce(0, +) < devices { counts.append(Int.random(in: 1...3, using: &random)) }
    // (person, device of the person, device number), the replicas taken in turn.
    let logins = counts.enumerated().flatMap { person, count in (0..<count).map { (person, $0) } }.enumerated().map { ($0.offset, $0.element.0, $0.element.1) }
    let password = "load-bench-password"
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    // Hashing passwords (yescrypt) is the slow part: two at a time, one per core.
    try await forEachAtOnce(Array(counts.indices), limit: 2) { person in
        let (status, _, body) = try await hubs.clients[0].send("POST", "/v1/hub/people", token: hubs.adminToken,
                                                               body: Array(#"{"name":"load-\#(person)","password":"\#(password)"}"#.utf8),
                                                               contentType: "application/json")
        guard status == 201 else { throw BenchError("creating load-\(person): \(status) \(String(decoding: body, as: UTF8.self))") }
    }
    progress("hub-load, \(hubs.name): \(counts.count) people made; logging in \(logins.count) devices")
    let tokens = Mutex<[Int: String]>([:])
    try await forEachAtOnce(logins, limit: 2) { (number, person, device) in
        let (status, _, body) = try await hubs.clients[number % hubs.clients.count].send(
            "POST", "/v1/hub/login", body: Array(#"{"name":"load-\#(person)","password":"\#(password)","device":"device \#(device)"}"#.utf8),
            contentType: "application/json")
        guard status == 201, let token = try JSONValue(parsing: body)["token"]?.stringValue else { throw BenchError("login of load-\(person): \(status)") }
        let done = tokens.withLock { $0[number] = token; return $0.count }
        if done % 200 == 0 { progress("hub-load, \(hubs.name): \(done) of \(logins.count) devices logged in") }
    }
    let devicesByNumber = try logins.map { (number, _, _) in
        LoadDevice(token: tokens.withLock { $0[number]! }, hub: hubs.clients[number % hubs.clients.count],
                   store: try benchDevice(scratch + "/d\(number).sqlite", node: UInt64(number + 1), statementCacheCapacity: 32, now: clock.now))
    }
    return counts.indices.map { person in
        LoadPerson(name: "load-\(person)", devices: logins.filter { $0.1 == person }.map { devicesByNumber[$0.0] })
    }
}

/// One set of hubs: the people of the largest size made, then each size run in turn, on the same
/// people (the first ones whose devices make up the size); the hubs are stopped however it ends.
func hubLoadRuns(hubs: HubProcesses, sizes: [Int], largest: Int, scratch: String) async throws -> [HubLoadRow] {
    defer { hubs.stop() }
    let clock = LoadClock()
    let people = try await makeLoadPeople(devices: largest, hubs: hubs, scratch: scratch, clock: clock)
    func group(of size: Int) -> [LoadPerson] {
        var taken = 0
        return Array(people.prefix { person in defer { taken += person.devices.count }; return taken < size })
    }
    // The smallest size's people all at once, and as many at the larger sizes: with 8 at once
    // there, against the 7 people of 11 devices, the step from the smallest size to the next was
    // the offered load's, not the devices' (docs/benchmarks.md, "A hub under many devices").
    let atOnce = min(peopleAtOnce, sizes.first.map { group(of: $0).count } ?? peopleAtOnce)
    var rows: [HubLoadRow] = []
    for size in sizes {
        let group = group(of: size)
        let devices = group.reduce(0) { $0 + $1.devices.count }
        progress("hub-load, \(hubs.name): \(devices) devices, \(atOnce) people at once")
        // About 2,000 pushes at every size: many rounds of a few devices, a few of many.
        rows.append(try await hubLoadRun(label: "n\(size)", people: group, rounds: max(2, 2_000 / devices), atOnce: atOnce,
                                         hubs: hubs, clock: clock))
    }
    return rows
}

/// Runs `rounds` rounds of the people's turns and measures them.
/// `label` keeps the rows of one run apart from another's on the same people.
func hubLoadRun(label: String, people: [LoadPerson], rounds: Int, atOnce: Int, hubs: HubProcesses, clock: LoadClock) async throws -> HubLoadRow {
    let latencies = Mutex<[(all: Double, hub: Double)]>([])
    let changes = Mutex(0)
    let hubCPU = hubs.cpuNanoseconds(), postgresCPU = hubs.postgresCPUNanoseconds(), devicesCPU = processCPUSeconds()
    let start = monotonicNanoseconds()
    for round in 0..<rounds {
        clock.advance()
        try await forEachAtOnce(people, limit: atOnce) { person in
            for (index, writer) in person.devices.enumerated() {
                let row = "\(label)-r\(round)-\(index)-" + person.name
                let written = try writer.store.write([.put(table: "entries", id: row, values: loadRowValues(round: round))], in: "personal")
                let pushed = monotonicNanoseconds()
                let (status, _, body) = try await writer.hub.send("POST", "/v1/hub/sync/\(loadPlugin)/push", token: writer.token,
                                                                  body: SyncWire.encode(written), contentType: "application/x-tessera-sync")
                guard status == 200 else { throw BenchError("push: \(status) \(String(decoding: body, as: UTF8.self))") }
                changes.withLock { $0 += written.count }
                var onDevices: UInt64 = 0
                for sibling in person.devices where sibling !== writer {
                    onDevices += try await pullUntil(sibling, has: row)
                    let latency = Double(monotonicNanoseconds() - pushed)
                    latencies.withLock { $0.append((latency, latency - Double(onDevices))) }
                }
            }
        }
    }
    let seconds = Double(monotonicNanoseconds() - start) / 1e9
    let total = changes.withLock { $0 }
    let postgres = hubs.postgresCPUNanoseconds().map { $0 - (postgresCPU ?? 0) }
    return HubLoadRow(hubs: hubs.name, devices: people.reduce(0) { $0 + $1.devices.count }, people: people.count, atOnce: atOnce, changes: total,
                      seconds: seconds, latency: Summary(latencies.withLock { $0.map(\.all) }),
                      hubLatency: Summary(latencies.withLock { $0.map(\.hub) }),
                      hubCPUPerChange: (hubs.cpuNanoseconds() - hubCPU) / Double(total),
                      postgresCPUPerChange: postgres.map { $0 / Double(total) },
                      devicesCPUPerChange: (processCPUSeconds() - devicesCPU) * 1e9 / Double(total))
}

let loadPlugin = "dev.tessera.bench"

/// Pulls (pages of up to 1,000) and applies until `row` is on the device; returns the nanoseconds
/// the device spent decoding and applying.
private func pullUntil(_ device: LoadDevice, has row: String) async throws -> UInt64 {
    var onDevice: UInt64 = 0
    for _ in 0..<100 {
        let after = device.cursor.withLock { $0 }
        let (status, headers, body) = try await device.hub.send("GET", "/v1/hub/sync/\(loadPlugin)/pull?after=\(after)&limit=1000", token: device.token)
        guard status == 200 else { throw BenchError("pull: \(status)") }
        let applying = monotonicNanoseconds()
        let changes = try SyncWire.decode(body)
        if !changes.isEmpty { _ = try device.store.applyRemote(changes) }
        onDevice += monotonicNanoseconds() - applying
        if let cursor = Int64(headers["Tessera-Sync-Cursor"] ?? "") { device.cursor.withLock { $0 = cursor } }
        if changes.contains(where: { $0.row == row }) { return onDevice }
    }
    throw BenchError("row \(row) never reached a sibling device")
}

private func loadRowValues(round: Int) -> [String: SQLValue] {
    ["kind": .text(["bottle", "nap", "diaper"][round % 3]), "at": .text(String(format: "2026-03-02T08:%02d:00Z", round % 60)),
     "amount": .real(Double(60 + round % 120)), "note": .text(round % 3 == 0 ? "a bit fussy after" : ""), "author": .text("mum")]
}

/// Runs `body` for each item, at most `limit` at once.
func forEachAtOnce<T: Sendable>(_ items: [T], limit: Int, _ body: @escaping @Sendable (T) async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var next = 0
        for item in items.prefix(limit) { group.addTask { try await body(item) }; next += 1 }
        while try await group.next() != nil {
            if next < items.count {
                let item = items[next]
                group.addTask { try await body(item) }
                next += 1
            }
        }
    }
}

/// Bare PostgreSQL, the anchor: `rows` rows like the hub's changes inserted into a plain table,
/// `perTransaction` to a transaction, `atOnce` transactions at a time.
func barePostgresInserts(database: PostgresHubDatabase, rows: Int, perTransaction: Int, atOnce: Int) async throws -> Double {
    try await database.transaction { sql in
        _ = try await sql.execute("""
            CREATE TABLE IF NOT EXISTS bench_bare_changes(seq BIGSERIAL PRIMARY KEY, space TEXT NOT NULL, tbl TEXT NOT NULL,
              row_id TEXT NOT NULL, col TEXT, value BYTEA, hlc TEXT NOT NULL)
            """, [])
    }
    let batches = Array(0..<(rows / perTransaction))
    let start = monotonicNanoseconds()
    try await forEachAtOnce(batches, limit: atOnce) { batch in
        try await database.transaction { sql in
            for i in 0..<perTransaction {
                _ = try await sql.execute("INSERT INTO bench_bare_changes(space, tbl, row_id, col, value, hlc) VALUES (?, ?, ?, ?, ?, ?)",
                                          [.text("personal:load-\(batch % 500)"), .text("entries"), .text("r\(batch)"), .text("c\(i)"),
                                           .blob(Array("a bit fussy after".utf8)), .text(String(format: "%016llx", UInt64(batch * perTransaction + i)))])
            }
        }
    }
    return Double(batches.count * perTransaction) / (Double(monotonicNanoseconds() - start) / 1e9)
}
