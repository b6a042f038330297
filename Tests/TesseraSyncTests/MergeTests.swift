import Foundation
import TesseraSDK
import TesseraTestFixtures
import Testing
@testable import TesseraSync

@Suite struct MergeTests {
    let clock = TestClock()

    @Test func aLocalWriteReachesAnotherReplicaAsTheSameRow() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        let stamped = try a.put("n1", ["title": "Groceries", "stars": 3, "body": "milk"])
        // One existence change and a cell per writable column (a put replaces the whole row).
        #expect(stamped.map(\.column) == ["", "body", "score", "stars", "title"])
        #expect(Set(stamped.map(\.timestamp)).count == 1, "one timestamp per record change")
        #expect(stamped.allSatisfy { $0.causalLength == 1 && $0.space == "s" })
        let report = try b.applyRemote(stamped)
        #expect(report.rows == [ChangedRow(table: "notes", row: "n1", change: .upserted)])
        #expect((report.received, report.stored, report.duplicates) == (5, 5, 0))
        #expect(try b.notes() == a.notes())
        #expect(try b.note("n1") == ["title": "Groceries", "body": "milk", "stars": 3, "score": .null])
    }

    @Test func lastWriterWinsPerCellAndDifferentCellsBothSurvive() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        try b.applyRemote(try a.put("n1", ["title": "draft", "stars": 1]))
        // Offline on both: a changes the title and the stars, then b changes the title later.
        clock.advance(1)
        let fromA = try a.patch("n1", ["title": "from a", "stars": 4])
        clock.advance(1)
        let fromB = try b.patch("n1", ["title": "from b"])
        try a.applyRemote(fromB)
        try b.applyRemote(fromA)
        #expect(try a.note("n1")?["title"] == "from b")
        #expect(try a.note("n1")?["stars"] == 4)
        #expect(try a.notes() == b.notes())
    }

    @Test func theLaterTimestampWinsWhateverTheDeliveryOrder() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        let c = try makeReplica(node: 0xC, clock: clock)
        let put = try a.put("n1", ["title": "x"])
        try b.applyRemote(put)
        let early = try a.patch("n1", ["title": "early"])
        let late = try b.patch("n1", ["title": "late"])  // same millisecond, but b took in a's put: its reading orders later
        try c.applyRemote(late + put + early)
        #expect(try c.note("n1")?["title"] == "late")
        try a.applyRemote(late)
        #expect(try a.note("n1")?["title"] == "late")
    }

    @Test func aDeleteBeatsAConcurrentUpdateEvenALaterOne() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        try b.applyRemote(try a.put("n1", ["title": "x"]))
        let delete = try a.delete("n1")
        clock.advance(10)
        let update = try b.patch("n1", ["title": "edited after the delete, unaware of it"])
        #expect(try a.applyRemote(update).rows.isEmpty, "a cell of the row's older life changes nothing")
        #expect(try b.applyRemote(delete).rows == [ChangedRow(table: "notes", row: "n1", change: .deleted)])
        #expect(try a.notes().isEmpty && b.notes().isEmpty)
        #expect(try a.rowState(table: "notes", row: "n1") == RowState(space: "s", causalLength: 2))
        #expect(try b.rowState(table: "notes", row: "n1") == RowState(space: "s", causalLength: 2))
    }

    /// Put, delete, re-insert on one replica; every order of delivering the three record changes
    /// (and of their single changes) ends in the re-inserted row.
    @Test func deleteThenReinsertResolvesByCausalLengthInEveryOrder() throws {
        let a = try makeReplica(node: 0xA, clock: clock)
        let first = try a.put("n1", ["title": "first life", "stars": 5, "body": "old"])
        clock.advance(1)
        let delete = try a.delete("n1")
        clock.advance(1)
        let second = try a.put("n1", ["title": "second life"])
        #expect(delete.map(\.causalLength) == [2])
        #expect(second.map(\.causalLength).allSatisfy { $0 == 3 })
        let expected = try a.notes()
        #expect(expected == [["n1", "second life", .null, 0, .null]], "the second life does not inherit the first's cells")

        let groups = [first, delete, second]
        for order in permutations([0, 1, 2]) {
            let b = try makeReplica(node: 0xB, clock: clock)
            for index in order { try b.applyRemote(groups[index]) }
            #expect(try b.notes() == expected, "group order \(order)")
            #expect(try b.rowState(table: "notes", row: "n1")?.causalLength == 3)
            #expect(try b.merkle(for: "s") == a.merkle(for: "s"))
        }
        var random = SplitMix64(seed: 1)
        for round in 0..<40 {
            let b = try makeReplica(node: 0xB, clock: clock)
            for change in groups.flatMap({ $0 }).shuffled(using: &random) { try b.applyRemote([change]) }
            #expect(try b.notes() == expected, "single changes, shuffle \(round)")
        }
    }

    @Test func aReinsertMissingItsExistenceChangeStillRevivesTheRow() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        try b.applyRemote(try a.put("n1", ["title": "one"]))
        try b.applyRemote(try a.delete("n1"))
        let reinsert = try a.put("n1", ["title": "two"])
        // Only the title cell arrives: a cell of life 3 means the row is alive in life 3.
        try b.applyRemote(reinsert.filter { $0.column == "title" })
        #expect(try b.note("n1") == ["title": "two", "body": .null, "stars": 0, "score": .null])
        try b.applyRemote(reinsert)
        #expect(try b.notes() == a.notes())
    }

    @Test func concurrentReinsertsShareOneLifeAndMergeByCell() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        try b.applyRemote(try a.put("n1", ["title": "one"]))
        try b.applyRemote(try a.delete("n1"))
        let fromA = try a.put("n1", ["title": "a's", "stars": 2])
        clock.advance(0.5)
        let fromB = try b.put("n1", ["title": "b's"])
        try a.applyRemote(fromB)
        try b.applyRemote(fromA)
        #expect(try a.rowState(table: "notes", row: "n1")?.causalLength == 3)
        #expect(try a.notes() == b.notes())
        #expect(try a.note("n1")?["title"] == "b's")
        #expect(try a.note("n1")?["stars"] == 0, "b's put, later, set stars to its default")
    }

    @Test func cellsOfAnOlderLifeLoseToTheNewLifeEvenWhenLater() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        try b.applyRemote(try a.put("n1", ["title": "one"]))
        let death = try a.delete("n1")
        let rebirth = try a.put("n1", ["title": "reborn"])
        clock.advance(30)
        let stale = try b.patch("n1", ["title": "b never saw the delete", "stars": 9])
        try a.applyRemote(stale)
        try b.applyRemote(death + rebirth)
        #expect(try a.note("n1") == ["title": "reborn", "body": .null, "stars": 0, "score": .null])
        #expect(try a.notes() == b.notes())
    }

    @Test func applyingABatchTwiceChangesNothingTheSecondTime() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        var batch = try a.put("n1", ["title": "x", "body": "y"])
        batch += try a.put("n2", ["title": "z"])
        batch += try a.delete("n2")
        try b.applyRemote(batch)
        let notes = try b.notes(), merkle = try b.merkle(for: "s"), log = try b.all()
        let again = try b.applyRemote(batch + batch)
        #expect((again.received, again.stored, again.duplicates) == (2 * batch.count, 0, 2 * batch.count))
        #expect(again.rows.isEmpty)
        #expect(try b.notes() == notes)
        #expect(try b.merkle(for: "s") == merkle, "a duplicate is not XORed into the trie again")
        #expect(try b.all() == log)
        // Own changes echoed back (a hub relaying everything) are duplicates too.
        #expect(try a.applyRemote(batch).stored == 0)
    }

    @Test func sameChangesSameMerkleRootAndTheLogReadsBackInOrder() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        try a.put("n1", ["title": "x"])
        clock.advance(90)
        try a.patch("n1", ["stars": 2])
        #expect(try a.merkle(for: "s").diff(b.merkle(for: "s")) != nil)
        try b.applyRemote(try a.all().reversed())
        #expect(try a.merkle(for: "s").rootHash == b.merkle(for: "s").rootHash)
        #expect(try a.merkle(for: "s").diff(b.merkle(for: "s")) == nil)
        #expect(try b.all() == a.all())
        #expect(try a.all().map(\.id) == a.all().map(\.id).sorted())
        #expect(try a.spaces() == ["s"])
    }

    @Test func pagesOfTheLogNeverSplitARecordChange() throws {
        let a = try makeReplica(node: 0xA, clock: clock)
        try a.put("n1", ["title": "x"])      // 5 changes at t1
        try a.patch("n1", ["stars": 2])      // 1 change at t2
        try a.put("n2", ["title": "y"])      // 5 changes at t3
        let all = try a.all()
        let page = try a.changes(in: "s", limit: 3)
        #expect(page.count == 5, "the first record change whole")
        let next = try a.changes(in: "s", since: page.last?.timestamp, limit: 3)
        #expect(next.count == 6)
        #expect(page + next == all)
        #expect(try a.changes(in: "s", since: next.last?.timestamp).isEmpty)
    }

    @Test func theHostPathStampsChangesAppliedInItsOwnTransaction() throws {
        let a = try makeReplica(node: 0xA, clock: clock)
        let stamped = try a.database.withConnection { connection in
            try connection.transaction {
                // As the storage capability would: the row written by its own SQL, text "5" in an
                // INTEGER column, title left to its default.
                try connection.execute("INSERT INTO notes(id, stars) VALUES ('n1', '5')")
                return try a.localChanges(from: [.put(table: "notes", id: "n1", values: ["stars": "5"]),
                                                 .put(table: "other", id: "x", values: [:])], in: "s", on: connection)
            }
        }
        let cells = Dictionary(uniqueKeysWithValues: stamped.compactMap { c in c.value.map { (c.column, $0) } })
        #expect(cells["stars"] == .integer(5), "the value as stored, after the column's affinity")
        #expect(cells["title"] == .text(""), "the default as evaluated here")
        #expect(!stamped.contains { $0.table == "other" }, "tables that are not synced are skipped")
        #expect(try a.all() == stamped)
    }

    @Test func aPatchOfARowSyncHasNotSeenAdoptsTheWholeRow() throws {
        let a = try makeReplica(node: 0xA, clock: clock)
        let stamped = try a.database.withConnection { connection in
            try connection.transaction {
                try connection.execute("INSERT INTO notes(id, title, stars) VALUES ('old', 'from before sync', 7)")
                try connection.execute("UPDATE notes SET stars = 8 WHERE id = 'old'")
                return try a.localChanges(from: [.patch(table: "notes", id: "old", values: ["stars": 8])], in: "s", on: connection)
            }
        }
        #expect(stamped.map(\.column) == ["", "body", "score", "stars", "title"])
        let b = try makeReplica(node: 0xB, clock: clock)
        try b.applyRemote(stamped)
        #expect(try b.notes() == a.notes())
    }

    @Test func deletingARowThatIsNotAliveReplicatesNothing() throws {
        let a = try makeReplica(node: 0xA, clock: clock)
        #expect(try a.delete("ghost").isEmpty)
        try a.put("n1", [:])
        try a.delete("n1")
        #expect(try a.delete("n1").isEmpty)
        #expect(try a.rowState(table: "notes", row: "n1")?.causalLength == 2)
    }

    @Test func aBatchWithSeveralChangesOfOneRowStampsEachInOrder() throws {
        let a = try makeReplica(node: 0xA, clock: clock)
        let stamped = try a.write([
            .put(table: "notes", id: "n1", values: ["title": "a"]),
            .patch(table: "notes", id: "n1", values: ["title": "b"]),
            .delete(table: "notes", id: "n1"),
            .put(table: "notes", id: "n1", values: ["title": "c"]),
        ], in: "s")
        // The stamper reads each row as the batch leaves it: the patch's "b" is already "c" there,
        // the value the put stamped, so the patch changes no cell and takes no timestamp.
        #expect(Set(stamped.map(\.timestamp)).count == 3)
        #expect(try a.rowState(table: "notes", row: "n1")?.causalLength == 3)
        let b = try makeReplica(node: 0xB, clock: clock)
        try b.applyRemote(stamped.shuffled())
        #expect(try b.notes() == a.notes())
        #expect(try b.note("n1")?["title"] == "c")
    }

    @Test func spacesKeepTheirOwnLogsAndTries() throws {
        let a = try makeReplica(node: 0xA, clock: clock)
        try a.put("n1", ["title": "mine"], space: "me")
        try a.put("n2", ["title": "the child's"], space: "child")
        #expect(try a.spaces() == ["child", "me"])
        #expect(try a.changes(in: "me").allSatisfy { $0.row == "n1" })
        #expect(try a.merkle(for: "me").rootHash != a.merkle(for: "child").rootHash)
        let error = #expect(throws: SyncError.self) { try a.patch("n1", ["title": "moved?"], space: "child") }
        #expect(error == .spaceMismatch(table: "notes", row: "n1", belongsTo: "me", given: "child"))
        #expect(try a.note("n1")?["title"] == "mine", "the refused write rolled back")
    }
}

/// Every order of `items`.
func permutations<T>(_ items: [T]) -> [[T]] {
    guard items.count > 1 else { return [items] }
    return items.indices.flatMap { i -> [[T]] in
        var rest = items
        let first = rest.remove(at: i)
        return permutations(rest).map { [first] + $0 }
    }
}
