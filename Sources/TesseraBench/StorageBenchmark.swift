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
func storageBenchmark(rows: Int, batchSize: Int, rounds: Int) async throws
    -> (recordAPIRowsPerSecondMedian: Double, rawRowsPerSecondMedian: Double)
{
    precondition(rows > 0 && batchSize > 0 && rounds > 0)
    let root = NSTemporaryDirectory() + "tessera-storage-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    let payload = String(repeating: "tessera ", count: 16)

    var recordRates: [Double] = []
    var rawRates: [Double] = []
    for round in 0..<rounds {
        let recordFirst = round % 2 == 0
        for recordAPI in recordFirst ? [true, false] : [false, true] {
            let path = "\(root)/round\(round)-\(recordAPI ? "record" : "raw").sqlite"
            let nanoseconds = recordAPI
                ? try await timeRecordAPI(path: path, rows: rows, batchSize: batchSize, payload: payload)
                : try timeRawSQLite(path: path, rows: rows, batchSize: batchSize, payload: payload)
            let rate = Double(rows) / (Double(nanoseconds) / 1e9)
            if recordAPI { recordRates.append(rate) } else { rawRates.append(rate) }
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }
    return (median(recordRates), median(rawRates))
}

private let itemsTable = "CREATE TABLE items(id TEXT PRIMARY KEY, batch INTEGER, n INTEGER, payload TEXT)"

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

/// (b) Raw SQLite through the C API, with the same settings.
private func timeRawSQLite(path: String, rows: Int, batchSize: Int, payload: String) throws -> UInt64 {
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

    let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
    var insert: OpaquePointer?, begin: OpaquePointer?, commit: OpaquePointer?
    guard sqlite3_prepare_v2(db, "INSERT INTO items(id, batch, n, payload) VALUES (?, ?, ?, ?)", -1, &insert, nil) == SQLITE_OK,
          sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, nil) == SQLITE_OK,
          sqlite3_prepare_v2(db, "COMMIT", -1, &commit, nil) == SQLITE_OK
    else { throw BenchError("prepare: \(String(cString: sqlite3_errmsg(db)))") }
    defer {
        sqlite3_finalize(insert)
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
    while written < rows {
        try run(begin)
        for _ in 0..<min(batchSize, rows - written) {
            let id = "b\(batchNumber)-\(written)"
            sqlite3_bind_text(insert, 1, id, -1, transient)
            sqlite3_bind_int64(insert, 2, batchNumber)
            sqlite3_bind_int64(insert, 3, Int64(written))
            sqlite3_bind_text(insert, 4, payload, -1, transient)
            try run(insert)
            written += 1
        }
        try run(commit)
        batchNumber += 1
    }
    return monotonicNanoseconds() - start
}

private struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
