import CSQLite
import Foundation
import Testing
import TesseraSDK
@testable import TesseraSQLite
import TesseraTestFixtures

@Suite struct SQLiteWrapperTests {
    @Test func writableConnectionIsDurableByDefault() throws {
        let dir = Fixtures.temporaryDirectory("sqlite")
        let connection = try SQLiteConnection(path: (dir + "/a.db"))
        #expect(try connection.fetchOne("PRAGMA journal_mode")?.first == .text("wal"))
        #expect(try connection.fetchOne("PRAGMA synchronous")?.first == .integer(2))  // FULL
        #expect(try connection.fetchOne("PRAGMA foreign_keys")?.first == .integer(1))
        #expect(try connection.fetchOne("PRAGMA busy_timeout")?.first == .integer(5000))
    }

    @Test func valuesRoundTripInTheirStorageClass() throws {
        let dir = Fixtures.temporaryDirectory("sqlite")
        let connection = try SQLiteConnection(path: (dir + "/a.db"))
        try connection.execute("CREATE TABLE t(k INTEGER PRIMARY KEY, v)")
        let values: [SQLiteValue] = [
            .null, .integer(Int64.min), .integer(Int64.max), .real(-0.5), .real(1e300),
            .text(""), .text("žluťoučký kůň 🐎"), .text("nul\u{0}inside"), .blob([]), .blob([0, 1, 255]),
        ]
        let insert = try connection.prepare("INSERT INTO t(k, v) VALUES (?, ?)")
        for (k, value) in values.enumerated() {
            try insert.execute([.integer(Int64(k)), value])
        }
        let read = try connection.fetchAll("SELECT v FROM t ORDER BY k").map { $0[0] }
        // An empty blob reads back as an empty blob, not NULL; an empty string as empty text.
        #expect(read == values)
        #expect(try connection.fetchOne("SELECT typeof(v) FROM t WHERE k = 8")?.first == .text("blob"))
    }

    @Test func statementCacheReusesByExactSQLAndEvictsLeastRecentlyUsed() throws {
        let connection = try SQLiteConnection(path: ":memory:", statementCacheCapacity: 2)
        let a = try connection.cachedStatement("SELECT 1")
        let again = try connection.cachedStatement("SELECT 1")
        #expect(a === again)
        _ = try connection.cachedStatement("SELECT 2")
        _ = try connection.cachedStatement("SELECT 1")  // touch: SELECT 2 is now the oldest
        _ = try connection.cachedStatement("SELECT 3")
        #expect(connection.cachedStatementCount == 2)
        #expect(try connection.cachedStatement("SELECT 1") === a)
    }

    @Test func cachedStatementComesBackResetWithBindingsCleared() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let statement = try connection.cachedStatement("SELECT ?")
        try statement.bind(.integer(7), at: 1)
        #expect(try statement.step())
        let again = try connection.cachedStatement("SELECT ?")
        #expect(try again.fetchOne([.null]) == [.null])
    }

    @Test func transactionCommitsOrRollsBackOnThrow() throws {
        struct Boom: Error {}
        let dir = Fixtures.temporaryDirectory("sqlite")
        let connection = try SQLiteConnection(path: (dir + "/a.db"))
        try connection.execute("CREATE TABLE t(v)")
        try connection.transaction { try connection.execute("INSERT INTO t VALUES (?)", [1]) }
        #expect(throws: Boom.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (?)", [2])
                throw Boom()
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.fetchAll("SELECT v FROM t") == [[.integer(1)]])
        // Nesting is refused rather than silently committing the outer transaction early.
        let nested = #expect(throws: SQLiteError.self) {
            try connection.transaction { try connection.transaction {} }
        }
        #expect(nested?.code == SQLITE_MISUSE)
    }

    @Test func errorCarriesCodesMessageAndSQLOnOneLine() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute("CREATE TABLE t(id TEXT PRIMARY KEY, v TEXT NOT NULL)")
        let error = #expect(throws: SQLiteError.self) {
            try connection.execute("INSERT INTO t(id, v)\n  VALUES (?, ?)", ["a", nil])
        }
        #expect(error?.code == SQLITE_CONSTRAINT)
        #expect(error?.extendedCode == Int32(1299))  // SQLITE_CONSTRAINT_NOTNULL = 19 | 5 << 8
        #expect(error?.message == "NOT NULL constraint failed: t.v")
        #expect(error?.sql == "INSERT INTO t(id, v)\n  VALUES (?, ?)")
        let text = error?.description ?? ""
        #expect(!text.contains("\n"))
        #expect(text.contains("NOT NULL constraint failed: t.v"))
        #expect(text.contains("INSERT INTO t(id, v) VALUES (?, ?)"))
    }

    @Test func scriptErrorNamesTheFailingStatement() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let error = #expect(throws: SQLiteError.self) {
            try connection.execute("CREATE TABLE a(x); CREATE TABLE a(y); CREATE TABLE c(z)")
        }
        #expect(error?.message == "table a already exists")
        #expect(error?.sql == "CREATE TABLE a(y);")
    }

    @Test func aScriptStatementThatFailsWhenRunIsNamedOnOneLine() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let error = #expect(throws: SQLiteError.self) {
            try connection.execute("CREATE TABLE t(x NOT NULL);\n  INSERT INTO t\n  VALUES (NULL); CREATE TABLE u(y)")
        }
        #expect(error?.message == "NOT NULL constraint failed: t.x")
        #expect(error?.sql == "INSERT INTO t VALUES (NULL);")
        #expect(try connection.fetchOne("SELECT count(*) FROM sqlite_schema WHERE name = 'u'")?.first == .integer(0))
    }

    @Test func theLastConnectionToCloseLeavesTheWALFileKeptButEmpty() throws {
        let dir = Fixtures.temporaryDirectory("sqlite")
        let path = (dir + "/a.db")
        var connection: SQLiteConnection? = try SQLiteConnection(path: path)
        try connection?.execute("CREATE TABLE t(x); INSERT INTO t VALUES (randomblob(100000))")
        #expect(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0 > 100_000)
        connection = nil
        // Kept (creating it again is most of the next open's cost), emptied (the next open would
        // otherwise read every frame to rebuild the WAL index).
        #expect(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int == 0)
        #expect(try SQLiteConnection(path: path).fetchOne("SELECT length(x) FROM t")?.first == .integer(100_000))
    }

    @Test func prepareRefusesEmptyAndMultipleStatements() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        #expect(throws: SQLiteError.self) { try connection.prepare("SELECT 1; SELECT 2") }
        #expect(throws: SQLiteError.self) { try connection.prepare("  -- nothing\n") }
        // Trailing semicolons and comments are not a second statement.
        #expect(try connection.prepare("SELECT 1; -- done\n ;").fetchOne() == [.integer(1)])
        let bad = #expect(throws: SQLiteError.self) { try connection.prepare("SELEC 1") }
        #expect(bad?.code == SQLITE_ERROR)
        #expect(bad?.message.contains("syntax error") == true)
    }

    @Test func readOnlyConnectionCannotWrite() throws {
        let dir = Fixtures.temporaryDirectory("sqlite")
        let path = (dir + "/a.db")
        let writer = try SQLiteConnection(path: path)
        try writer.execute("CREATE TABLE t(v); INSERT INTO t VALUES (1)")
        let reader = try SQLiteConnection(path: path, mode: .readOnly)
        #expect(reader.isReadOnly)
        #expect(try reader.fetchAll("SELECT v FROM t") == [[.integer(1)]])
        let error = #expect(throws: SQLiteError.self) { try reader.execute("INSERT INTO t VALUES (2)") }
        #expect(error?.code == SQLITE_READONLY)
        // The reader sees later commits of the writer.
        try writer.execute("INSERT INTO t VALUES (3)")
        #expect(try reader.fetchAll("SELECT v FROM t ORDER BY v") == [[.integer(1)], [.integer(3)]])
    }

    @Test func openingAMissingFileReadOnlyFails() {
        let dir = Fixtures.temporaryDirectory("sqlite")
        let error = #expect(throws: SQLiteError.self) {
            try SQLiteConnection(path: (dir + "/missing.db"), mode: .readOnly)
        }
        #expect(error?.code == SQLITE_CANTOPEN)
        #expect(error?.message.contains("missing.db") == true)
    }

    @Test func authorizerDeniesWithSQLiteAuth() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        connection.setAuthorizer { $0.action == SQLITE_INSERT && $0.argument1 == "t" ? .deny : .allow }
        try connection.execute("CREATE TABLE t(v)")
        let error = #expect(throws: SQLiteError.self) { try connection.execute("INSERT INTO t VALUES (1)") }
        #expect(error?.code == SQLITE_AUTH)
        connection.setAuthorizer(nil)
        try connection.execute("INSERT INTO t VALUES (1)")
    }

    @Test func sharedDatabaseSerializesConcurrentUse() async throws {
        let dir = Fixtures.temporaryDirectory("sqlite")
        let database = try SQLiteDatabase(path: (dir + "/a.db"))
        try database.withConnection { try $0.execute("CREATE TABLE t(v INTEGER)") }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for i in 0..<25 {
                        try? database.withConnection { connection in
                            try connection.transaction {
                                try connection.execute("INSERT INTO t VALUES (?)", [.integer(Int64(task * 100 + i))])
                            }
                        }
                    }
                }
            }
        }
        let count = try database.withConnection { try $0.fetchOne("SELECT COUNT(DISTINCT v) FROM t")?.first }
        #expect(count == .integer(200))
    }
}
