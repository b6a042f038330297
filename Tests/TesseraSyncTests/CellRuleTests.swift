import Foundation
import Testing
import TesseraSDK
@testable import TesseraSync

/// A write stamps only the cells whose value it changes (docs/sync.md, "A write stamps what it
/// changes"): a plugin that rewrites a whole row must not undo another device's edit of a field
/// it did not touch.
@Suite struct CellRuleTests {
    let clock = TestClock()

    @Test func rewritingARowWithItsOwnValuesStampsNothing() throws {
        let a = try makeReplica(node: 0xA, clock: clock)
        try a.put("n1", ["title": "bread", "stars": 3, "score": 2.5])
        let logged = try a.all().count
        #expect(try a.put("n1", ["title": "bread", "stars": 3, "score": 2.5]).isEmpty, "a put of the same values")
        #expect(try a.patch("n1", ["title": "bread", "stars": 3]).isEmpty, "a patch of the same values")
        #expect(try a.all().count == logged, "no message was logged")
    }

    @Test func aWholeRowPutStampsOnlyTheCellsItChanges() throws {
        let a = try makeReplica(node: 0xA, clock: clock)
        try a.put("n1", ["title": "bread", "stars": 3])
        clock.advance(1)
        let stamped = try a.put("n1", ["title": "rye bread", "stars": 3])
        #expect(stamped.map(\.column) == ["title"])
        // A column the put leaves out goes back to its default: that is a change, and is stamped.
        let cleared = try a.put("n1", ["title": "rye bread"])
        #expect(cleared.map(\.column) == ["stars"])
        #expect(cleared.first?.value == .integer(0))
    }

    /// Issue 38's reproduction, on two replicas: A changes the amount alone; B, not yet synced,
    /// rewrites the whole row with the name changed and the old amount. Both edits survive, on
    /// both replicas, in either order of delivery.
    @Test(arguments: [false, true]) func anEditOfAnotherFieldDoesNotUndoThisOne(bFirst: Bool) throws {
        let a = try makeReplica(node: 0xA, clock: clock)
        let b = try makeReplica(node: 0xB, clock: clock)
        try b.applyRemote(try a.put("t1", ["title": "bread", "stars": 300]))
        clock.advance(1)
        let fromA = try a.patch("t1", ["stars": 400])
        clock.advance(1)
        let fromB = try b.put("t1", ["title": "rye bread", "stars": 300])  // a whole-row rewrite
        #expect(fromB.map(\.column) == ["title"])
        if bFirst {
            try a.applyRemote(fromB)
            try b.applyRemote(fromA)
        } else {
            try b.applyRemote(fromA)
            try a.applyRemote(fromB)
        }
        for replica in [a, b] {
            #expect(try replica.note("t1")?["title"] == "rye bread")
            #expect(try replica.note("t1")?["stars"] == .integer(400))
        }
    }

    @Test func valuesAreComparedAsSQLiteStoresThem() throws {
        let a = try makeReplica(node: 0xA, clock: clock)
        try a.put("n1", ["title": "caf\u{E9}", "stars": 1, "score": 0.0])
        // The same text, differently encoded (e + combining accent): Swift's == calls it equal,
        // the bytes differ, so it is a change.
        #expect(try a.patch("n1", ["title": "cafe\u{301}"]).map(\.column) == ["title"])
        // Values are compared after the column's affinity: text "1" in an INTEGER column is 1.
        #expect(try a.patch("n1", ["stars": "1"]).isEmpty)
        #expect(try a.patch("n1", ["stars": 2]).map(\.column) == ["stars"])
    }

    @Test func aRowPutAgainAfterItsDeletionIsStampedWhole() throws {
        let a = try makeReplica(node: 0xA, clock: clock)
        try a.put("n1", ["title": "bread"])
        try a.delete("n1")
        let again = try a.put("n1", ["title": "bread"])
        #expect(again.map(\.column) == ["", "body", "score", "stars", "title"], "a new life: every cell")
        let b = try makeReplica(node: 0xB, clock: clock)
        try b.applyRemote(try a.all())
        #expect(try b.notes() == a.notes())
    }
}
