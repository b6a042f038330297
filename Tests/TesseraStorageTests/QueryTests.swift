import Foundation
import Testing
import TesseraSDK
import TesseraStorage

@Suite struct QueryTests {
    func seeded() async throws -> Fixture {
        let f = try Fixture()
        try await f.storage.write {
            $0.put("notes", id: "n1", ["title": "one", "stars": 1])
            $0.put("notes", id: "n2", ["title": "two", "stars": 2])
            $0.put("notes", id: "n3", ["title": "three", "stars": 3])
        }
        return f
    }

    @Test func selectsWithParametersAndReturnsColumnsInOrder() async throws {
        let f = try await seeded()
        let rows = try await f.storage.query("SELECT id, stars * 10 AS tens FROM notes WHERE stars >= ? ORDER BY id", [2])
        #expect(rows.map(\.columns) == [["id", "tens"], ["id", "tens"]])
        #expect(rows.map(\.values) == [[.text("n2"), .integer(20)], [.text("n3"), .integer(30)]])
        #expect(try await f.storage.query("SELECT SUM(stars) AS s, AVG(stars) AS a FROM notes").first?.values
            == [.integer(6), .real(2.0)])
        // CTEs, window functions and the JSON functions: SQL's full power for reports.
        let ranked = try await f.storage.query("""
            WITH s AS (SELECT id, stars FROM notes)
            SELECT id, RANK() OVER (ORDER BY stars DESC) AS r, json_object('id', id) AS j FROM s ORDER BY r LIMIT 1
            """)
        #expect(ranked.first?.values == [.text("n3"), .integer(1), .text(#"{"id":"n3"}"#)])
    }

    @Test func seesEveryAcknowledgedWrite() async throws {
        let f = try await seeded()
        #expect(try await f.count("notes") == 3)
        try await f.storage.write { $0.delete("notes", id: "n1") }
        #expect(try await f.count("notes") == 2)
    }

    @Test func writesThroughQueryAreForbidden() async throws {
        let f = try await seeded()
        for sql in [
            "INSERT INTO notes(id, title) VALUES ('x', 'y')",
            "UPDATE notes SET title = 'z'",
            "DELETE FROM notes",
            "REPLACE INTO notes(id) VALUES ('n1')",
            "CREATE TABLE evil(id TEXT)",
            "CREATE TEMP TABLE scratch(id TEXT)",
            "DROP TABLE notes",
            "ALTER TABLE notes ADD COLUMN x",
            "CREATE INDEX i ON notes(title)",
            "DELETE FROM _tessera_changes",
            "DELETE FROM _tessera_change_batches",
            "VACUUM",
            "VACUUM INTO '\(f.directory.file("copy.sqlite"))'",
            "REINDEX",
            "ANALYZE",
            "BEGIN",
            "SAVEPOINT s",
        ] {
            let error = await pluginError { _ = try await f.storage.query(sql, []) }
            #expect(error?.code == .forbidden, "\(sql): \(String(describing: error))")
        }
        #expect(try await f.count("notes") == 3)
        #expect(!FileManager.default.fileExists(atPath: f.directory.file("copy.sqlite")))
        // The read connection is not left inside a transaction: later writes are seen.
        try await f.storage.write { $0.put("notes", id: "n4", [:]) }
        #expect(try await f.count("notes") == 4)
    }

    @Test func anotherPluginsDatabaseCannotBeReachedBySQL() async throws {
        // Plugin B's database, next to A's.
        let dir = TempDirectory("two-plugins")
        let bPath = dir.file("b/b.sqlite")
        let b = try SQLitePluginStorage(pluginID: "b", path: bPath, now: { Date() })
        try b.migrate([StorageMigration(version: 1, sql: "CREATE TABLE secrets(id TEXT PRIMARY KEY, v TEXT)")])
        try await b.write { $0.put("secrets", id: "s", ["v": "B's secret"]) }
        let a = try SQLitePluginStorage(pluginID: "a", path: dir.file("a/a.sqlite"), now: { Date() })
        try a.migrate([StorageMigration(version: 1, sql: "CREATE TABLE notes(id TEXT PRIMARY KEY)")])

        for sql in [
            "ATTACH DATABASE '\(bPath)' AS b",
            "ATTACH '\(bPath)' AS b",
            "ATTACH 'file:\(bPath)?mode=ro' AS b",
            "SELECT v FROM b.secrets",
            "SELECT * FROM main.notes, b.secrets",
            "DETACH DATABASE b",
            "SELECT load_extension('/usr/lib/x86_64-linux-gnu/libsqlite3.so.0')",
        ] {
            let error = await pluginError { _ = try await a.query(sql, []) }
            #expect(error?.code == .forbidden, "\(sql): \(String(describing: error))")
        }
        // A migration cannot attach it either.
        let migration = migrationError {
            try a.migrate([StorageMigration(version: 1, sql: "CREATE TABLE notes(id TEXT PRIMARY KEY)"),
                           StorageMigration(version: 2, sql: "ATTACH DATABASE '\(bPath)' AS b; CREATE TABLE stolen AS SELECT * FROM b.secrets")])
        }
        #expect(migration?.version == 2)
        #expect(try await a.query("SELECT COUNT(*) AS n FROM sqlite_schema WHERE name = 'stolen'").first?["n"] == .integer(0))
        #expect(try await a.query("SELECT COUNT(*) AS n FROM pragma_database_list").first?["n"] == .integer(1))
    }

    @Test func moreThanOneStatementIsInvalidInput() async throws {
        let f = try await seeded()
        for sql in ["SELECT 1; SELECT 2", "SELECT 1; DELETE FROM notes", "SELECT 1;;SELECT 2", "SELECT 1; ATTACH 'x' AS x"] {
            let error = await pluginError { _ = try await f.storage.query(sql, []) }
            #expect(error?.code == .invalidInput, "\(sql)")
            #expect(error?.message.contains("one SQL statement") == true)
        }
        #expect(try await f.count("notes") == 3)
        // A trailing semicolon or comment is still one statement.
        #expect(try await f.storage.query("SELECT 1 AS one; -- done", []).first?["one"] == .integer(1))
        #expect(await pluginError { _ = try await f.storage.query("  ", []) }?.code == .invalidInput)
    }

    @Test func pragmasThatWriteAreForbiddenAndReadingOnesAllowed() async throws {
        let f = try await seeded()
        for sql in [
            "PRAGMA journal_mode=DELETE",
            "PRAGMA synchronous=OFF",
            "PRAGMA query_only=0",
            "PRAGMA user_version=7",
            "PRAGMA foreign_keys=OFF",
            "PRAGMA writable_schema=ON",
            "PRAGMA wal_checkpoint(TRUNCATE)",
            "PRAGMA wal_checkpoint",
            "PRAGMA optimize",
            "PRAGMA main.cache_size=10",
            "PRAGMA trusted_schema=ON",
        ] {
            let error = await pluginError { _ = try await f.storage.query(sql, []) }
            #expect(error?.code == .forbidden, "\(sql): \(String(describing: error))")
        }
        let info = try await f.storage.query("PRAGMA table_info(notes)", [])
        #expect(info.map { $0["name"] }.prefix(2) == [.text("id"), .text("title")])
        let viaFunction = try await f.storage.query("SELECT name FROM pragma_table_info('notes') WHERE pk = 1", [])
        #expect(viaFunction.first?["name"] == .text("id"))
        #expect(try await f.storage.query("PRAGMA user_version", []).first?.values == [.integer(0)])
        #expect(try await f.storage.query("PRAGMA index_list(tags)", []).count == 2)
        // Even reading journal_mode is not read-only to SQLite (sqlite3_stmt_readonly), so it is refused.
        #expect(await pluginError { _ = try await f.storage.query("PRAGMA journal_mode", []) }?.code == .forbidden)
        // The settings did not change under the refused attempts.
        #expect(try f.storage.changes(after: 0, limit: 10).count == 3)
    }

    @Test func sqlThatDoesNotCompileIsInvalidInputWithSQLitesMessage() async throws {
        let f = try await seeded()
        let syntax = await pluginError { _ = try await f.storage.query("SELEC * FROM notes", []) }
        #expect(syntax?.code == .invalidInput)
        #expect(syntax?.message.contains("syntax error") == true)
        let table = await pluginError { _ = try await f.storage.query("SELECT * FROM nonexistent", []) }
        #expect(table?.code == .invalidInput)
        #expect(table?.message == "no such table: nonexistent")
        let column = await pluginError { _ = try await f.storage.query("SELECT titel FROM notes", []) }
        #expect(column?.message == "no such column: titel")
    }

    @Test func parameterCountMustMatch() async throws {
        let f = try await seeded()
        let few = await pluginError { _ = try await f.storage.query("SELECT * FROM notes WHERE id = ? AND stars = ?", ["n1"]) }
        #expect(few?.code == .invalidInput)
        let many = await pluginError { _ = try await f.storage.query("SELECT 1", [1]) }
        #expect(many?.code == .invalidInput)
    }

    @Test func theHostsTablesAreReadable() async throws {
        let f = try await seeded()
        #expect(try await f.count("_tessera_change_batches") == 1)  // the change log: one row per batch
        #expect(try await f.count("_tessera_changes") == 0)  // the log of before the schema's version 2
        #expect(try await f.count("_tessera_migrations") == 2)
    }
}
