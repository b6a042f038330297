import Foundation
import Testing
import TesseraSDK
@testable import TesseraStorage

@Suite struct ChangeLogTests {
    @Test func everyAppliedChangeIsLoggedInOrderWithItsBatchCellsAndTime() async throws {
        let f = try Fixture()
        try await f.storage.write {
            $0.put("notes", id: "n1", ["title": "a", "stars": 2, "score": 1.0, "data": .blob([1, 2, 3]), "body": nil])
            $0.put("notes", id: "n2", ["title": "b"])
        }
        f.clock.advance(90.25)
        try await f.storage.write {
            $0.patch("notes", id: "n1", ["score": .real(.infinity)])
            $0.delete("notes", id: "n2")
        }
        let log = try f.storage.changes(after: 0, limit: 100)
        #expect(log.map(\.seq) == [1, 2, 3, 4])
        #expect(log.map(\.batch) == [1, 1, 3, 3])
        #expect(log.map(\.table) == ["notes", "notes", "notes", "notes"])
        #expect(log.map(\.rowID) == ["n1", "n2", "n1", "n2"])
        #expect(log.map(\.operation) == [.put, .put, .patch, .delete])
        #expect(log[0].cells == ["title": .text("a"), "stars": .integer(2), "score": .real(1.0),
                                 "data": .blob([1, 2, 3]), "body": .null])
        #expect(log[1].cells == ["title": .text("b")])
        #expect(log[2].cells == ["score": .real(.infinity)])
        #expect(log[3].cells == [:])
        #expect(log[0].at == f.clock.now.addingTimeInterval(-90.25))
        #expect(log[2].at == f.clock.now)

        // The stored form: one row per batch, its changes `[table, id, operation, cells]` in order,
        // the cells JSON objects keyed by column, integers and reals kept apart, and the table name
        // as declared (the plugin wrote "notes").
        let raw = try await f.rows("SELECT seq, count, changes, at FROM _tessera_change_batches ORDER BY seq")
        #expect(raw.map { $0["seq"] } == [.integer(1), .integer(3)])
        #expect(raw.map { $0["count"] } == [.integer(2), .integer(2)])
        #expect(raw.first?["changes"] == .text(#"[["notes","n1","put",{"body":null,"data":{"$blob":"AQID"},"score":1.0,"stars":2,"title":"a"}],"#
                                               + #"["notes","n2","put",{"title":"b"}]]"#))
        #expect(raw.first?["at"] == .text("2026-03-02T08:00:00.000Z"))
        #expect(raw.last?["changes"] == .text(#"[["notes","n1","patch",{"score":{"$real":"Infinity"}}],["notes","n2","delete",{}]]"#))
        #expect(try await f.count("_tessera_changes") == 0)
    }

    @Test func pagesByAfterAndLimit() async throws {
        let f = try Fixture()
        for i in 0..<5 {
            try await f.storage.write { $0.put("notes", id: "n\(i)", [:]) }
        }
        let first = try f.storage.changes(after: 0, limit: 2)
        #expect(first.map(\.rowID) == ["n0", "n1"])
        let next = try f.storage.changes(after: first.last!.seq, limit: 10)
        #expect(next.map(\.rowID) == ["n2", "n3", "n4"])
        #expect(try f.storage.changes(after: next.last!.seq, limit: 10).isEmpty)
        #expect(try f.storage.changes(after: 0, limit: 0).isEmpty)
    }

    @Test func aPositionInsideABatchReadsTheRestOfItThenTheBatchesAfter() async throws {
        let f = try Fixture()
        try await f.storage.write { batch in for i in 1...5 { batch.put("notes", id: "a\(i)", [:]) } }
        try await f.storage.write { batch in for i in 1...3 { batch.put("notes", id: "b\(i)", [:]) } }
        #expect(try f.storage.changes(after: 2, limit: 2).map(\.rowID) == ["a3", "a4"])
        #expect(try f.storage.changes(after: 4, limit: 10).map(\.seq) == [5, 6, 7, 8])
        #expect(try f.storage.changes(after: 4, limit: 10).map(\.batch) == [1, 6, 6, 6])
        #expect(try f.storage.changes(after: 5, limit: 10).map(\.rowID) == ["b1", "b2", "b3"])
        #expect(try f.storage.changes(after: 7, limit: 10).map(\.rowID) == ["b3"])
        #expect(try f.storage.changes(after: 8, limit: 10).isEmpty)
        #expect(try await f.count("_tessera_change_batches") == 2)
    }

    @Test func entriesLoggedOneRowPerChangeBeforeComeFirstAndTheirNumbersAreNeverGivenAgain() async throws {
        let f = try Fixture()
        // A log written before the storage schema's version 2: a row per change. The newest entry
        // was removed since (as a pruning would), so only sqlite_sequence still knows seq 3 was given.
        try f.storage.writer.withConnection { connection in
            try connection.execute("""
                INSERT INTO _tessera_changes(batch, tbl, row_id, op, cells, at) VALUES
                    (1, 'notes', 'old1', 'put', '{"title":"x"}', '2026-03-01T10:00:00.000Z'),
                    (1, 'notes', 'old2', 'patch', '{"stars":3}', '2026-03-01T10:00:00.000Z'),
                    (3, 'notes', 'old3', 'delete', '{}', '2026-03-01T11:00:00.000Z');
                DELETE FROM _tessera_changes WHERE seq = 3;
                """)
        }
        try await f.storage.write {
            $0.put("notes", id: "new1", [:])
            $0.put("notes", id: "new2", [:])
        }
        let log = try f.storage.changes(after: 0, limit: 10)
        #expect(log.map(\.seq) == [1, 2, 4, 5])
        #expect(log.map(\.rowID) == ["old1", "old2", "new1", "new2"])
        #expect(log.map(\.batch) == [1, 1, 4, 4])
        #expect(log[1].cells == ["stars": .integer(3)])
        #expect(log[1].operation == .patch)
        #expect(try f.storage.changes(after: 1, limit: 2).map(\.seq) == [2, 4])
        #expect(try f.storage.changes(after: 2, limit: 10).map(\.seq) == [4, 5])
    }

    @Test func failedBatchesLeaveNoEntriesAndBatchNumbersStayUnique() async throws {
        let f = try Fixture()
        try await f.storage.write { $0.put("notes", id: "a", [:]) }
        _ = await pluginError { try await f.storage.write { $0.patch("notes", id: "missing", ["title": "x"]) } }
        try await f.storage.write {
            $0.put("notes", id: "b", [:])
            $0.put("notes", id: "c", [:])
        }
        let log = try f.storage.changes(after: 0, limit: 10)
        #expect(log.map(\.rowID) == ["a", "b", "c"])
        #expect(log.map(\.batch) == [1, 2, 2])
    }

    @Test func theTableIsLoggedByItsDeclaredName() async throws {
        let f = try Fixture()
        try await f.storage.write { $0.put("NOTES", id: "x", ["TITLE": "t"]) }
        let entry = try #require(try f.storage.changes(after: 0, limit: 1).first)
        #expect(entry.table == "notes")
        #expect(entry.cells == ["title": .text("t")])
    }

    @Test func aLargeBatchIsLoggedWholeAndInOrder() async throws {
        let f = try Fixture()
        try await f.storage.write { $0.put("notes", id: "first", [:]) }
        try await f.storage.write { batch in
            for i in 0..<150 { batch.put("notes", id: "n\(i)", ["stars": .integer(Int64(i))]) }
        }
        let log = try f.storage.changes(after: 1, limit: 1000)
        #expect(log.count == 150)
        #expect(log.map(\.seq) == Array(2...151))
        #expect(Set(log.map(\.batch)) == [2])
        #expect(log.map(\.rowID) == (0..<150).map { "n\($0)" })
        #expect(log.map { $0.cells["stars"] } == (0..<150).map { SQLValue.integer(Int64($0)) })
    }

    @Test func cellsTextIsTheSDKsJSONAndDecodesBack() throws {
        let values: [SQLValue] = [
            .null, .integer(-42), .integer(.max), .real(2.0), .real(0.1), .real(-1e300), .real(.infinity),
            .real(-.infinity), .text(""), .text("plain"), .text("quote \" backslash \\ newline \n tab \t cr \r"),
            .text("bell \u{07} nul \u{0} esc \u{1B}"), .text("žluťoučký kůň 🐎"), .blob([]), .blob([0, 1, 254, 255]),
        ]
        let columns = values.indices.map { i in
            TableShape.Column(name: String(format: "c%02d", i), quoted: "", defaultSQL: nil, isGenerated: false, order: i)
        }
        let text = ChangeLogCoding.cellsText(columns, values)
        var members: [String: JSONValue] = [:]
        for (column, value) in zip(columns, values) { members[column.name] = ChangeLogCoding.json(value) }
        #expect(text == JSONValue.object(members).serialized())
        let parsed = try JSONValue(parsing: text)
        #expect(parsed.objectValue?.count == values.count)
        let decoded = ChangeLogCoding.cells(text)
        for (column, value) in zip(columns, values) {
            #expect(decoded[column.name] == value, "\(column.name)")
        }
    }

    /// A text is logged as the SDK's JSON writes it (the log calls that writer, whose
    /// eight-bytes-at-a-time scan the SDK's tests check byte by byte): texts with something to
    /// escape on either side of a word's edge, and one with nothing to.
    @Test func aTextIsLoggedAsTheSDKsJSONWritesIt() throws {
        for text in ["0123456789abcdef\"", "0123456\\89", "tab\tin a longer text than eight bytes",
                     String(repeating: "tessera ", count: 16) + "\n", "žluťoučký kůň 🐎 !#[]~"] {
            var out: [UInt8] = []
            ChangeLogCoding.appendString(text, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == JSONValue.string(text).serialized(), "\(text)")
        }
    }

    /// The log's time written by hand reads exactly as the ISO formatter writes it (the text the log
    /// always held), for whole milliseconds as the virtual clock gives them, for any fraction, at the
    /// ends of the years it covers, and outside them, where the formatter itself answers.
    @Test func theLogsTimeIsTheFormattersTextDigitForDigit() {
        var generator = SplitMix64(seed: 48)  // seeded: a failure names instants that fail again
        var instants: [Double] = [0, 0.0005, 0.9996, 951_782_400, 1_764_518_400.9999, 86_399.9995,
                                  253_402_300_799.999, 253_402_300_800, -0.5, -86_400 * 365.25 * 30]
        for i in 0..<20_000 {
            let millis = Double(generator.next() % 4_102_444_800_000)
            instants.append(i % 2 == 0 ? millis / 1000 : millis / 1000 + Double(generator.next() % 1000) / 1e6)
        }
        var differing: [String] = []
        for instant in instants {
            let date = Date(timeIntervalSince1970: instant)
            let expected = ChangeLogCoding.timestamp.format(date)
            let written = ChangeLogCoding.text(of: date)
            if written != expected { differing.append("\(instant): \(written), the formatter \(expected)") }
        }
        #expect(differing.isEmpty, "\(differing.prefix(5))")
    }
}
