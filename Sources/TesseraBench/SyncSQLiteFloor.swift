import CSQLite
import Foundation
import TesseraSDK
import TesseraSync

/// The floor under the sync transfer's apply: the statements a remote batch of inserts costs SQLite
/// itself, through the C API with nothing around them, on the same kind of file (WAL,
/// `synchronous=FULL`) and with the same table shapes and key orders as ``SyncStore``'s.
///
/// Per new row of 5 columns (6 changes): 6 message-log inserts and a row look-up in a first pass,
/// then the row's causal length, 5 cell winners and the plugin's row; rows sorted by id in a
/// transaction of 1,000 rows (5,000 cells), as ``MergeSession`` writes them. Ids are the benchmark's
/// (``SyncBenchmarkRowIDs``): time-ordered, new rows go to the end of the three keyed-by-row tables;
/// random, they go anywhere, and as the tables outgrow SQLite's page cache and the CPU's caches,
/// each insert reads and dirties more pages. Whatever growth this shows from 10³ to
/// 10⁶ is SQLite's B-trees', not the sync layer's. Returns seconds per change: CPU (user + system)
/// and wall-clock (which adds the waits for the disk: the commits' and checkpoints' fsyncs).
func syncSQLiteFloor(cells: Int, path: String) throws -> (cpu: Double, wall: Double) {
    let sql = [
        "INSERT INTO messages VALUES ('child-1', ?, ?, 'entries', ?, 1, 'x', NULL) ON CONFLICT DO NOTHING",
        "SELECT space, cl FROM rows WHERE tbl = 'entries' AND row_id = ?",
        "INSERT INTO rows VALUES ('entries', ?, 'child-1', 1) ON CONFLICT (tbl, row_id) DO UPDATE SET cl = excluded.cl",
        "INSERT INTO cells VALUES ('entries', ?, ?, 1, ?) ON CONFLICT (tbl, row_id, col) DO UPDATE SET cl = excluded.cl, ts = excluded.ts",
        "INSERT INTO entries VALUES (?, 'nap', '2026-03-02T10:00:00Z', 80.0, 'took it slowly', 'mum')",
    ]
    let floor = try FloorDatabase(path: path, statements: sql)
    let columns = ["amount", "at", "author", "kind", "note"]
    var random = SplitMix64(seed: 7)
    let allIDs = SyncBenchmarkRowIDs.current.make(cells / 5, random: &random)
    var stamp = 0
    let start = processCPUSeconds()
    let wallStart = monotonicNanoseconds()
    for first in stride(from: 0, to: cells / 5, by: 1000) {
        try floor.exec("BEGIN IMMEDIATE")
        let ids = allIDs[first..<min(first + 1000, allIDs.count)].sorted()
        let stamps = ids.indices.map { String(format: "2026-11-26T04:00:00.000Z-%016lx-000000000000000b", stamp + $0) }
        stamp += ids.count
        for (id, ts) in zip(ids, stamps) {
            for column in [""] + columns { floor.step(0, [ts, column, id]) }
            floor.step(1, [id])
        }
        for (id, ts) in zip(ids, stamps) {
            floor.step(2, [id])
            for column in columns { floor.step(3, [id, column, ts]) }
            floor.step(4, [id])
        }
        try floor.exec("COMMIT")
    }
    let changes = Double(cells / 5 * 6)
    return ((processCPUSeconds() - start) / changes, Double(monotonicNanoseconds() - wallStart) / 1e9 / changes)
}

/// The same floor for the patches workload: `cells / 5` rows of 5 cells (inserted untimed, in
/// transactions of 10,000 rows), then `cells` single-cell patches of random rows, applied as
/// ``MergeSession`` applies a remote page (the benchmark's page, 10,000): per change a message-log
/// insert, per row new to the page its causal length and the cell's winner looked up; at the end of
/// the page, per row in id order, the cell's winner written and the plugin's row updated; one
/// transaction per page.
/// The rows a page touches, and so the pages of each B-tree it dirties, depend on `cells` exactly
/// as the benchmark's do. Returns seconds per change (CPU, wall-clock).
func syncSQLitePatchFloor(cells: Int, path: String) throws -> (cpu: Double, wall: Double) {
    let sql = [
        "INSERT INTO messages VALUES ('child-1', ?, ?, 'entries', ?, 1, 80.0, NULL) ON CONFLICT DO NOTHING",
        "SELECT space, cl FROM rows WHERE tbl = 'entries' AND row_id = ?",
        "SELECT cl, ts FROM cells WHERE tbl = 'entries' AND row_id = ? AND col = ?",
        "INSERT INTO cells VALUES ('entries', ?, ?, 1, ?) ON CONFLICT (tbl, row_id, col) DO UPDATE SET cl = excluded.cl, ts = excluded.ts",
        "UPDATE entries SET amount = 90.0 WHERE id = ?",
        "INSERT INTO rows VALUES ('entries', ?, 'child-1', 1)",
        "INSERT INTO entries VALUES (?, 'nap', '2026-03-02T10:00:00Z', 80.0, 'took it slowly', 'mum')",
    ]
    let floor = try FloorDatabase(path: path, statements: sql)
    let columns = ["amount", "at", "author", "kind", "note"]
    var random = SplitMix64(seed: 7)
    let ids = SyncBenchmarkRowIDs.current.make(cells / 5, random: &random)
    var stamp = 0
    func nextStamp() -> String {
        stamp += 1
        return String(format: "2026-11-26T04:00:00.000Z-%016lx-000000000000000b", stamp)
    }
    // The rows, untimed.
    try floor.inTransactions(ids) { id in
        let ts = nextStamp()
        floor.step(5, [id])
        for column in columns { floor.step(3, [id, column, ts]) }
        floor.step(6, [id])
    }
    return try floor.timedPages(of: cells) { page in
        var touched: [String: String] = [:]
        for _ in page {
            let id = ids[random.below(ids.count)]
            let ts = nextStamp()
            floor.step(0, [ts, "amount", id])
            if touched[id] == nil {
                floor.step(1, [id])
                floor.step(2, [id, "amount"])
            }
            touched[id] = ts
        }
        for id in touched.keys.sorted() {
            floor.step(3, [id, "amount", touched[id]!])
            floor.step(4, [id])
        }
    }
}

/// The least any store could write for the patches workload: the plugin's table alone, with no
/// sync metadata and no log. The same `cells / 5` rows (inserted untimed) and the same random
/// `cells` patches in pages of the benchmark's size; each page, one transaction, updates every row it
/// touched once, in id order (`UPDATE entries SET amount = ? WHERE id = ?`). What this grows from 10³
/// to 10⁶ is what a transaction of this size costs SQLite's B-tree and the disk when it holds the
/// same row several times (a small store) or each row once (a large one): a bound under any sync
/// layer that keeps the plugin's rows in SQLite. Returns seconds per change (CPU, wall-clock).
func syncSQLiteTableFloor(cells: Int, path: String) throws -> (cpu: Double, wall: Double) {
    let sql = [
        "UPDATE entries SET amount = ? WHERE id = ?",
        "INSERT INTO entries VALUES (?, 'nap', '2026-03-02T10:00:00Z', 80.0, 'took it slowly', 'mum')",
    ]
    let floor = try FloorDatabase(path: path, statements: sql)
    var random = SplitMix64(seed: 7)
    let ids = SyncBenchmarkRowIDs.current.make(cells / 5, random: &random)
    try floor.inTransactions(ids) { floor.step(1, [$0]) }  // the rows, untimed
    return try floor.timedPages(of: cells) { page in
        var touched: [String: Int] = [:]
        for _ in page { touched[ids[random.below(ids.count)]] = random.below(250) }
        for id in touched.keys.sorted() { floor.step(0, [String(touched[id]!), id]) }
    }
}

/// The floors' database: a fresh file with ``SyncStore``'s table shapes and key orders (WAL,
/// `synchronous=FULL`), the floor's statements prepared; closed and deleted with the value.
private final class FloorDatabase {
    let path: String
    let db: OpaquePointer
    private var statements: [OpaquePointer?]
    private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    init(path: String, statements sql: [String]) throws {
        Self.remove(path)
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db
        else { throw FloorError("cannot open \(path)") }
        (self.path, self.db, statements) = (path, db, Array(repeating: nil, count: sql.count))
        if let bytes = syncBenchmarkPageBytes { try exec("PRAGMA page_size=\(bytes)") }
        try exec("""
            PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;
            CREATE TABLE rows(tbl TEXT NOT NULL, row_id TEXT NOT NULL, space TEXT NOT NULL, cl INTEGER NOT NULL, PRIMARY KEY (tbl, row_id)) WITHOUT ROWID;
            CREATE TABLE cells(tbl TEXT NOT NULL, row_id TEXT NOT NULL, col TEXT NOT NULL, cl INTEGER NOT NULL, ts TEXT NOT NULL,
                PRIMARY KEY (tbl, row_id, col)) WITHOUT ROWID;
            CREATE TABLE messages(space TEXT NOT NULL, ts TEXT NOT NULL, col TEXT NOT NULL, tbl TEXT NOT NULL, row_id TEXT NOT NULL,
                cl INTEGER NOT NULL, value, supersedes TEXT, PRIMARY KEY (space, ts, col)) WITHOUT ROWID;
            CREATE TABLE entries(id TEXT PRIMARY KEY, kind TEXT, at TEXT, amount REAL, note TEXT, author TEXT);
            """)
        for (i, text) in sql.enumerated() where sqlite3_prepare_v2(db, text, -1, &statements[i], nil) != SQLITE_OK {
            throw FloorError("\(text): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    deinit {
        statements.forEach { sqlite3_finalize($0) }
        sqlite3_close_v2(db)
        Self.remove(path)
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    func exec(_ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw FloorError("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
    }

    /// Runs `body` for each of `ids`, 10,000 to a transaction (how the floors insert their rows).
    func inTransactions(_ ids: [String], _ body: (String) -> Void) throws {
        for start in stride(from: 0, to: ids.count, by: 10_000) {
            try exec("BEGIN IMMEDIATE")
            for id in ids[start..<min(start + 10_000, ids.count)] { body(id) }
            try exec("COMMIT")
        }
    }

    /// Runs `body` once per page of the benchmark's size over `0..<changes`, each page in one
    /// transaction, and returns the seconds per change it took (CPU, wall-clock).
    func timedPages(of changes: Int, _ body: (Range<Int>) -> Void) throws -> (cpu: Double, wall: Double) {
        let start = processCPUSeconds()
        let wallStart = monotonicNanoseconds()
        for first in stride(from: 0, to: changes, by: syncBenchmarkPageSize) {
            try exec("BEGIN IMMEDIATE")
            body(first..<min(first + syncBenchmarkPageSize, changes))
            try exec("COMMIT")
        }
        return ((processCPUSeconds() - start) / Double(changes), Double(monotonicNanoseconds() - wallStart) / 1e9 / Double(changes))
    }

    /// Binds `texts` to statement `index`, runs it once and resets it.
    func step(_ index: Int, _ texts: [String]) {
        let statement = statements[index]
        for (i, text) in texts.enumerated() { sqlite3_bind_text(statement, Int32(i + 1), text, -1, transient) }
        _ = sqlite3_step(statement)
        sqlite3_reset(statement)
    }
}

private struct FloorError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
