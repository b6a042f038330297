import Foundation
import Testing
import TesseraSDK
import TesseraStorage

@Suite struct RecordAPITests {
    @Test func putInsertsThenReplacesTheWholeRow() async throws {
        let f = try Fixture()
        try await f.storage.write { $0.put("notes", id: "n1", ["title": "Hello", "body": "first", "stars": 3]) }
        var row = try await f.rows("SELECT * FROM notes WHERE id = 'n1'").first
        #expect(row?["title"] == .text("Hello"))
        #expect(row?["body"] == .text("first"))
        #expect(row?["stars"] == .integer(3))
        // A put replaces the row whole: columns not given go back to their defaults.
        try await f.storage.write { $0.put("notes", id: "n1", ["body": "second"]) }
        row = try await f.rows("SELECT * FROM notes WHERE id = 'n1'").first
        #expect(row?["title"] == .text("untitled"))
        #expect(row?["body"] == .text("second"))
        #expect(row?["stars"] == .null)
        #expect(try await f.count("notes") == 1)
    }

    @Test func putKeepsEveryStorageClass() async throws {
        let f = try Fixture()
        try await f.storage.write {
            $0.put("notes", id: "n1", ["title": "", "body": nil, "stars": .integer(.max), "score": 2.5, "data": .blob([0, 255])])
        }
        let row = try await f.storage.query("SELECT title, body, stars, score, data FROM notes").first
        #expect(row?.values == [.text(""), .null, .integer(.max), .real(2.5), .blob([0, 255])])
    }

    @Test func putUpdatesInPlaceWithoutDeletingTheOldRow() async throws {
        // An INSERT OR REPLACE would delete and re-insert the row: firing delete triggers, running
        // ON DELETE CASCADE on the rows that refer to it, and silently deleting any other row that
        // clashes on a UNIQUE column.
        let f = try Fixture(migrate: false)
        try f.storage.migrate([StorageMigration(version: 1, sql: """
            CREATE TABLE parents(id TEXT PRIMARY KEY, name TEXT, email TEXT UNIQUE);
            CREATE TABLE children(id TEXT PRIMARY KEY, parent_id TEXT REFERENCES parents(id) ON DELETE CASCADE);
            CREATE TABLE deletions(id TEXT PRIMARY KEY);
            CREATE TRIGGER parents_deleted AFTER DELETE ON parents BEGIN INSERT INTO deletions VALUES (old.id); END;
            """)])
        try await f.storage.write {
            $0.put("parents", id: "p1", ["name": "a", "email": "a@example.org"])
            $0.put("parents", id: "p2", ["name": "b", "email": "b@example.org"])
            $0.put("children", id: "c1", ["parent_id": "p1"])
        }
        try await f.storage.write { $0.put("parents", id: "p1", ["name": "a2", "email": "a@example.org"]) }
        #expect(try await f.count("children") == 1)
        #expect(try await f.count("deletions") == 0)
        // Taking p2's email is a conflict, not a silent delete of p2.
        let clash = await pluginError { try await f.storage.write { $0.put("parents", id: "p1", ["email": "b@example.org"]) } }
        #expect(clash?.code == .conflict)
        #expect(try await f.count("parents") == 2)
    }

    @Test func patchSetsOnlyTheGivenColumns() async throws {
        let f = try Fixture()
        try await f.storage.write { $0.put("notes", id: "n1", ["title": "Hello", "body": "text", "stars": 1]) }
        try await f.storage.write { $0.patch("notes", id: "n1", ["stars": 5]) }
        let row = try await f.rows("SELECT title, body, stars FROM notes WHERE id = 'n1'").first
        #expect(row == ["title": .text("Hello"), "body": .text("text"), "stars": .integer(5)])
    }

    @Test func patchOfAMissingRowIsNotFoundAndRollsBackTheWholeBatch() async throws {
        let f = try Fixture()
        try await f.storage.write { $0.put("notes", id: "keep", ["title": "kept"]) }
        let logBefore = try f.storage.changes(after: 0, limit: 100).count
        let error = await pluginError {
            try await f.storage.write {
                $0.put("notes", id: "n2", ["title": "new"])
                $0.patch("notes", id: "keep", ["title": "changed"])
                $0.delete("notes", id: "keep")
                $0.patch("notes", id: "ghost", ["title": "boo"])
            }
        }
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("notes") == true)
        #expect(error?.message.contains("ghost") == true)
        #expect(error?.field == "notes.id")
        // Nothing of the batch is visible: not the put, not the patch, not the delete.
        #expect(try await f.rows("SELECT id, title FROM notes ORDER BY id") == [["id": .text("keep"), "title": .text("kept")]])
        #expect(try f.storage.changes(after: 0, limit: 100).count == logBefore)
    }

    @Test func deleteRemovesTheRowAndAMissingRowIsFine() async throws {
        let f = try Fixture()
        try await f.storage.write {
            $0.put("notes", id: "n1", ["title": "a"])
            $0.put("notes", id: "n2", ["title": "b"])
        }
        try await f.storage.write {
            $0.delete("notes", id: "n1")
            $0.delete("notes", id: "never-existed")
        }
        #expect(try await f.rows("SELECT id FROM notes") == [["id": .text("n2")]])
    }

    @Test func changesApplyInOrderWithinABatch() async throws {
        let f = try Fixture()
        try await f.storage.write {
            $0.put("notes", id: "n1", ["title": "a"])
            $0.patch("notes", id: "n1", ["title": "b"])
            $0.put("notes", id: "n2", ["title": "c"])
            $0.delete("notes", id: "n2")
        }
        #expect(try await f.rows("SELECT id, title FROM notes") == [["id": .text("n1"), "title": .text("b")]])
    }

    @Test func mixedShapesInOneBatchEachGetTheirOwnStatement() async throws {
        let f = try Fixture()
        try await f.storage.write {
            $0.put("notes", id: "a", ["title": "A", "stars": 1])
            $0.put("notes", id: "b", ["title": "B"])
            $0.put("tags", id: "t", ["label": "x", "note_id": "a"])
            $0.put("notes", id: "c", ["stars": 3])
            $0.patch("notes", id: "a", ["stars": 2])
            $0.patch("notes", id: "b", ["title": "B2", "body": "text"])
            $0.put("notes", id: "d", ["title": "D", "stars": 4])
        }
        let rows = try await f.rows("SELECT id, title, body, stars FROM notes ORDER BY id")
        #expect(rows == [
            ["id": .text("a"), "title": .text("A"), "body": .null, "stars": .integer(2)],
            ["id": .text("b"), "title": .text("B2"), "body": .text("text"), "stars": .null],
            ["id": .text("c"), "title": .text("untitled"), "body": .null, "stars": .integer(3)],
            ["id": .text("d"), "title": .text("D"), "body": .null, "stars": .integer(4)],
        ])
        #expect(try await f.rows("SELECT label FROM tags WHERE id = 't'") == [["label": .text("x")]])
    }

    @Test func adjacentChangesNamingOtherColumnsEachBindTheirOwn() async throws {
        // Each change as many columns as the one before but other ones (a row's names are looked
        // for among the row before's first): each must run its own statement with its own values.
        let f = try Fixture()
        try await f.storage.write {
            $0.put("notes", id: "a", ["title": "A"])
            $0.put("notes", id: "b", ["stars": 2])
            $0.put("notes", id: "c", ["body": "C", "stars": 3])
            $0.put("notes", id: "d", ["stars": 4, "title": "D"])
            $0.patch("notes", id: "a", ["body": "a"])
            $0.patch("notes", id: "b", ["title": "B"])
        }
        let rows = try await f.rows("SELECT id, title, body, stars FROM notes ORDER BY id")
        #expect(rows == [
            ["id": .text("a"), "title": .text("A"), "body": .text("a"), "stars": .null],
            ["id": .text("b"), "title": .text("B"), "body": .null, "stars": .integer(2)],
            ["id": .text("c"), "title": .text("untitled"), "body": .text("C"), "stars": .integer(3)],
            ["id": .text("d"), "title": .text("D"), "body": .null, "stars": .integer(4)],
        ])
    }

    @Test func aColumnGivenTwiceIsRefusedWhereTheRowBeforeGaveItOnce() async throws {
        let f = try Fixture()
        let twice = await pluginError {
            try await f.storage.write {
                $0.put("notes", id: "n1", ["title": "a", "stars": 1])
                $0.put("notes", id: "n2", ["title": "b", "TITLE": "c"])
            }
        }
        #expect(twice?.code == .invalidInput)
        #expect(twice?.field == "notes.title")
        #expect(try await f.count("notes") == 0)
    }

    @Test func unknownTableIsInvalidInputNamingIt() async throws {
        let f = try Fixture()
        let error = await pluginError { try await f.storage.write { $0.put("nope", id: "1", [:]) } }
        #expect(error?.code == .invalidInput)
        #expect(error?.field == "nope")
        #expect(error?.message.contains("nope") == true)
    }

    @Test func unknownColumnIsInvalidInputNamingTableAndColumn() async throws {
        let f = try Fixture()
        try await f.storage.write { $0.put("notes", id: "n1", ["title": "a"]) }
        for change in [RecordChange.put(table: "notes", id: "n1", values: ["titel": "x"]),
                       RecordChange.patch(table: "notes", id: "n1", values: ["titel": "x"])] {
            var batch = WriteBatch()
            switch change {
            case .put(let t, let i, let v): batch.put(t, id: i, v)
            case .patch(let t, let i, let v): batch.patch(t, id: i, v)
            default: break
            }
            let error = await pluginError { try await f.storage.write(batch) }
            #expect(error?.code == .invalidInput)
            #expect(error?.field == "notes.titel")
        }
        #expect(try await f.rows("SELECT title FROM notes").first?["title"] == .text("a"))
    }

    @Test func validationHappensBeforeAnythingIsWritten() async throws {
        let f = try Fixture()
        let error = await pluginError {
            try await f.storage.write {
                $0.put("notes", id: "n1", ["title": "a"])
                $0.put("notes", id: "n2", ["bogus": 1])
            }
        }
        #expect(error?.field == "notes.bogus")
        #expect(try await f.count("notes") == 0)
        #expect(try f.storage.changes(after: 0, limit: 10).isEmpty)
    }

    @Test func internalTablesCannotBeWritten() async throws {
        let f = try Fixture()
        for table in ["_tessera_changes", "_tessera_change_batches", "_tessera_migrations", "_TESSERA_changes", "sqlite_schema", "sqlite_sequence"] {
            let error = await pluginError { try await f.storage.write { $0.delete(table, id: "1") } }
            #expect(error?.code == .invalidInput, "\(table)")
            #expect(error?.field == table)
            #expect(error?.message.contains("internal") == true)
        }
    }

    @Test func tablesWithoutATextIDPrimaryKeyAreRefused() async throws {
        let f = try Fixture(migrate: false)
        try f.storage.migrate([StorageMigration(version: 1, sql: """
            CREATE TABLE no_id(key TEXT PRIMARY KEY, v TEXT);
            CREATE TABLE int_id(id INTEGER PRIMARY KEY, v TEXT);
            CREATE TABLE not_key(id TEXT, v TEXT);
            CREATE TABLE composite(id TEXT, v TEXT, PRIMARY KEY (id, v));
            CREATE TABLE fine(id VARCHAR(36) PRIMARY KEY NOT NULL, v TEXT) WITHOUT ROWID;
            CREATE VIEW a_view AS SELECT * FROM fine;
            """)])
        for (table, field) in [("no_id", "no_id"), ("int_id", "int_id.id"), ("not_key", "not_key.id"),
                               ("composite", "composite.id"), ("a_view", "a_view")] {
            let error = await pluginError { try await f.storage.write { $0.put(table, id: "1", ["v": "x"]) } }
            #expect(error?.code == .invalidInput, "\(table)")
            #expect(error?.field == field, "\(table)")
        }
        try await f.storage.write { $0.put("fine", id: "1", ["v": "x"]) }
        #expect(try await f.count("fine") == 1)
    }

    @Test func namesAreCaseInsensitiveLikeSQLite() async throws {
        let f = try Fixture()
        try await f.storage.write { $0.put("Notes", id: "n1", ["Title": "a", "ID": "n1"]) }
        #expect(try await f.rows("SELECT title FROM notes").first?["title"] == .text("a"))
        let twice = await pluginError { try await f.storage.write { $0.put("notes", id: "n1", ["title": "a", "TITLE": "b"]) } }
        #expect(twice?.code == .invalidInput)
        let otherID = await pluginError { try await f.storage.write { $0.put("notes", id: "n1", ["id": "n2"]) } }
        #expect(otherID?.field == "notes.id")
        let emptyID = await pluginError { try await f.storage.write { $0.put("notes", id: "", [:]) } }
        #expect(emptyID?.field == "notes.id")
    }

    @Test func constraintViolationsRollBackAndNameTheColumn() async throws {
        let f = try Fixture()
        try await f.storage.write { $0.put("notes", id: "n1", [:]) }
        let notNull = await pluginError {
            try await f.storage.write {
                $0.put("notes", id: "n2", [:])
                $0.patch("notes", id: "n1", ["title": nil])
            }
        }
        #expect(notNull?.code == .invalidInput)
        #expect(notNull?.field == "notes.title")
        #expect(try await f.count("notes") == 1)

        try await f.storage.write { $0.put("tags", id: "t1", ["label": "x"]) }
        let unique = await pluginError { try await f.storage.write { $0.put("tags", id: "t2", ["label": "x"]) } }
        #expect(unique?.code == .conflict)
        #expect(unique?.field == "tags.label")

        let foreign = await pluginError { try await f.storage.write { $0.put("tags", id: "t3", ["note_id": "nope"]) } }
        #expect(foreign?.code == .invalidInput)
        #expect(try await f.count("tags") == 1)
    }

    @Test func emptyBatchIsANoOp() async throws {
        let f = try Fixture()
        try await f.storage.write(WriteBatch())
        try f.storage.writeBlocking(WriteBatch())
        #expect(try f.storage.changes(after: 0, limit: 10).isEmpty)
        // Not even a table check happens: nothing is named.
    }

    @Test func triggersOfThePluginCannotWriteHostTables() async throws {
        let f = try Fixture(migrate: false)
        try f.storage.migrate([StorageMigration(version: 1, sql: """
            CREATE TABLE a(id TEXT PRIMARY KEY, v TEXT);
            CREATE TABLE audit(id TEXT PRIMARY KEY, v TEXT);
            CREATE TRIGGER a_audit AFTER INSERT ON a BEGIN INSERT INTO audit VALUES (new.id, new.v); END;
            CREATE TRIGGER a_forge AFTER DELETE ON a BEGIN DELETE FROM _tessera_changes; END;
            """)])
        try await f.storage.write { $0.put("a", id: "1", ["v": "x"]) }  // its own tables: fine
        #expect(try await f.count("audit") == 1)
        let error = await pluginError { try await f.storage.write { $0.delete("a", id: "1") } }
        #expect(error?.code == .forbidden)
        #expect(error?.message.contains("_tessera_changes") == true)
        #expect(try await f.count("a") == 1)
        #expect(try f.storage.changes(after: 0, limit: 10).count == 1)
    }

    @Test func writesSurviveReopening() async throws {
        let dir = TempDirectory()
        let path = dir.file("deep/er/p.sqlite")
        do {
            let storage = try SQLitePluginStorage(pluginID: "p", path: path, now: { Date() })
            try storage.migrate(Fixture.migrations)
            try await storage.write { $0.put("notes", id: "n1", ["title": "durable"]) }
        }
        let storage = try SQLitePluginStorage(pluginID: "p", path: URL(fileURLWithPath: path), now: { Date() })
        #expect(storage.schemaVersion == 2)
        #expect(try await storage.query("SELECT title FROM notes").first?["title"] == .text("durable"))
    }

    @Test func concurrentWritersAllLand() async throws {
        let f = try Fixture()
        let storage = f.storage
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for i in 0..<10 {
                        try await storage.write { $0.put("notes", id: "t\(task)-\(i)", ["stars": .integer(Int64(i))]) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await f.count("notes") == 80)
        let log = try storage.changes(after: 0, limit: 1000)
        #expect(log.count == 80)
        #expect(Set(log.map(\.batch)).count == 80)
    }
}
