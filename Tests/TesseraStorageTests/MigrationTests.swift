import Foundation
import Testing
import TesseraSDK
@testable import TesseraStorage

@Suite struct MigrationTests {
    let v1 = StorageMigration(version: 1, sql: "CREATE TABLE a(id TEXT PRIMARY KEY, x INTEGER)")
    let v2 = StorageMigration(version: 2, sql: "ALTER TABLE a ADD COLUMN y TEXT")
    let v3 = StorageMigration(version: 3, sql: "CREATE TABLE b(id TEXT PRIMARY KEY)")

    @Test func appliesAllInOrderAndRecordsThem() async throws {
        let fixture = try Fixture(migrate: false)
        #expect(fixture.storage.schemaVersion == 0)
        try fixture.storage.migrate([v1, v2, v3])
        #expect(fixture.storage.schemaVersion == 3)
        let recorded = try await fixture.rows("SELECT version, sql, applied_at FROM _tessera_migrations ORDER BY version")
        #expect(recorded.map { $0["version"] } == [.integer(1), .integer(2), .integer(3)])
        #expect(recorded[0]["sql"] == .text(v1.sql))
        #expect(recorded[0]["applied_at"] == .text("2026-03-02T08:00:00.000Z"))
        let columns = try await fixture.rows("SELECT name FROM pragma_table_info('a') ORDER BY cid").map { $0["name"] }
        #expect(columns == [.text("id"), .text("x"), .text("y")])
    }

    @Test func rerunAppliesOnlyWhatIsNewAndSurvivesReopen() throws {
        let dir = TempDirectory()
        let path = dir.file("p.sqlite")
        do {
            let storage = try SQLitePluginStorage(pluginID: "p", path: path, now: { Date() })
            try storage.migrate([v1])
            try storage.migrate([v1])  // idempotent: ALTER-free v1 would fail if run twice
        }
        let storage = try SQLitePluginStorage(pluginID: "p", path: path, now: { Date() })
        #expect(storage.schemaVersion == 1)
        try storage.migrate([v1, v2])
        #expect(storage.schemaVersion == 2)
        // v2 (ALTER TABLE ADD COLUMN) would fail if applied twice.
        try storage.migrate([v1, v2])
    }

    /// A start asks how many migrations are pending before it commits them; the answer comes from
    /// what the open read, and stays true after migrations run, after a reopen, and after a copy
    /// taken before a migration is put back (a swap taken back).
    @Test func pendingMigrationsStayTrueAcrossMigrateReopenAndRestore() throws {
        let dir = TempDirectory()
        let path = dir.file("p.sqlite")
        do {
            let storage = try SQLitePluginStorage(pluginID: "p", path: path, now: { Date() })
            #expect(try storage.pendingMigrations([v1, v2]) == 2)
            try storage.migrate([v1])
            #expect(try storage.pendingMigrations([v1, v2]) == 1)
            #expect(try storage.pendingMigrations([v1]) == 0)
        }
        let storage = try SQLitePluginStorage(pluginID: "p", path: path, now: { Date() })
        #expect(try storage.pendingMigrations([v1, v2, v3]) == 2)
        let before = try storage.snapshot()
        try storage.migrate([v1, v2, v3])
        #expect(try storage.pendingMigrations([v1, v2, v3]) == 0)
        try storage.restore(before)
        #expect(storage.schemaVersion == 1)
        #expect(try storage.pendingMigrations([v1, v2, v3]) == 2)
        // A step changed after it was applied is refused, from what the open read as well.
        let changed = StorageMigration(version: 1, sql: "CREATE TABLE a(id TEXT PRIMARY KEY)")
        #expect(throws: (any Error).self) { try storage.pendingMigrations([changed]) }
    }

    @Test func refusesGaps() throws {
        let fixture = try Fixture(migrate: false)
        let error = migrationError { try fixture.storage.migrate([v1, v3]) }
        #expect(error == .missingVersion(2, declaredUpTo: 3))
        #expect(error?.description.contains("version 2 is missing") == true)
        #expect(fixture.storage.schemaVersion == 0)  // nothing ran
    }

    @Test func refusesDuplicates() throws {
        let fixture = try Fixture(migrate: false)
        let error = migrationError { try fixture.storage.migrate([v1, v2, StorageMigration(version: 2, sql: "SELECT 1")]) }
        #expect(error == .duplicateVersion(2))
    }

    @Test func refusesOutOfOrderAndNonPositiveVersions() throws {
        let fixture = try Fixture(migrate: false)
        #expect(migrationError { try fixture.storage.migrate([v2, v1]) } == .outOfOrder(version: 2, position: 0))
        #expect(migrationError { try fixture.storage.migrate([StorageMigration(version: 0, sql: "SELECT 1")]) }
            == .invalidVersion(version: 0, position: 0))
        #expect(fixture.storage.schemaVersion == 0)
    }

    @Test func refusesAChangedAppliedMigrationNamingIt() throws {
        let fixture = try Fixture(migrate: false)
        try fixture.storage.migrate([v1, v2])
        let edited = StorageMigration(version: 2, sql: "ALTER TABLE a ADD COLUMN z TEXT")
        let error = migrationError { try fixture.storage.migrate([v1, edited, v3]) }
        #expect(error == .changedAfterApplied(version: 2))
        #expect(error?.description.contains("migration 2") == true)
        #expect(fixture.storage.schemaVersion == 2)  // v3 did not run either
    }

    @Test func refusesADatabaseAheadOfThePlugin() throws {
        let fixture = try Fixture(migrate: false)
        try fixture.storage.migrate([v1, v2])
        #expect(migrationError { try fixture.storage.migrate([v1]) } == .databaseAhead(applied: 2, known: 1))
    }

    @Test func failingStepRollsBackThatStepOnlyAndNamesItWithSQLitesMessage() async throws {
        let fixture = try Fixture(migrate: false)
        let broken = StorageMigration(version: 3, sql: "CREATE TABLE half(id TEXT PRIMARY KEY); CREATE TABLE oops(")
        let error = migrationError { try fixture.storage.migrate([v1, v2, broken]) }
        guard case .failed(let version, let message)? = error else {
            Issue.record("expected .failed, got \(String(describing: error))")
            return
        }
        #expect(version == 3)
        #expect(message.contains("syntax error") || message.contains("incomplete input"))
        #expect(error?.description.hasPrefix("migration 3 failed") == true)
        #expect(fixture.storage.schemaVersion == 2)
        // The first statement of the failed step was rolled back with it; earlier steps stay.
        #expect(try await fixture.rows("SELECT name FROM sqlite_schema WHERE name = 'half'").isEmpty)
        #expect(try await fixture.rows("SELECT version FROM _tessera_migrations").count == 2)
        // Fixed, it applies.
        try fixture.storage.migrate([v1, v2, StorageMigration(version: 3, sql: "CREATE TABLE half(id TEXT PRIMARY KEY)")])
        #expect(fixture.storage.schemaVersion == 3)
    }

    @Test func migrationSQLCannotTouchHostTablesAttachOrChangeSettings() throws {
        let fixture = try Fixture(migrate: false)
        let other = fixture.directory.file("other.sqlite")
        let attempts = [
            "DROP TABLE _tessera_changes",
            "DELETE FROM _tessera_change_batches",
            "DELETE FROM _tessera_migrations",
            "INSERT INTO _tessera_changes(batch, tbl, row_id, op, cells, at) VALUES (1, 'a', 'b', 'put', '{}', '')",
            "CREATE TABLE _tessera_mine(id TEXT PRIMARY KEY)",
            "ATTACH DATABASE '\(other)' AS other",
            "PRAGMA synchronous=OFF",
            "PRAGMA journal_mode=DELETE",
            "COMMIT",
        ]
        for sql in attempts {
            let error = migrationError { try fixture.storage.migrate([StorageMigration(version: 1, sql: sql)]) }
            guard case .failed(1, let message)? = error else {
                Issue.record("\(sql): expected .failed(1, …), got \(String(describing: error))")
                continue
            }
            #expect(message.contains("not allowed") || message.contains("belongs to the host") || message.contains("must not"),
                    "\(sql): \(message)")
        }
        #expect(!FileManager.default.fileExists(atPath: other))
        #expect(fixture.storage.schemaVersion == 0)
        // A migration may read pragmas and the host's tables.
        try fixture.storage.migrate([StorageMigration(version: 1, sql: """
            PRAGMA foreign_key_check;
            CREATE TABLE a(id TEXT PRIMARY KEY);
            INSERT INTO a SELECT 'seed-' || COUNT(*) FROM _tessera_changes;
            """)])
        #expect(fixture.storage.schemaVersion == 1)
    }

    @Test func tableShapesAreRereadAfterAMigration() async throws {
        let fixture = try Fixture(migrate: false)
        try fixture.storage.migrate([v1])
        try await fixture.storage.write { $0.put("a", id: "1", ["x": 1]) }
        let error = await pluginError { try await fixture.storage.write { $0.put("a", id: "2", ["y": "new"]) } }
        #expect(error?.field == "a.y")
        try fixture.storage.migrate([v1, v2])
        try await fixture.storage.write { $0.put("a", id: "2", ["y": "new"]) }
        #expect(try await fixture.rows("SELECT y FROM a WHERE id = '2'").first?["y"] == .text("new"))
    }

    @Test func aTableRebuildKeepsReferringRowsAndForeignKeysAreCheckedAtTheEnd() async throws {
        let f = try Fixture(migrate: false)
        let v1 = StorageMigration(version: 1, sql: """
            CREATE TABLE parents(id TEXT PRIMARY KEY, name TEXT);
            CREATE TABLE children(id TEXT PRIMARY KEY, parent_id TEXT REFERENCES parents(id) ON DELETE CASCADE);
            """)
        try f.storage.migrate([v1])
        try await f.storage.write {
            $0.put("parents", id: "p", ["name": "a"])
            $0.put("children", id: "c", ["parent_id": "p"])
        }
        // The 12-step rebuild: with foreign keys on, DROP TABLE parents would cascade to children.
        let v2 = StorageMigration(version: 2, sql: """
            CREATE TABLE parents_new(id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
            INSERT INTO parents_new SELECT id, COALESCE(name, '') FROM parents;
            DROP TABLE parents;
            ALTER TABLE parents_new RENAME TO parents;
            """)
        try f.storage.migrate([v1, v2])
        #expect(try await f.count("children") == 1)
        // A migration that leaves a dangling reference fails and is rolled back.
        let v3 = StorageMigration(version: 3, sql: "DELETE FROM parents")
        let error = migrationError { try f.storage.migrate([v1, v2, v3]) }
        #expect(error?.version == 3)
        #expect(error?.description.contains("children") == true)
        #expect(try await f.count("parents") == 1)
        // Foreign keys are enforced again for writes afterwards.
        let write = await pluginError { try await f.storage.write { $0.put("children", id: "d", ["parent_id": "nobody"]) } }
        #expect(write?.code == .invalidInput)
    }
}
