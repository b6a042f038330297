import TesseraSDK
import Testing
@testable import TesseraSync

@Suite struct ConflictTests {
    let clock = TestClock()

    /// Two parents edit the same diary note offline; a, b and a third replica that gets both edits
    /// in the other order all show the later note and keep the earlier one as a conflict.
    @Test func concurrentTextEditsKeepTheLosingValueAsAConflict() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        let c = try makeReplica(node: 0xC, clock: clock)
        let put = try a.put("n1", ["title": "Day 3", "body": "slept well"])
        try b.applyRemote(put)
        try c.applyRemote(put)
        clock.advance(1)
        let fromA = try a.patch("n1", ["body": "slept well, fed at 3"])
        clock.advance(1)
        let fromB = try b.patch("n1", ["body": "slept badly"])
        let reportA = try a.applyRemote(fromB)
        try b.applyRemote(fromA)
        try c.applyRemote(fromB)
        try c.applyRemote(fromA)

        #expect(reportA.conflictedCells == [CellAddress(table: "notes", row: "n1", column: "body")])
        let conflicts = try a.conflicts()
        #expect(conflicts.count == 1)
        let conflict = try #require(conflicts.first)
        #expect((conflict.table, conflict.row, conflict.column) == ("notes", "n1", "body"))
        #expect(conflict.current == VersionedValue(value: "slept badly", timestamp: fromB[0].timestamp))
        #expect(conflict.others == [VersionedValue(value: "slept well, fed at 3", timestamp: fromA[0].timestamp)])
        #expect(try b.conflicts() == conflicts)
        #expect(try c.conflicts() == conflicts)
        #expect(try a.note("n1")?["body"] == "slept badly", "the table shows the last writer's value")
    }

    @Test func anEditMadeAfterSeeingTheOtherIsNoConflict() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        try b.applyRemote(try a.put("n1", ["body": "one"]))
        try a.applyRemote(try b.patch("n1", ["body": "two"]))
        try b.applyRemote(try a.patch("n1", ["body": "three"]))
        #expect(try a.conflicts().isEmpty && b.conflicts().isEmpty)
        // A column that does not keep conflicts never shows one.
        let t1 = try a.patch("n1", ["title": "x"]), t2 = try b.patch("n1", ["title": "y"])
        try a.applyRemote(t2)
        try b.applyRemote(t1)
        #expect(try a.conflicts().isEmpty)
    }

    @Test func resolvingIsANewWriteThatClearsTheConflictEverywhere() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        try b.applyRemote(try a.put("n1", ["body": "base"]))
        let fromA = try a.patch("n1", ["body": "a"]), fromB = try b.patch("n1", ["body": "b"])
        try a.applyRemote(fromB)
        try b.applyRemote(fromA)
        #expect(try a.conflicts().count == 1)

        let resolution = try a.resolveConflict(table: "notes", row: "n1", column: "body", value: "a and b")
        guard case .cell(let column, let value, let supersedes) = resolution.kind else { Issue.record("not a cell"); return }
        #expect(column == "body" && value == "a and b")
        #expect(Set(supersedes) == [fromA[0].timestamp, fromB[0].timestamp])
        #expect(try a.conflicts().isEmpty)
        #expect(try a.note("n1")?["body"] == "a and b")
        #expect(try a.all().last == resolution, "the resolution is in the log, to send")

        try b.applyRemote([resolution])
        #expect(try b.conflicts().isEmpty)
        #expect(try b.notes() == a.notes())
        #expect(try b.merkle(for: "s") == a.merkle(for: "s"))
        #expect(throws: SyncError.noConflict(table: "notes", row: "n1", column: "body")) {
            try a.resolveConflict(table: "notes", row: "n1", column: "body", value: "again")
        }
    }

    @Test func aResolutionArrivingBeforeTheValuesItSupersedesStillClearsThem() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        let put = try a.put("n1", ["body": "base"])
        try b.applyRemote(put)
        let fromA = try a.patch("n1", ["body": "a"]), fromB = try b.patch("n1", ["body": "b"])
        try a.applyRemote(fromB)
        let resolution = try a.resolveConflict(table: "notes", row: "n1", column: "body", value: "ab")
        // c hears of the resolution first, then of the two values it superseded.
        let c = try makeReplica(node: 0xC, clock: clock)
        try c.applyRemote([resolution])
        try c.applyRemote(put)
        try c.applyRemote(fromB)
        try c.applyRemote(fromA)
        #expect(try c.conflicts().isEmpty)
        #expect(try c.note("n1")?["body"] == "ab")
    }

    @Test func anEditConcurrentWithTheResolutionIsANewConflict() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        try b.applyRemote(try a.put("n1", ["body": "base"]))
        let fromA = try a.patch("n1", ["body": "a"]), fromB = try b.patch("n1", ["body": "b"])
        try a.applyRemote(fromB)
        try b.applyRemote(fromA)
        let resolution = try a.resolveConflict(table: "notes", row: "n1", column: "body", value: "ab")
        clock.advance(1)
        let unaware = try b.patch("n1", ["body": "b, again"])  // b has not seen the resolution
        try a.applyRemote(unaware)
        try b.applyRemote([resolution])
        let conflicts = try a.conflicts()
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.current.value == "b, again")
        // b's new write superseded b's own value, which the resolution also did: only "ab" is left over.
        #expect(conflicts.first?.others.map(\.value) == ["ab"])
        #expect(try b.conflicts() == conflicts)
    }

    @Test func aDeletedRowShowsNoConflictAndItsNextLifeStartsClean() throws {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        try b.applyRemote(try a.put("n1", ["body": "base"]))
        let fromA = try a.patch("n1", ["body": "a"]), fromB = try b.patch("n1", ["body": "b"])
        try a.applyRemote(fromB)
        #expect(try a.conflicts().count == 1)
        try a.delete("n1")
        #expect(try a.conflicts().isEmpty)
        try a.put("n1", ["body": "new life"])
        try a.applyRemote(fromA)  // late: belongs to the old life
        #expect(try a.conflicts().isEmpty)
        #expect(try a.note("n1")?["body"] == "new life")
    }
}
