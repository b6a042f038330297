import Foundation
import TesseraSDK
import TesseraSQLite
import Testing
@testable import TesseraSync

@Suite struct SyncedTableRuleTests {
    let clock = TestClock()

    @Test(arguments: [
        ("CREATE TABLE t(id TEXT PRIMARY KEY, name TEXT NOT NULL)", "column name is NOT NULL without a DEFAULT"),
        ("CREATE TABLE t(id TEXT PRIMARY KEY, email TEXT UNIQUE)", "unique index or constraint"),
        ("CREATE TABLE t(id TEXT PRIMARY KEY, a TEXT); CREATE UNIQUE INDEX t_a ON t(a)", "unique index or constraint (t_a)"),
        ("CREATE TABLE p(id TEXT PRIMARY KEY); CREATE TABLE t(id TEXT PRIMARY KEY, p TEXT REFERENCES p(id))", "foreign key"),
        ("CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT)", "one TEXT column named id"),
        ("CREATE TABLE t(id TEXT, a TEXT, PRIMARY KEY (id, a))", "one TEXT column named id"),
        ("CREATE TABLE t(key TEXT PRIMARY KEY)", "one TEXT column named id"),
        ("CREATE TABLE x(id TEXT PRIMARY KEY); CREATE VIEW t AS SELECT * FROM x", "it is a view"),
        ("CREATE TABLE x(id TEXT PRIMARY KEY)", "there is no such table"),
    ])
    func tablesThatCannotMergeAreRefusedNamingTheRule(schema: String, reason: String) throws {
        let error = #expect(throws: SyncError.self) {
            _ = try makeReplica(node: 1, clock: clock, schema: schema, tables: [SyncedTable("t")])
        }
        #expect(error?.description.hasPrefix("table t cannot be synced: ") == true)
        #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
    }

    @Test func keepConflictsNeedsAWritableTextColumn() throws {
        let schema = "CREATE TABLE t(id TEXT PRIMARY KEY, n INTEGER, s TEXT, g TEXT GENERATED ALWAYS AS (upper(s)))"
        for (column, reason) in [("n", "is not a TEXT column"), ("missing", "no writable column missing"), ("g", "no writable column g")] {
            let error = #expect(throws: SyncError.self) {
                _ = try makeReplica(node: 1, clock: clock, schema: schema, tables: [SyncedTable("t", keepConflicts: [column])])
            }
            #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
        }
        _ = try makeReplica(node: 1, clock: clock, schema: schema, tables: [SyncedTable("t", keepConflicts: ["s"])])
    }

    @Test func generatedColumnsAreNeitherStampedNorWritten() throws {
        let schema = "CREATE TABLE t(id TEXT PRIMARY KEY, s TEXT DEFAULT 'x', g TEXT GENERATED ALWAYS AS (upper(s)))"
        let a = try makeReplica(node: 1, clock: clock, schema: schema, tables: [SyncedTable("t")])
        let b = try makeReplica(node: 2, clock: clock, schema: schema, tables: [SyncedTable("t")])
        let stamped = try a.write([.put(table: "t", id: "1", values: ["s": "abc"])], in: "s")
        #expect(stamped.map(\.column) == ["", "s"])
        try b.applyRemote(stamped)
        #expect(try b.database.withConnection { try $0.fetchAll("SELECT id, s, g FROM t") } == [["1", "abc", "ABC"]])
    }
}

@Suite struct StoreTests {
    let clock = TestClock()

    @Test func aBatchFromAClockTooFarAheadIsRefusedWhole() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        let fine = try a.put("n1", ["title": "fine"])
        clock.advance(301)
        let ahead = try a.put("n2", ["title": "from the future"])
        clock.advance(-301)  // b's clock (the same one) reads five minutes and a second earlier
        let error = #expect(throws: HLCError.self) { try b.applyRemote(fine + ahead) }
        guard case .clockDrift(let remote, let physical, _, true)? = error else {
            Issue.record("expected a remote drift error, got \(String(describing: error))")
            return
        }
        #expect(remote - physical == 301_000)
        #expect(try b.notes().isEmpty, "nothing of the batch was applied")
        #expect(try b.all().isEmpty)
        #expect(try b.merkle(for: "s").isEmpty)
        try b.applyRemote(fine)
        #expect(try b.notes().count == 1)
    }

    @Test(arguments: [
        ("other", "title", Int64(1), "s", "table other is not synced here"),
        ("notes", "nope", 1, "s", "synced table notes has no writable column nope"),
        ("notes", "title", 2, "s", "written in causal length 2, an even one"),
        ("notes", "title", 0, "s", "causal length 0 is not positive"),
        ("notes", "title", 1, "", "its space is empty"),
    ])
    func malformedChangesAreRefusedWithTheBatch(table: String, column: String, length: Int64, space: String, message: String) throws {
        let b = try makeReplica(node: 0xB, clock: clock)
        let good = SyncChange(space: "s", table: "notes", row: "ok", causalLength: 1, timestamp: ts(1_772_438_400_000, 0, node: 0xA),
                              kind: .cell(column: "title", value: "fine", supersedes: []))
        let bad = SyncChange(space: space, table: table, row: "r", causalLength: length, timestamp: ts(1_772_438_400_000, 1, node: 0xA),
                             kind: .cell(column: column, value: "x", supersedes: []))
        let error = #expect(throws: SyncError.self) { try b.applyRemote([good, bad]) }
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
        #expect(try b.notes().isEmpty)
    }

    @Test func aCopiedDatabaseSharingThisNodeIsRefused() throws {
        let a = try makeReplica(node: 0xA, clock: clock)
        let twin = try makeReplica(node: 0xA, clock: clock)  // a copy of a's database on another device
        try a.put("n1", ["title": "a's"])
        // The twin's put gets the very same timestamp as a's: only the content tells them apart.
        let fromTwin = try twin.put("n2", ["title": "the twin's"])
        let error = #expect(throws: SyncError.self) { try a.applyRemote(fromTwin) }
        guard case .sharedNode(let node, _)? = error else { Issue.record("got \(String(describing: error))"); return }
        #expect(node == "000000000000000A")
        #expect(error?.description.contains("copied database") == true)
        #expect(try a.notes().count == 1)
        // A change of its node that it never made, with a stamp it has not used, is refused too.
        clock.advance(1)
        #expect(throws: SyncError.self) { try a.applyRemote(try twin.patch("n2", ["stars": 1])) }
        // Its own changes coming back are fine: they are in its log, as they were.
        #expect(try a.applyRemote(a.all()).duplicates == 5)
        // So are a third replica's copies of another's changes, delivered twice.
        let b = try makeReplica(node: 0xB, clock: clock), c = try makeReplica(node: 0xC, clock: clock)
        let fromB = try b.put("m", ["title": "b"])
        try c.applyRemote(fromB)
        #expect(try c.applyRemote(fromB).duplicates == fromB.count)
    }

    @Test func theReportNamesChangedRowsOnce() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        var batch = try a.put("n2", ["title": "x"])
        batch += try a.put("n1", ["title": "y"])
        batch += try a.patch("n1", ["stars": 3])
        let first = try b.applyRemote(batch)
        #expect(first.rows == [ChangedRow(table: "notes", row: "n1", change: .upserted), ChangedRow(table: "notes", row: "n2", change: .upserted)])
        let second = try b.applyRemote(try a.delete("n2") + a.patch("n1", ["stars": 4]))
        #expect(second.rows == [ChangedRow(table: "notes", row: "n1", change: .upserted), ChangedRow(table: "notes", row: "n2", change: .deleted)])
    }

    @Test func theStateSurvivesReopeningAndTheClockResumesAfterItsLastReading() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/plugin.sqlite"
        let last: HLCTimestamp
        do {
            let database = try SQLiteDatabase(path: path)
            try database.withConnection { try $0.execute(notesSchema) }
            let store = try SyncStore(database: database, tables: [notesTable], node: HLCNode(0xA), now: clock.now)
            try store.put("n1", ["title": "kept"])
            try store.patch("n1", ["stars": 2])
            last = store.lastTimestamp
        }
        clock.advance(-10)  // the host's clock went back while it was down
        let reopened = try SyncStore(path: path, tables: [notesTable], node: HLCNode(0xB), now: clock.now)
        #expect(reopened.node == HLCNode(0xA), "the stored node is the replica's identity")
        #expect(try reopened.note("n1")?["title"] == "kept")
        #expect(try reopened.all().count == 6)
        let next = try reopened.patch("n1", ["stars": 3])
        #expect(next[0].timestamp > last, "no timestamp is reused after a restart")
    }

    @Test func writeRefusesWhatTheRecordAPIRefuses() throws {
        let a = try makeReplica(node: 0xA, clock: clock)
        #expect(throws: SyncError.rowNotFound(table: "notes", row: "ghost")) { try a.patch("ghost", ["title": "x"]) }
        #expect(throws: SyncError.unknownColumn(table: "notes", column: "colour")) { try a.put("n1", ["colour": "red"]) }
        #expect(throws: SyncError.unknownTable("other")) { try a.write([.put(table: "other", id: "1", values: [:])], in: "s") }
        #expect(throws: SyncError.self) { try a.put("n1", ["id": "n2"]) }
        #expect(try a.all().isEmpty)
        // Column names are case-insensitive, as in SQLite and the record API.
        try a.put("n1", ["TITLE": "upper"])
        #expect(try a.note("n1")?["title"] == "upper")
    }

    @Test func allFiveStorageClassesReplicateExactly() throws {
        let a = try makeReplica(node: 0xA, clock: clock, schema: "CREATE TABLE t(id TEXT PRIMARY KEY, v)", tables: [SyncedTable("t")])
        let b = try makeReplica(node: 0xB, clock: clock, schema: "CREATE TABLE t(id TEXT PRIMARY KEY, v)", tables: [SyncedTable("t")])
        let values: [SQLValue] = [.null, .integer(-42), .real(2.5), .real(-.infinity), .text("žluťoučký 🐴"), .blob([0, 1, 255]), .text("")]
        for (i, value) in values.enumerated() { try a.write([.put(table: "t", id: "\(i)", values: ["v": value])], in: "s") }
        try b.applyRemote(try a.all())
        let read = try b.database.withConnection { try $0.fetchAll("SELECT v FROM t ORDER BY CAST(id AS INTEGER)") }.map { $0[0] }
        #expect(read == values)
        // A NaN from a peer is stored as SQLite stores it (NULL), and is still a duplicate the second time.
        let nan = SyncChange(space: "s", table: "t", row: "nan", causalLength: 1, timestamp: ts(1_772_438_400_000, 9, node: 0xC),
                             kind: .cell(column: "v", value: .real(.nan), supersedes: []))
        #expect(try b.applyRemote([nan]).stored == 1)
        #expect(try b.applyRemote([nan]).duplicates == 1)
    }
}
