import CSQLite
import Foundation
import Testing
import TesseraSQLite
import TesseraTestFixtures

/// The rules of the host stores' migrator (`SQLiteConnection.migrate(_:)`, docs/storage.md "The
/// host's own stores") on real SQLite files.
@Suite struct StoreMigrationTests {
    static let v1 = StoreMigration(version: 1, sql: "CREATE TABLE IF NOT EXISTS a(id INTEGER PRIMARY KEY, x TEXT)")
    static let v2 = StoreMigration(version: 2, sql: "ALTER TABLE a ADD COLUMN y TEXT")
    static let v3 = StoreMigration(version: 3, sql: "CREATE TABLE b(id INTEGER PRIMARY KEY, a INTEGER REFERENCES a(id))")

    static func schema(_ migrations: [StoreMigration], store: String = "test") -> StoreSchema {
        StoreSchema(store: store, migrations: migrations)
    }

    static func newFile() -> String { Fixtures.temporaryDirectory("store-migrations") + "/store.sqlite" }

    /// The versions recorded for `store`, in order, with their SQL.
    static func records(_ connection: SQLiteConnection, store: String = "test") throws -> [(Int, String)] {
        try connection.fetchAll("SELECT version, sql FROM _tessera_schema WHERE store = ? ORDER BY version", [.text(store)])
            .map { (Int($0[0].integer ?? 0), $0[1].text ?? "") }
    }

    static func columns(_ connection: SQLiteConnection, of table: String) throws -> [String] {
        try connection.fetchAll("SELECT name FROM pragma_table_info(?)", [.text(table)]).map { $0[0].text ?? "" }
    }

    static func problem(_ body: () throws -> Void) -> StoreMigrationError.Problem? {
        do { try body() } catch let error as StoreMigrationError { return error.problem } catch { return nil }
        return nil
    }

    @Test func stepsRunInOrderEachRecordedWithItsSQL() throws {
        let db = try SQLiteConnection(path: Self.newFile())
        #expect(try db.migrate(Self.schema([Self.v1, Self.v2])) == 2)
        #expect(try Self.records(db).map(\.0) == [1, 2])
        #expect(try Self.records(db).map(\.1) == [Self.v1.sql, Self.v2.sql])
        #expect(try Self.columns(db, of: "a") == ["id", "x", "y"])
    }

    /// The pages a migration wrote are given back by the connection's page cache: a first start
    /// of `tessera serve` creates a dozen stores, and their caches held what it wrote.
    @Test func theConnectionKeepsNoPageAMigrationWrote() throws {
        let fill = StoreMigration(version: 1, sql: """
            CREATE TABLE big(id INTEGER PRIMARY KEY, payload BLOB);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
            INSERT INTO big(payload) SELECT randomblob(1000) FROM n;
            """)
        let migrated = try SQLiteConnection(path: Self.newFile())
        try migrated.migrate(Self.schema([fill]))
        // The same statements run without the migrator keep their pages in the cache.
        let plain = try SQLiteConnection(path: Self.newFile())
        try plain.execute(fill.sql)
        let pageSize = try #require(try plain.fetchOne("PRAGMA page_size")?.first?.integer)
        #expect(try Self.cacheUsed(plain) > 50 * Int(pageSize))
        #expect(try Self.cacheUsed(migrated) < 5 * Int(pageSize))
        // And the migrated store reads as written.
        #expect(try migrated.fetchOne("SELECT count(*) FROM big")?.first?.integer == 400)
    }

    /// The bytes of page-cache memory the connection holds (`SQLITE_DBSTATUS_CACHE_USED`).
    static func cacheUsed(_ connection: SQLiteConnection) throws -> Int {
        var current: Int32 = 0, highest: Int32 = 0
        try #require(sqlite3_db_status(connection.handle, SQLITE_DBSTATUS_CACHE_USED, &current, &highest, 0) == SQLITE_OK)
        return Int(current)
    }

    @Test func reopeningAnUpToDateStoreRunsNothingAndDoesNotWrite() throws {
        let path = Self.newFile()
        try SQLiteConnection(path: path).migrate(Self.schema([Self.v1, Self.v2]))
        // v2 (ADD COLUMN) would fail if it ran again; a read-only connection cannot write at all.
        let again = try SQLiteConnection(path: path)
        #expect(try again.migrate(Self.schema([Self.v1, Self.v2])) == 2)
        let readOnly = try SQLiteConnection(path: path, mode: .readOnly)
        #expect(try readOnly.migrate(Self.schema([Self.v1, Self.v2])) == 2)
        #expect(try Self.records(again).map(\.0) == [1, 2])
    }

    @Test func laterStepsRunOnAnOlderDatabaseAndKeepItsRows() throws {
        let path = Self.newFile()
        let db = try SQLiteConnection(path: path)
        try db.migrate(Self.schema([Self.v1]))
        try db.execute("INSERT INTO a(id, x) VALUES (1, 'kept')")
        #expect(try db.migrate(Self.schema([Self.v1, Self.v2, Self.v3])) == 3)
        #expect(try Self.records(db).map(\.0) == [1, 2, 3])
        #expect(try db.fetchOne("SELECT x, y FROM a WHERE id = 1") == [.text("kept"), .null])
    }

    @Test func aMalformedListIsRefusedBeforeAnythingRuns() throws {
        let db = try SQLiteConnection(path: Self.newFile())
        #expect(Self.problem { try db.migrate(Self.schema([Self.v1, Self.v3])) } == .missingVersion(2, declaredUpTo: 3))
        #expect(Self.problem { try db.migrate(Self.schema([Self.v2, Self.v1])) } == .outOfOrder(version: 2, position: 0))
        #expect(Self.problem { try db.migrate(Self.schema([Self.v1, Self.v1])) } == .duplicateVersion(1))
        #expect(Self.problem { try db.migrate(Self.schema([StoreMigration(version: 0, sql: "SELECT 1")])) }
                == .invalidVersion(version: 0, position: 0))
        #expect(try !db.tableExists("_tessera_schema"))
        #expect(try !db.tableExists("a"))
    }

    @Test func aDatabaseAheadOfTheCodeIsRefusedNamingStoreFileAndBothVersions() throws {
        let path = Self.newFile()
        let db = try SQLiteConnection(path: path)
        try db.migrate(Self.schema([Self.v1, Self.v2, Self.v3], store: "notifications"))
        do {
            try db.migrate(Self.schema([Self.v1], store: "notifications"))
            Issue.record("an older list opened a newer database")
        } catch let error as StoreMigrationError {
            #expect(error.problem == .databaseAhead(applied: 3, known: 1))
            #expect(error.description.contains("the notifications store in \(path) is at schema version 3"))
            #expect(error.description.contains("knows versions up to 1"))
        }
    }

    @Test func anAppliedStepWhoseSQLChangedIsRefused() throws {
        let db = try SQLiteConnection(path: Self.newFile())
        try db.migrate(Self.schema([Self.v1, Self.v2]))
        let edited = StoreMigration(version: 2, sql: "ALTER TABLE a ADD COLUMN z TEXT")
        #expect(Self.problem { try db.migrate(Self.schema([Self.v1, edited, Self.v3])) } == .changedAfterApplied(version: 2))
        #expect(try !db.tableExists("b"), "nothing ran after the refusal")
    }

    @Test func aFailingStepIsRolledBackWholeTheEarlierStepsStayAndTheNextOpenResumes() throws {
        let db = try SQLiteConnection(path: Self.newFile())
        // The first statement works, the second fails: neither may remain.
        let failing = StoreMigration(version: 2, sql: "ALTER TABLE a ADD COLUMN z TEXT; INSERT INTO no_such_table VALUES (1)")
        do {
            try db.migrate(Self.schema([Self.v1, failing]))
            Issue.record("a failing step succeeded")
        } catch let error as StoreMigrationError {
            guard case .failed(let version, let message) = error.problem else { Issue.record("\(error)"); return }
            #expect(version == 2)
            #expect(message.contains("no such table: no_such_table"))
        }
        #expect(try Self.columns(db, of: "a") == ["id", "x"])
        #expect(try Self.records(db).map(\.0) == [1])
        #expect(try db.migrate(Self.schema([Self.v1, Self.v2])) == 2)
        #expect(try Self.columns(db, of: "a") == ["id", "x", "y"])
    }

    @Test func aStepThatLeavesADanglingReferenceIsRolledBack() throws {
        let db = try SQLiteConnection(path: Self.newFile())
        let dangling = StoreMigration(version: 2, sql: """
            CREATE TABLE c(id INTEGER PRIMARY KEY, a INTEGER NOT NULL REFERENCES a(id));
            INSERT INTO c(id, a) VALUES (1, 42)
            """)
        #expect({ if case .failed(2, _)? = Self.problem({ try db.migrate(Self.schema([Self.v1, dangling])) }) { true } else { false } }())
        #expect(try !db.tableExists("c"))
        #expect(try db.fetchOne("PRAGMA foreign_keys") == [.integer(1)], "foreign keys are on again after the steps")
    }

    @Test func storesInOneFileKeepTheirOwnVersions() throws {
        let db = try SQLiteConnection(path: Self.newFile())
        try db.migrate(Self.schema([Self.v1, Self.v2], store: "one"))
        let other = StoreSchema(store: "two", migrations: [StoreMigration(version: 1, sql: "CREATE TABLE IF NOT EXISTS t2(id INTEGER PRIMARY KEY)")])
        #expect(try db.migrate(other) == 1)
        #expect(try Self.records(db, store: "one").map(\.0) == [1, 2])
        #expect(try Self.records(db, store: "two").map(\.0) == [1])
    }

    @Test func namedParametersAreBoundFromTheStore() throws {
        let db = try SQLiteConnection(path: Self.newFile())
        let stamp = StoreMigration(version: 2, sql: "INSERT INTO a(id, x) VALUES (1, :now_ms)")
        try db.migrate(Self.schema([Self.v1, stamp]), parameters: ["now_ms": .integer(1234)])
        #expect(try db.fetchOne("SELECT x FROM a") == [.text("1234")])
        let unbound = try SQLiteConnection(path: Self.newFile())
        #expect({ if case .failed(2, _)? = Self.problem({ try unbound.migrate(Self.schema([Self.v1, stamp])) }) { true } else { false } }(),
                "a parameter without a value fails the step instead of writing NULL")
    }

    @Test func aLegacyVersionIsRecordedWithoutRunningItsSteps() throws {
        let db = try SQLiteConnection(path: Self.newFile())
        // A database written before versioning at "version 2": a has y already, so v2 must not run.
        try db.execute("CREATE TABLE a(id INTEGER PRIMARY KEY, x TEXT, y TEXT); PRAGMA user_version = 2")
        let schema = StoreSchema(store: "test", migrations: [Self.v1, Self.v2, Self.v3]) { connection in
            Int(try connection.fetchOne("PRAGMA user_version")?.first?.integer ?? 0)
        }
        #expect(try db.migrate(schema) == 3)
        #expect(try Self.records(db).map(\.0) == [1, 2, 3])
        #expect(try db.tableExists("b"))
    }

    @Test func aVersionFirstUsedOnADatabaseOfTheCurrentReleaseIsSafe() throws {
        // Version 1 of every store is CREATE … IF NOT EXISTS: on a file that already has the
        // tables, it records version 1 and keeps the rows.
        let db = try SQLiteConnection(path: Self.newFile())
        try db.execute("CREATE TABLE a(id INTEGER PRIMARY KEY, x TEXT); INSERT INTO a VALUES (1, 'old')")
        #expect(try db.migrate(Self.schema([Self.v1])) == 1)
        #expect(try db.fetchOne("SELECT x FROM a WHERE id = 1") == [.text("old")])
    }
}
