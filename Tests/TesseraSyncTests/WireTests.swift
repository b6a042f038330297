import Foundation
import TesseraSDK
import TesseraTestFixtures
import Testing
@testable import TesseraSync

@Suite struct WireTests {
    let clock = TestClock()

    /// A log with every kind of change: puts, patches, deletes, re-inserts, a resolution (which
    /// supersedes writes), all five storage classes, UUID ids in both cases and plain ids.
    func richLog() throws -> [SyncChange] {
        let a = try makeReplica(node: 0xA, clock: clock), b = try makeReplica(node: 0xB, clock: clock)
        let lower = "3f2c1e4a-9b7d-4c21-8e5f-0a1b2c3d4e5f", upper = "3F2C1E4A-9B7D-4C21-8E5F-0A1B2C3D4E60"
        try a.put(lower, ["title": "ž 🐴", "stars": -3, "score": 2.5, "body": .null])
        try a.put(upper, ["score": .real(-.infinity)])
        try a.put("plain-id", ["title": ""])
        try a.delete(upper)
        try a.put(upper, ["title": "again"])
        try b.applyRemote(try a.all())
        try a.patch(lower, ["body": "a"])
        try b.patch(lower, ["body": "b"])
        try a.applyRemote(try b.all())
        try a.resolveConflict(table: "notes", row: lower, column: "body", value: .text("a+b"))
        return try a.all()
    }

    @Test func aBatchRoundTripsExactly() throws {
        let log = try richLog()
        #expect(log.contains { if case .cell(_, _, let s) = $0.kind { return s.count == 2 } else { return false } })
        let bytes = SyncWire.encode(log)
        #expect(Array(bytes.prefix(4)) == Array("TSY1".utf8))
        #expect(try SyncWire.decode(bytes) == log)
        #expect(try SyncWire.decode(SyncWire.encode([])) == [])
    }

    @Test func anyOrderRoundTrips() throws {
        var random = SplitMix64(seed: 9)
        let log = try richLog()
        for _ in 0..<50 {
            let mixed = Array(log.shuffled(using: &random).prefix(Int.random(in: 0...log.count, using: &random)))
            #expect(try SyncWire.decode(SyncWire.encode(mixed)) == mixed)
        }
    }

    @Test func uuidsPackOnlyWhenTheyComeBackTheSame() {
        #expect(UUIDText.pack("3f2c1e4a-9b7d-4c21-8e5f-0a1b2c3d4e5f")?.uppercase == false)
        #expect(UUIDText.pack("3F2C1E4A-9B7D-4C21-8E5F-0A1B2C3D4E5F")?.uppercase == true)
        #expect(UUIDText.pack("3F2C1E4A-9b7d-4C21-8E5F-0A1B2C3D4E5F") == nil, "mixed case would not come back")
        #expect(UUIDText.pack("3f2c1e4a9b7d4c218e5f0a1b2c3d4e5f") == nil)
        #expect(UUIDText.pack("3f2c1e4a-9b7d-4c21-8e5f-0a1b2c3d4e5g") == nil)
        let digits = "12345678-1234-1234-1234-123456789012"
        let packed = UUIDText.pack(digits)!
        #expect(UUIDText.text(packed.bytes[...], uppercase: packed.uppercase) == digits)
    }

    @Test func everyTruncationIsRefusedCleanly() throws {
        let bytes = SyncWire.encode(try richLog())
        for length in 0..<bytes.count {
            #expect(throws: SyncError.self) { try SyncWire.decode(Array(bytes.prefix(length))) }
        }
        #expect(throws: SyncError.malformedEncoding("1 bytes follow the last record")) { try SyncWire.decode(bytes + [0]) }
    }

    @Test func corruptedBytesNeverCrashTheDecoder() throws {
        var random = SplitMix64(seed: 4)
        let bytes = SyncWire.encode(try richLog())
        var refused = 0
        for _ in 0..<3000 {
            var corrupt = bytes
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                corrupt[Int.random(in: 4..<corrupt.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            do { _ = try SyncWire.decode(corrupt) } catch is SyncError { refused += 1 }
        }
        #expect(refused > 0)
    }

    @Test func aTypicalRecordCostsFarLessThanTheHubsBudget() throws {
        // A baby-diary-like table: UUID ids, a kind, an ISO time, an amount, a short note.
        let schema = "CREATE TABLE feeds(id TEXT PRIMARY KEY, kind TEXT, at TEXT, amount REAL, note TEXT)"
        let a = try makeReplica(node: 0xA, clock: clock, schema: schema, tables: [SyncedTable("feeds")])
        var random = SplitMix64(seed: 2)
        for i in 0..<500 {
            let id = UUIDText.text((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }[...], uppercase: false)
            try a.write([.put(table: "feeds", id: id, values: [
                "kind": "bottle", "at": .text("2026-03-02T08:\(10 + i % 50):00Z"), "amount": .real(Double(60 + i % 90)),
                "note": "took it slowly",
            ])], in: "child-1")
            clock.advance(37)
        }
        let changes = try a.changes(in: "child-1")
        let cells = changes.filter { $0.value != nil }.count
        let bytes = SyncWire.encode(changes).count
        #expect(cells == 2000)
        #expect(Double(bytes) / Double(cells) <= 80, "\(bytes) bytes for \(cells) cells")
    }
}
