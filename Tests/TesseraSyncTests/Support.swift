import Foundation
import Synchronization
import TesseraSDK
import TesseraSQLite
@testable import TesseraSync

/// A settable clock for tests: never the wall clock.
final class TestClock: Sendable {
    private let time: Mutex<Date>

    /// 2026-03-02T08:00:00Z, or `start`.
    init(_ start: Date = TestClock.epoch) { time = Mutex(start) }

    static let epoch = Date(timeIntervalSince1970: 1_772_438_400)

    /// The clock as the store takes it.
    var now: @Sendable () -> Date { { [self] in time.withLock { $0 } } }

    func advance(_ seconds: Double) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }
    func set(_ date: Date) { time.withLock { $0 = date } }
    var date: Date { time.withLock { $0 } }
}

/// The table every store test syncs: `body` keeps conflicts.
let notesSchema = """
    CREATE TABLE notes(
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL DEFAULT '',
        body TEXT,
        stars INTEGER NOT NULL DEFAULT 0,
        score REAL)
    """

let notesTable = SyncedTable("notes", keepConflicts: ["body"])

/// A replica on a private in-memory database holding `notes`.
func makeReplica(node: UInt64, clock: TestClock, schema: String = notesSchema,
                 tables: [SyncedTable] = [notesTable]) throws -> SyncStore {
    let database = try SQLiteDatabase(path: ":memory:", statementCacheCapacity: 256)
    try database.withConnection { try $0.execute(schema) }
    return try SyncStore(database: database, tables: tables, node: HLCNode(node), now: clock.now)
}

extension SyncStore {
    /// Every row of `notes`, in id order: id, title, body, stars, score.
    func notes() throws -> [[SQLValue]] {
        try database.withConnection { try $0.fetchAll("SELECT id, title, body, stars, score FROM notes ORDER BY id") }
    }

    /// One row of `notes` as a dictionary, or nil.
    func note(_ id: String) throws -> [String: SQLValue]? {
        try database.withConnection { connection in
            try connection.fetchOne("SELECT title, body, stars, score FROM notes WHERE id = ?", [.text(id)]).map {
                ["title": $0[0], "body": $0[1], "stars": $0[2], "score": $0[3]]
            }
        }
    }

    /// Puts in space "s".
    @discardableResult
    func put(_ id: String, _ values: [String: SQLValue], space: String = "s") throws -> [SyncChange] {
        try write([.put(table: "notes", id: id, values: values)], in: space)
    }

    /// Patches in space "s".
    @discardableResult
    func patch(_ id: String, _ values: [String: SQLValue], space: String = "s") throws -> [SyncChange] {
        try write([.patch(table: "notes", id: id, values: values)], in: space)
    }

    /// Deletes in space "s".
    @discardableResult
    func delete(_ id: String, space: String = "s") throws -> [SyncChange] {
        try write([.delete(table: "notes", id: id)], in: space)
    }

    /// Every change of space "s".
    func all(_ space: String = "s") throws -> [SyncChange] { try changes(in: space) }
}

/// A timestamp for tests.
func ts(_ millis: Int64, _ counter: UInt16 = 0, node: UInt64 = 1) -> HLCTimestamp {
    try! HLCTimestamp(millis: millis, counter: counter, node: HLCNode(node))
}

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "tessera-sync-tests-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
