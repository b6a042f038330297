import CSQLite
import Foundation
import TesseraSDK
import TesseraSQLite
import TesseraSync
import TesseraSyncClient

/// 100,000 cell changes from one replica to another through the sync store, with no network:
/// device A writes, its log is read, encoded for the wire, decoded, and applied on device B.
///
/// Both replicas are files with the host's settings (WAL, `synchronous=FULL`), holding a
/// baby-diary-like table `entries(id, kind, at, amount, note, author)`, its ids made as the shipped
/// modules make them (``SyncBenchmarkRowIDs``). Two workloads, each on fresh databases every round:
/// - **inserts**: `cells / 5` new rows of 5 columns (puts in batches of 500 rows), so `cells` cell
///   changes plus one existence change per row;
/// - **patches**: then `cells` single-cell patches of random rows of those (batches of 500), the
///   worst case for the wire, since each record carries its row, timestamp and causal length for one cell.
/// The transfer streams: A's log is read in pages of 10,000 changes (what a device applies in one
/// transaction when it pulls a backlog), each encoded, decoded and applied on B in one transaction
/// before the next is read, so it holds one page at a time whatever the log's length (the peak
/// resident growth is reported beside the times). The wire size is given for the binary
/// ``SyncWire`` encoding and for JSON lines (one Actual-like message object per change) to compare.
/// Each round checks that A and B end with equal merkle roots and equal tables.
func syncBenchmark(cells: Int, rounds: Int, scratch: String) throws -> SyncBenchmarkResult {
    precondition(cells % 5 == 0 && cells > 0 && rounds > 0)
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    var result = SyncBenchmarkResult(cells: cells, rounds: rounds)
    for round in 0..<rounds {
        let a = try openReplica(scratch + "/a\(round).sqlite", node: 0xA)
        let b = try openReplica(scratch + "/b\(round).sqlite", node: 0xB)
        var random = SplitMix64(seed: UInt64(round) + 1)
        let ids = SyncBenchmarkRowIDs.current.make(cells / 5, random: &random)
        let inserts = try time { try writeInserts(a, ids: ids, random: &random) }
        result.add(.insertsWrite, inserts.seconds)
        try ProfilerWindow.around("inserts") { try transfer(from: a, to: b, phase: .inserts, since: nil, into: &result) }
        let mark = a.lastTimestamp
        let patches = try time { try writePatches(a, ids: ids, count: cells, random: &random) }
        result.add(.patchesWrite, patches.seconds)
        try ProfilerWindow.around("patches") { try transfer(from: a, to: b, phase: .patches, since: mark, into: &result) }
        try checkInSync(a, b)
        for name in ["a", "b"] {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: "\(scratch)/\(name)\(round).sqlite\(suffix)") }
        }
    }
    return result
}

/// The medians a run reports.
struct SyncBenchmarkResult {
    enum Phase: String, CaseIterable {
        case insertsWrite, insertsRead, insertsEncode, insertsJSON, insertsDecode, insertsApply
        case patchesWrite, patchesRead, patchesEncode, patchesJSON, patchesDecode, patchesApply
    }

    let cells: Int
    let rounds: Int
    private(set) var seconds: [Phase: [Double]] = [:]
    /// Per workload: (changes, cell changes, binary bytes, JSON-lines bytes), from the last round.
    var sizes: [String: (changes: Int, cells: Int, binary: Int, json: Int)] = [:]
    /// Per workload, per round: how far the peak resident memory rose above the resident figure at
    /// the start of the transfer, in bytes.
    var peakGrowth: [String: [Double]] = [:]
    /// Per workload, per round: the process's CPU time (user + system) over the transfer, less the
    /// JSON-lines encoding (a comparison, not part of it). On a shared machine it moves less than the
    /// wall-clock time, which also holds waits for the cores and the disk.
    var cpuSeconds: [String: [Double]] = [:]
    /// Per workload, from the last round: the rows the pages touched, each row counted once per
    /// page it appears in. Changes of one row in one page are merged into one write of its
    /// metadata and of the plugin's row, so rows per change says how much of that work a size has.
    var rowsTouched: [String: Int] = [:]

    init(cells: Int, rounds: Int) {
        self.cells = cells
        self.rounds = rounds
    }

    mutating func add(_ phase: Phase, _ value: Double) { seconds[phase, default: []].append(value) }

    func median(_ phase: Phase) -> Double { Summary(seconds[phase] ?? []).median }

    /// Read + encode + decode + apply: what one replica's changes cost to reach another.
    func transfer(_ workload: String) -> Double {
        let prefix = workload == "inserts" ? "inserts" : "patches"
        return ["Read", "Encode", "Decode", "Apply"].map { median(Phase(rawValue: prefix + $0)!) }.reduce(0, +)
    }
}

private let space = "child-1"

/// The changes one transfer page carries, and B applies in one transaction: as many as a device
/// applies at once when it pulls a backlog (``DeviceSync/defaultApplyBatch``, 10,000), or
/// `TESSERA_BENCH_SYNC_PAGE` (to see how the transaction's size moves the cost per change at large N).
let syncBenchmarkPageSize = ProcessInfo.processInfo.environment["TESSERA_BENCH_SYNC_PAGE"].flatMap { Int($0) }
    ?? DeviceSync.defaultApplyBatch

private let table = SyncedTable("entries", keepConflicts: ["note"])

/// An experiment, not the host's setting: `TESSERA_BENCH_SYNC_PAGE_BYTES` creates both replicas
/// (and the SQLite floors' files) with SQLite pages of that size instead of 4,096 bytes, to see
/// what a page costs a random patch once each change dirties pages of its own.
let syncBenchmarkPageBytes = ProcessInfo.processInfo.environment["TESSERA_BENCH_SYNC_PAGE_BYTES"].flatMap { Int($0) }

private func openReplica(_ path: String, node: UInt64) throws -> SyncStore {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    if let bytes = syncBenchmarkPageBytes {
        // The page size is fixed by the first write of a file; SQLiteConnection turns WAL on as it
        // opens, which writes, so the file is made here first.
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK,
              sqlite3_exec(db, "PRAGMA page_size=\(bytes); PRAGMA journal_mode=WAL; CREATE TABLE _bench_page_size(x)", nil, nil, nil) == SQLITE_OK
        else { throw PluginError(.internal, "cannot create \(path) with pages of \(bytes) bytes") }
        sqlite3_close_v2(db)
    }
    let database = try SQLiteDatabase(path: path, statementCacheCapacity: 256)
    try database.withConnection {
        try $0.execute("CREATE TABLE entries(id TEXT PRIMARY KEY, kind TEXT, at TEXT, amount REAL, note TEXT, author TEXT)")
        // Experiments, not the host's settings: TESSERA_BENCH_SYNC_CACHE_KIB sets SQLite's page
        // cache of both replicas (default 2,000 KiB), TESSERA_BENCH_SYNC_MMAP_MIB has SQLite read
        // them through a memory map of that size, to see how much of the per-change cost at large N
        // is page-cache misses and the copies of `pread`.
        if let kib = ProcessInfo.processInfo.environment["TESSERA_BENCH_SYNC_CACHE_KIB"].flatMap({ Int($0) }) {
            try $0.execute("PRAGMA cache_size=-\(kib)")
        }
        if let mib = ProcessInfo.processInfo.environment["TESSERA_BENCH_SYNC_MMAP_MIB"].flatMap({ Int($0) }) {
            _ = try $0.fetchOne("PRAGMA mmap_size=\(mib << 20)")
        }
    }
    return try SyncStore(database: database, tables: [table], node: HLCNode(node), now: { Date() })
}

private func writeInserts(_ store: SyncStore, ids: [String], random: inout SplitMix64) throws {
    let kinds = ["bottle", "nap", "diaper", "temperature", "note"]
    let notes = ["took it slowly", "fell asleep in the pram", "a bit fussy after", "", "37.9 at bedtime, calpol given"]
    let authors = ["mum", "dad", "grandma"]
    for start in stride(from: 0, to: ids.count, by: 500) {
        let batch: [RecordChange] = ids[start..<min(start + 500, ids.count)].enumerated().map { offset, id in
            let minute = (start + offset) % 1440
            return .put(table: "entries", id: id, values: [
                "kind": .text(kinds[random.below(kinds.count)]),
                "at": .text(String(format: "2026-03-02T%02d:%02d:00Z", minute / 60, minute % 60)),
                "amount": .real(Double(60 + random.below(120))),
                "note": .text(notes[random.below(notes.count)]),
                "author": .text(authors[random.below(authors.count)]),
            ])
        }
        try store.write(batch, in: space)
    }
}

private func writePatches(_ store: SyncStore, ids: [String], count: Int, random: inout SplitMix64) throws {
    for start in stride(from: 0, to: count, by: 500) {
        let batch: [RecordChange] = (start..<min(start + 500, count)).map { _ in
            .patch(table: "entries", id: ids[random.below(ids.count)], values: ["amount": .real(Double(random.below(250)))])
        }
        try store.write(batch, in: space)
    }
}

/// Streams A's changes since `since` to B a page at a time, as a device sends them: each page of
/// `pageSize` changes is read from A's log, encoded both ways, decoded and applied on B in one
/// transaction. Nothing holds more than a page, so memory is bounded by the page, not the log: the
/// peak resident growth over the transfer is recorded to show it.
private func transfer(from a: SyncStore, to b: SyncStore, phase: SyncBenchmarkResult.Phase.Prefix, since: HLCTimestamp?,
                      into result: inout SyncBenchmarkResult) throws {
    let pageSize = syncBenchmarkPageSize
    var seconds = (read: 0.0, encode: 0.0, json: 0.0, decode: 0.0, apply: 0.0)
    var sizes = (changes: 0, cells: 0, binary: 0, json: 0)
    let before = ResidentMemory.now()
    ResidentMemory.resetPeak()
    let cpuBefore = processCPUSeconds()
    var jsonCPU = 0.0
    var rowsTouched = 0
    var cursor = since
    while true {
        let read = try time { try a.changes(in: space, since: cursor, limit: pageSize) }
        guard let last = read.value.last?.timestamp else { break }
        let encoded = try time { SyncWire.encode(read.value) }
        let jsonCPUBefore = processCPUSeconds()
        let json = try time { jsonLines(read.value) }
        jsonCPU += processCPUSeconds() - jsonCPUBefore
        let decoded = try time { try SyncWire.decode(encoded.value) }
        precondition(decoded.value == read.value, "the wire encoding should round-trip")
        let applied = try time { try b.applyRemote(decoded.value) }
        seconds.read += read.seconds
        seconds.encode += encoded.seconds
        seconds.json += json.seconds
        seconds.decode += decoded.seconds
        seconds.apply += applied.seconds
        sizes.changes += read.value.count
        sizes.cells += read.value.filter { $0.value != nil }.count
        sizes.binary += encoded.value.count
        sizes.json += json.value.count
        rowsTouched += Set(read.value.map { $0.table + "\u{0}" + $0.row }).count
        cursor = last
    }
    let p = phase.rawValue
    result.cpuSeconds[p, default: []].append(processCPUSeconds() - cpuBefore - jsonCPU)
    result.add(.init(rawValue: p + "Read")!, seconds.read)
    result.add(.init(rawValue: p + "Encode")!, seconds.encode)
    result.add(.init(rawValue: p + "JSON")!, seconds.json)
    result.add(.init(rawValue: p + "Decode")!, seconds.decode)
    result.add(.init(rawValue: p + "Apply")!, seconds.apply)
    result.sizes[p] = sizes
    result.rowsTouched[p] = rowsTouched
    result.peakGrowth[p, default: []].append(Double(max(0, ResidentMemory.now().peak - before.current)))
}

extension SyncBenchmarkResult.Phase {
    enum Prefix: String { case inserts, patches }
}

/// One JSON object per line per change, Actual's message fields (timestamp text, dataset, row,
/// column, value) plus space and causal length: the plain alternative to the binary format.
private func jsonLines(_ changes: [SyncChange]) -> [UInt8] {
    var out: [UInt8] = []
    for change in changes {
        let object: JSONValue = .object([
            "ts": .string(change.timestamp.text), "space": .string(change.space), "table": .string(change.table),
            "row": .string(change.row), "column": .string(change.column), "cl": .integer(change.causalLength),
            "value": change.value?.jsonValue ?? .null,
        ])
        out.append(contentsOf: object.serialized().utf8)
        out.append(UInt8(ascii: "\n"))
    }
    return out
}

private func checkInSync(_ a: SyncStore, _ b: SyncStore) throws {
    let inSync = try a.merkle(for: space).diff(b.merkle(for: space)) == nil
    precondition(inSync, "A and B should be in sync")
    // Compared a page of rows at a time (a million rows whole would dwarf what the transfer holds).
    var after = ""
    while true {
        let page = { (store: SyncStore) in
            try store.database.withConnection { try $0.fetchAll("SELECT * FROM entries WHERE id > ? ORDER BY id LIMIT 10000", [.text(after)]) }
        }
        let rows = try page(a)
        let same = try rows == page(b)
        precondition(same, "A and B should hold the same rows")
        guard let last = rows.last?[0].text else { break }
        after = last
    }
}

private func time<T>(_ body: () throws -> T) throws -> (value: T, seconds: Double) {
    let start = monotonicNanoseconds()
    let value = try body()
    return (value, Double(monotonicNanoseconds() - start) / 1e9)
}

/// The row ids the sync benchmark and its SQLite anchors write: as the shipped modules make them
/// (``RecordID/timeOrdered(at:)``, one row a millisecond), or, with `TESSERA_BENCH_SYNC_IDS=random`,
/// random version 4 UUIDs as they made them before (an experiment: what the ids' order is worth).
enum SyncBenchmarkRowIDs: String {
    case timeOrdered = "time-ordered"
    case random

    static var current: SyncBenchmarkRowIDs {
        ProcessInfo.processInfo.environment["TESSERA_BENCH_SYNC_IDS"] == "random" ? .random : .timeOrdered
    }

    /// `count` distinct ids, in the order the rows are written.
    func make(_ count: Int, random: inout SplitMix64) -> [String] {
        switch self {
        case .random:
            return (0..<count).map { _ in random.uuid() }
        case .timeOrdered:
            let first = Date(timeIntervalSince1970: 1_795_752_000)  // 2026-11-26T04:00:00Z
            return (0..<count).map { RecordID.timeOrdered(at: first.addingTimeInterval(Double($0) / 1000)) }
        }
    }
}

extension SplitMix64 {
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    /// A random (version 4 shaped) UUID in lowercase text.
    mutating func uuid() -> String {
        let hex = Array("0123456789abcdef")
        var text = ""
        for i in 0..<32 {
            if [8, 12, 16, 20].contains(i) { text.append("-") }
            text.append(hex[Int(next() & 0xF)])
        }
        return text
    }
}

/// Prints one size's figures: per workload the phases, the transfer per change, the peak memory and the wire size.
func printSyncResult(_ r: SyncBenchmarkResult) {
    func seconds(_ phase: SyncBenchmarkResult.Phase) -> String { String(format: "%.3f s", r.median(phase)) }
    for workload in ["inserts", "patches"] {
        guard let size = r.sizes[workload] else { continue }
        let what = workload == "inserts"
            ? "\(r.cells / 5) new rows × 5 columns (\(SyncBenchmarkRowIDs.current.rawValue) ids): \(size.cells) cell changes + \(size.changes - size.cells) row inserts"
            : "\(size.cells) single-cell patches of those rows"
        let p = { (name: String) in SyncBenchmarkResult.Phase(rawValue: workload + name)! }
        print("sync, \(workload): \(what); device A → device B through the store, files with WAL + synchronous=FULL, median of \(r.rounds) round\(r.rounds == 1 ? "" : "s")")
        print("  write on A (record batches of 500, stamped)   \(seconds(p("Write")))")
        print("  read A's log \(seconds(p("Read"))), encode \(seconds(p("Encode"))) (JSON lines \(seconds(p("JSON")))), decode \(seconds(p("Decode"))), apply on B \(seconds(p("Apply"))) (pages of \(syncBenchmarkPageSize), streamed)")
        print(String(format: "  A → B (read + encode + decode + apply)        %.3f s = %.1f µs per change  target ≤ 5 s device→hub→device",
                     r.transfer(workload), r.transfer(workload) / Double(size.changes) * 1e6))
        if let touched = r.rowsTouched[workload] {
            print(String(format: "  rows touched per page, summed over the pages: %d = %.2f per change (each a metadata write and a write of the plugin's row)",
                         touched, Double(touched) / Double(size.changes)))
        }
        let cpu = Summary(r.cpuSeconds[workload] ?? []).median
        print(String(format: "  CPU time of A → B (user + system) %.3f s = %.1f µs per change", cpu, cpu / Double(size.changes) * 1e6))
        let peak = Summary(r.peakGrowth[workload] ?? []).median
        print(String(format: "  peak resident growth during A → B %.1f MiB = %.0f bytes per change (bounded by the page, not the log)",
                     peak / 1_048_576, peak / Double(size.changes)))
        print(String(format: "  wire: binary %d bytes = %.1f bytes per cell change (%.1f per change); JSON lines %.1f per change  target ≤ 80",
                     size.binary, Double(size.binary) / Double(size.cells), Double(size.binary) / Double(size.changes),
                     Double(size.json) / Double(size.changes)))
    }
}
