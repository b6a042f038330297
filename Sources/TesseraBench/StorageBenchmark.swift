import CSQLite
import Foundation
import TesseraSDK
import TesseraStorage

/// Record API vs raw SQLite, side by side, on the same machine in the same run.
///
/// Both write `rows` rows in batches of `batchSize` into a table of the same shape,
/// `items(id TEXT PRIMARY KEY, batch INTEGER, n INTEGER, payload TEXT)`, in a fresh database with
/// the same settings (WAL, `synchronous=FULL`, so one fsync per batch), one transaction per batch:
/// (a) `SQLitePluginStorage.write` of a `WriteBatch` of puts (validation, upsert, change log);
/// (b) `sqlite3_prepare_v2` once, then `sqlite3_bind_*`/`sqlite3_step`/`sqlite3_reset` per row between
/// `BEGIN IMMEDIATE` and `COMMIT`. The order alternates by round (a then b, b then a) so neither
/// always runs on a warmer cache. Returns the median rows per second of each.
///
/// To show where the gap goes, a third variant (c) is raw SQLite that also writes what the record
/// API's change log holds for each batch (one row of `_tessera_change_batches`, the same table and
/// the same text: `[table, id, operation, cells]` per row): (b) → (c) is the cost of the log itself,
/// (c) → (a) the cost of the record API's own layer (validation, Swift values, statement look-up,
/// the log's encoding).
///
/// A fifth variant (e) is (c) with the statement the record API runs for a put: an upsert on `id`
/// (`INSERT … ON CONFLICT (id) DO UPDATE SET` every other column), because a put replaces a row that
/// may exist; (c) → (e) is what that costs SQLite, (e) → (a) what is the record API's own.
///
/// A sixth variant (f) is (e) with each batch written as the record API writes it: on a serial
/// dispatch queue, awaited through a continuation; (e) → (f) is the hop, (f) → (a) the record API's
/// own layer without it.
///
/// A fourth variant (d) is the record API called on the benchmark's thread
/// (`writeBlocking(_:phases:)`), which also adds up where its time went: validation, the plugin's
/// rows, the log's rows, and the rest of the transaction (`BEGIN`, `COMMIT` and its fsync); (d) → (a)
/// is the hop to the storage's write queue and back.
func storageBenchmark(rows: Int, batchSize: Int, rounds: Int) async throws -> StorageBenchmarkResult {
    precondition(rows > 0 && batchSize > 0 && rounds > 0)
    let root = NSTemporaryDirectory() + "tessera-storage-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    let payload = String(repeating: "tessera ", count: 16)

    var recordRates: [Double] = []
    var rawRates: [Double] = []
    var rawWithLogRates: [Double] = []
    var rawUpsertWithLogRates: [Double] = []
    var rawOnQueueRates: [Double] = []
    var blockingRates: [Double] = []
    var cpuPerRow: [Variant: [Double]] = [:]  // µs of CPU per row, each round
    var phases: [WritePhases] = []
    enum Variant: String { case record, raw, rawWithLog, rawUpsertWithLog, rawOnQueue, blocking }
    for round in 0..<rounds {
        let order: [Variant] = round % 2 == 0 ? [.record, .raw, .rawWithLog, .rawUpsertWithLog, .rawOnQueue, .blocking]
                                              : [.blocking, .rawOnQueue, .rawUpsertWithLog, .rawWithLog, .raw, .record]
        for variant in order {
            let path = "\(root)/round\(round)-\(variant.rawValue).sqlite"
            let spent: Spent
            switch variant {
            case .record:
                spent = try await ProfilerWindow.around("storage-record") {
                    try await timeRecordAPI(path: path, rows: rows, batchSize: batchSize, payload: payload)
                }
            case .blocking:
                let timed = try ProfilerWindow.around("storage-blocking") {
                    try timeRecordAPIBlocking(path: path, rows: rows, batchSize: batchSize, payload: payload)
                }
                spent = timed.spent
                phases.append(timed.phases)
            case .rawOnQueue:
                spent = try await ProfilerWindow.around("storage-rawOnQueue") {
                    try await timeRawSQLiteOnQueue(path: path, rows: rows, batchSize: batchSize, payload: payload)
                }
            case .raw, .rawWithLog, .rawUpsertWithLog:
                spent = try ProfilerWindow.around("storage-\(variant.rawValue)") {
                    try timeRawSQLite(path: path, rows: rows, batchSize: batchSize, payload: payload,
                                      withLog: variant != .raw, upsert: variant == .rawUpsertWithLog)
                }
            }
            let rate = Double(rows) / (Double(spent.nanoseconds) / 1e9)
            cpuPerRow[variant, default: []].append(spent.cpuSeconds * 1e6 / Double(rows))
            switch variant {
            case .record: recordRates.append(rate)
            case .raw: rawRates.append(rate)
            case .rawWithLog: rawWithLogRates.append(rate)
            case .rawUpsertWithLog: rawUpsertWithLogRates.append(rate)
            case .rawOnQueue: rawOnQueueRates.append(rate)
            case .blocking: blockingRates.append(rate)
            }
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }
    // Each phase's median over the rounds, per row.
    func perRow(_ phase: (WritePhases) -> UInt64) -> Double { median(phases.map { Double(phase($0)) / 1000 / Double(rows) }) }
    return StorageBenchmarkResult(
        recordAPIRowsPerSecondMedian: median(recordRates), rawRowsPerSecondMedian: median(rawRates),
        rawWithLogRowsPerSecondMedian: median(rawWithLogRates), rawUpsertWithLogRowsPerSecondMedian: median(rawUpsertWithLogRates),
        rawOnQueueRowsPerSecondMedian: median(rawOnQueueRates),
        blockingRowsPerSecondMedian: median(blockingRates),
        cpuMicrosPerRow: (record: median(cpuPerRow[.record] ?? []), blocking: median(cpuPerRow[.blocking] ?? []),
                          rawUpsertWithLog: median(cpuPerRow[.rawUpsertWithLog] ?? []), rawOnQueue: median(cpuPerRow[.rawOnQueue] ?? [])),
        validateMicrosPerRow: perRow(\.validate), rowsMicrosPerRow: perRow(\.rows), logMicrosPerRow: perRow(\.log),
        commitMicrosPerRow: perRow(\.commit))
}

/// One variant alone, batch 100, for an instruction count that the fsync's time does not move
/// (`tessera-bench storage-only record|anchor ROWS`, run under valgrind's cachegrind: the difference
/// of two row counts ÷ their difference is the variant's user-space instructions per row).
/// `record` is the record API on this thread (`writeBlocking`, variant (d)); `anchor` is raw SQLite
/// with the log row and the put's upsert (variant (e)).
func storageOnly(_ variant: String, rows: Int) throws {
    let root = NSTemporaryDirectory() + "tessera-storage-only-\(getpid())"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    let payload = String(repeating: "tessera ", count: 16)
    switch variant {
    case "record": _ = try timeRecordAPIBlocking(path: root + "/record.sqlite", rows: rows, batchSize: 100, payload: payload)
    case "anchor": _ = try timeRawSQLite(path: root + "/anchor.sqlite", rows: rows, batchSize: 100, payload: payload, withLog: true, upsert: true)
    default: throw BenchError("no variant named \(variant); the variants: record, anchor")
    }
}

/// The medians of a storage run: rows per second of each variant, and (d)'s phases in µs per row.
struct StorageBenchmarkResult {
    let recordAPIRowsPerSecondMedian: Double
    let rawRowsPerSecondMedian: Double
    let rawWithLogRowsPerSecondMedian: Double
    /// (e): raw with the log rows, each row put with the record API's upsert.
    let rawUpsertWithLogRowsPerSecondMedian: Double
    /// (f): (e), each batch on a dispatch queue and awaited, as the record API writes.
    let rawOnQueueRowsPerSecondMedian: Double
    let blockingRowsPerSecondMedian: Double
    /// CPU time (user + system, every thread of the process: the write queue's too) per row, the
    /// median over the rounds: steadier than the rates, which each batch's fsync moves, so it shows
    /// the record API's own work beside the anchors'.
    let cpuMicrosPerRow: (record: Double, blocking: Double, rawUpsertWithLog: Double, rawOnQueue: Double)
    let validateMicrosPerRow: Double
    let rowsMicrosPerRow: Double
    let logMicrosPerRow: Double
    let commitMicrosPerRow: Double
}

private let itemsTable = "CREATE TABLE items(id TEXT PRIMARY KEY, batch INTEGER, n INTEGER, payload TEXT)"
/// The statement the record API prepares for a put of these three columns (its text, as
/// `SQLitePluginStorage.sql(for:)` makes it).
private let upsertSQL = #"INSERT INTO "items" ("id", "batch", "n", "payload") VALUES (?, ?, ?, ?) ON CONFLICT ("id") DO UPDATE SET "batch" = excluded."batch", "n" = excluded."n", "payload" = excluded."payload""#
/// The record API's change log, as its schema creates it (also created, unused, for variant (b), so
/// that every database starts with the same tables).
private let changeLogTable = """
    CREATE TABLE _tessera_change_batches(seq INTEGER PRIMARY KEY, count INTEGER NOT NULL CHECK (count > 0), at TEXT NOT NULL,
        changes TEXT NOT NULL)
    """

private func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// What one variant's writes took: wall time, and CPU time of the whole process.
private struct Spent {
    let nanoseconds: UInt64
    let cpuSeconds: Double
}

/// Started where a variant's timed writes start (after its database is made).
private struct Stopwatch {
    private let wall = monotonicNanoseconds()
    private let cpu = processCPUSeconds()

    /// The time since the start.
    func spent() -> Spent { Spent(nanoseconds: monotonicNanoseconds() - wall, cpuSeconds: processCPUSeconds() - cpu) }
}

/// (a) The record API, as a plugin uses it: `await storage.write(batch)`.
private func timeRecordAPI(path: String, rows: Int, batchSize: Int, payload: String) async throws -> Spent {
    let storage = try SQLitePluginStorage(pluginID: "bench", path: path, now: { Date() })
    try storage.migrate([StorageMigration(version: 1, sql: itemsTable)])
    let stopwatch = Stopwatch()
    var written = 0
    var batchNumber: Int64 = 0
    while written < rows {
        var batch = WriteBatch()
        for _ in 0..<min(batchSize, rows - written) {
            batch.put("items", id: "b\(batchNumber)-\(written)",
                      ["batch": .integer(batchNumber), "n": .integer(Int64(written)), "payload": .text(payload)])
            written += 1
        }
        try await storage.write(batch)
        batchNumber += 1
    }
    return stopwatch.spent()
}

/// (d) The record API on this thread, adding up its phases.
private func timeRecordAPIBlocking(path: String, rows: Int, batchSize: Int, payload: String) throws
    -> (spent: Spent, phases: WritePhases)
{
    let storage = try SQLitePluginStorage(pluginID: "bench", path: path, now: { Date() })
    try storage.migrate([StorageMigration(version: 1, sql: itemsTable)])
    var phases = WritePhases()
    let stopwatch = Stopwatch()
    var written = 0
    var batchNumber: Int64 = 0
    while written < rows {
        var batch = WriteBatch()
        for _ in 0..<min(batchSize, rows - written) {
            batch.put("items", id: "b\(batchNumber)-\(written)",
                      ["batch": .integer(batchNumber), "n": .integer(Int64(written)), "payload": .text(payload)])
            written += 1
        }
        try storage.writeBlocking(batch, phases: &phases)
        batchNumber += 1
    }
    return (stopwatch.spent(), phases)
}

/// (b) Raw SQLite through the C API, with the same settings; with `withLog` (c), each row also gets
/// the change-log row the record API writes; with `upsert` too (e), each row is written by the
/// record API's statement for a put.
private func timeRawSQLite(path: String, rows: Int, batchSize: Int, payload: String, withLog: Bool, upsert: Bool = false) throws -> Spent {
    let writer = try RawBatchWriter(path: path, payload: payload, withLog: withLog, upsert: upsert)
    let stopwatch = Stopwatch()
    var written = 0
    while written < rows {
        let count = min(batchSize, rows - written)
        try writer.write(count: count)
        written += count
    }
    return stopwatch.spent()
}

/// (f) (e) as the record API runs it: each batch on a serial dispatch queue of its own, awaited
/// from this task through a continuation (`SQLitePluginStorage.write` hops to its write queue the
/// same way, to keep a batch's fsync off Swift's shared threads). (e) → (f) is what the hop costs
/// SQLite's own work; (f) → (a) is the record API's own layer without it.
private func timeRawSQLiteOnQueue(path: String, rows: Int, batchSize: Int, payload: String) async throws -> Spent {
    let writer = try RawBatchWriter(path: path, payload: payload, withLog: true, upsert: true)
    let queue = DispatchQueue(label: "tessera.bench.raw.write")
    let stopwatch = Stopwatch()
    var written = 0
    while written < rows {
        let count = min(batchSize, rows - written)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async { continuation.resume(with: Result { try writer.write(count: count) }) }
        }
        written += count
    }
    return stopwatch.spent()
}

/// Raw SQLite's side of the storage benchmark: one connection and its prepared statements, writing
/// a batch of rows per transaction. Used by one thread at a time (the queue of (f) runs one batch
/// after another), hence `@unchecked Sendable`.
private final class RawBatchWriter: @unchecked Sendable {
    private let db: OpaquePointer
    private let insert: OpaquePointer, log: OpaquePointer, begin: OpaquePointer, commit: OpaquePointer
    private let payload: String
    private let withLog: Bool
    private var written = 0
    private var batchNumber: Int64 = 0
    private var logSeq: Int64 = 1

    init(path: String, payload: String, withLog: Bool, upsert: Bool) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let handle
        else { throw BenchError("cannot open \(path)") }
        func exec(_ sql: String) throws {
            guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
                let message = "\(sql): \(String(cString: sqlite3_errmsg(handle)))"
                sqlite3_close_v2(handle)
                throw BenchError(message)
            }
        }
        try exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON")
        try exec(itemsTable)
        try exec(changeLogTable)
        func prepare(_ sql: String) throws -> OpaquePointer {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
                let message = "prepare: \(String(cString: sqlite3_errmsg(handle)))"
                sqlite3_close_v2(handle)
                throw BenchError(message)
            }
            return statement
        }
        insert = try prepare(upsert ? upsertSQL : "INSERT INTO items(id, batch, n, payload) VALUES (?, ?, ?, ?)")
        log = try prepare("INSERT INTO _tessera_change_batches(seq, count, at, changes) VALUES (?, ?, ?, ?)")
        begin = try prepare("BEGIN IMMEDIATE")
        commit = try prepare("COMMIT")
        db = handle
        self.payload = payload
        self.withLog = withLog
    }

    deinit {
        for statement in [insert, log, begin, commit] { sqlite3_finalize(statement) }
        sqlite3_close_v2(db)
    }

    private func run(_ statement: OpaquePointer) throws {
        let rc = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard rc == SQLITE_DONE else { throw BenchError("step: \(String(cString: sqlite3_errmsg(db)))") }
    }

    /// Writes the next `count` rows in one transaction (and, with the log, their change-log row).
    func write(count: Int) throws {
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        try run(begin)
        var logged: [String] = []  // the batch's `[table, id, operation, cells]`, as the record API logs them
        for _ in 0..<count {
            let id = "b\(batchNumber)-\(written)"
            sqlite3_bind_text(insert, 1, id, -1, transient)
            sqlite3_bind_int64(insert, 2, batchNumber)
            sqlite3_bind_int64(insert, 3, Int64(written))
            sqlite3_bind_text(insert, 4, payload, -1, transient)
            try run(insert)
            if withLog {
                logged.append(#"["items","\#(id)","put",{"batch":\#(batchNumber),"n":\#(written),"payload":"\#(payload)"}]"#)
            }
            written += 1
        }
        if withLog {
            sqlite3_bind_int64(log, 1, logSeq)
            sqlite3_bind_int64(log, 2, Int64(count))
            sqlite3_bind_text(log, 3, "2026-11-26T04:00:00.000Z", -1, transient)
            sqlite3_bind_text(log, 4, "[" + logged.joined(separator: ",") + "]", -1, transient)
            try run(log)
            logSeq += Int64(count)
        }
        try run(commit)
        batchNumber += 1
    }
}

/// A benchmark that could not do its work, and why.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
