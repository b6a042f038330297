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
    var blockingRates: [Double] = []
    var phases: [WritePhases] = []
    enum Variant: String { case record, raw, rawWithLog, rawUpsertWithLog, blocking }
    for round in 0..<rounds {
        let order: [Variant] = round % 2 == 0 ? [.record, .raw, .rawWithLog, .rawUpsertWithLog, .blocking]
                                              : [.blocking, .rawUpsertWithLog, .rawWithLog, .raw, .record]
        for variant in order {
            let path = "\(root)/round\(round)-\(variant.rawValue).sqlite"
            let nanoseconds: UInt64
            switch variant {
            case .record:
                nanoseconds = try await ProfilerWindow.around("storage-record") {
                    try await timeRecordAPI(path: path, rows: rows, batchSize: batchSize, payload: payload)
                }
            case .blocking:
                let timed = try ProfilerWindow.around("storage-blocking") {
                    try timeRecordAPIBlocking(path: path, rows: rows, batchSize: batchSize, payload: payload)
                }
                nanoseconds = timed.nanoseconds
                phases.append(timed.phases)
            case .raw, .rawWithLog, .rawUpsertWithLog:
                nanoseconds = try ProfilerWindow.around("storage-\(variant.rawValue)") {
                    try timeRawSQLite(path: path, rows: rows, batchSize: batchSize, payload: payload,
                                      withLog: variant != .raw, upsert: variant == .rawUpsertWithLog)
                }
            }
            let rate = Double(rows) / (Double(nanoseconds) / 1e9)
            switch variant {
            case .record: recordRates.append(rate)
            case .raw: rawRates.append(rate)
            case .rawWithLog: rawWithLogRates.append(rate)
            case .rawUpsertWithLog: rawUpsertWithLogRates.append(rate)
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
        blockingRowsPerSecondMedian: median(blockingRates),
        validateMicrosPerRow: perRow(\.validate), rowsMicrosPerRow: perRow(\.rows), logMicrosPerRow: perRow(\.log),
        commitMicrosPerRow: perRow(\.commit))
}

/// The medians of a storage run: rows per second of each variant, and (d)'s phases in µs per row.
struct StorageBenchmarkResult {
    let recordAPIRowsPerSecondMedian: Double
    let rawRowsPerSecondMedian: Double
    let rawWithLogRowsPerSecondMedian: Double
    /// (e): raw with the log rows, each row put with the record API's upsert.
    let rawUpsertWithLogRowsPerSecondMedian: Double
    let blockingRowsPerSecondMedian: Double
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

/// (a) The record API, as a plugin uses it: `await storage.write(batch)`.
private func timeRecordAPI(path: String, rows: Int, batchSize: Int, payload: String) async throws -> UInt64 {
    let storage = try SQLitePluginStorage(pluginID: "bench", path: path, now: { Date() })
    try storage.migrate([StorageMigration(version: 1, sql: itemsTable)])
    let start = monotonicNanoseconds()
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
    return monotonicNanoseconds() - start
}

/// (d) The record API on this thread, adding up its phases.
private func timeRecordAPIBlocking(path: String, rows: Int, batchSize: Int, payload: String) throws
    -> (nanoseconds: UInt64, phases: WritePhases)
{
    let storage = try SQLitePluginStorage(pluginID: "bench", path: path, now: { Date() })
    try storage.migrate([StorageMigration(version: 1, sql: itemsTable)])
    var phases = WritePhases()
    let start = monotonicNanoseconds()
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
    return (monotonicNanoseconds() - start, phases)
}

/// (b) Raw SQLite through the C API, with the same settings; with `withLog` (c), each row also gets
/// the change-log row the record API writes; with `upsert` too (e), each row is written by the
/// record API's statement for a put.
private func timeRawSQLite(path: String, rows: Int, batchSize: Int, payload: String, withLog: Bool, upsert: Bool = false) throws -> UInt64 {
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
          let db
    else { throw BenchError("cannot open \(path)") }
    defer { sqlite3_close_v2(db) }
    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw BenchError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }
    try exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON")
    try exec(itemsTable)
    try exec(changeLogTable)

    let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    var insert: OpaquePointer?, log: OpaquePointer?, begin: OpaquePointer?, commit: OpaquePointer?
    guard sqlite3_prepare_v2(db, upsert ? upsertSQL : "INSERT INTO items(id, batch, n, payload) VALUES (?, ?, ?, ?)", -1, &insert, nil) == SQLITE_OK,
          sqlite3_prepare_v2(db, "INSERT INTO _tessera_change_batches(seq, count, at, changes) VALUES (?, ?, ?, ?)",
                             -1, &log, nil) == SQLITE_OK,
          sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, nil) == SQLITE_OK,
          sqlite3_prepare_v2(db, "COMMIT", -1, &commit, nil) == SQLITE_OK
    else { throw BenchError("prepare: \(String(cString: sqlite3_errmsg(db)))") }
    defer {
        sqlite3_finalize(insert)
        sqlite3_finalize(log)
        sqlite3_finalize(begin)
        sqlite3_finalize(commit)
    }
    func run(_ statement: OpaquePointer?) throws {
        let rc = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard rc == SQLITE_DONE else { throw BenchError("step: \(String(cString: sqlite3_errmsg(db)))") }
    }

    let start = monotonicNanoseconds()
    var written = 0
    var batchNumber: Int64 = 0
    var logSeq: Int64 = 1
    while written < rows {
        try run(begin)
        let count = min(batchSize, rows - written)
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
    return monotonicNanoseconds() - start
}

/// A benchmark that could not do its work, and why.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
