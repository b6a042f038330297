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

        // The stored form: JSON objects keyed by column, integers and reals kept apart, and the
        // table name as declared (the plugin wrote "notes").
        let raw = try await f.rows("SELECT tbl, op, cells, at FROM _tessera_changes WHERE seq = 1").first
        #expect(raw?["cells"] == .text(#"{"body":null,"data":{"$blob":"AQID"},"score":1.0,"stars":2,"title":"a"}"#))
        #expect(raw?["at"] == .text("2026-03-02T08:00:00.000Z"))
        #expect(raw?["op"] == .text("put"))
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
            TableShape.Column(name: String(format: "c%02d", i), quoted: "", defaultSQL: nil, isGenerated: false)
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
}
