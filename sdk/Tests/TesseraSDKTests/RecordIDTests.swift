import Foundation
import Testing
import TesseraSDK

/// `RecordID.timeOrdered(at:)`: the layout RFC 9562 gives a version 7 UUID, read back bit by bit,
/// and the order the ids sort in. Serialized: the counter within a millisecond is one per process,
/// and a test that makes ids at another instant in between would restart it.
@Suite(.serialized) struct RecordIDTests {
    /// The 16 bytes of an id's text, or nil if it is not 8-4-4-4-12 lowercase hex.
    static func bytes(_ id: String) -> [UInt8]? {
        let parts = id.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.map(\.count) == [8, 4, 4, 4, 12] else { return nil }
        let hex = Array(parts.joined().utf8)
        guard hex.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        return stride(from: 0, to: 32, by: 2).map { UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)! }
    }

    @Test func anIdIsAVersion7UUIDWhoseFirst48BitsAreTheInstantsUnixMilliseconds() throws {
        // 2026-11-27T04:00:00.123Z
        let instant = Date(timeIntervalSince1970: 1_795_752_000.123)
        let id = RecordID.timeOrdered(at: instant)
        let b = try #require(Self.bytes(id), "\(id) is not a lowercase UUID")
        let milliseconds = b[0..<6].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        #expect(milliseconds == 1_795_752_000_123)
        #expect(b[6] >> 4 == 7, "the version nibble")
        #expect(b[8] >> 6 == 0b10, "the RFC 9562 variant")
        // Foundation reads it as a UUID too, and gives the same bytes back.
        let parsed = try #require(UUID(uuidString: id))
        #expect(parsed.uuidString.lowercased() == id)
    }

    @Test func idsMadeAtLaterInstantsSortAfterEarlierOnes() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let ids = (0..<500).map { RecordID.timeOrdered(at: start.addingTimeInterval(Double($0) * 0.37)) }
        let sorted = ids == ids.sorted()
        #expect(sorted)
        #expect(Set(ids).count == ids.count)
    }

    @Test func idsMadeInOneMillisecondAreDistinctAndSortInTheOrderTheyWereMade() throws {
        let instant = Date(timeIntervalSince1970: 1_800_000_000.5)
        let ids = (0..<2_000).map { _ in RecordID.timeOrdered(at: instant) }
        #expect(Set(ids).count == ids.count)
        let sorted = ids == ids.sorted()
        #expect(sorted, "the 12-bit counter counts up within the millisecond")
        let first = try #require(Self.bytes(ids[0])), last = try #require(Self.bytes(ids[ids.count - 1]))
        #expect(first[0..<6] == last[0..<6], "every id keeps the instant's millisecond")
    }

    @Test func aMillisecondWhoseCounterRunsOutStillGivesDistinctIds() {
        // More than the 12 bits can count from any start: past the counter's end the ids stay
        // unique by their 62 random bits, and keep the instant.
        let instant = Date(timeIntervalSince1970: 1_800_000_001)
        let ids = (0..<5_000).map { _ in RecordID.timeOrdered(at: instant) }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.hasPrefix(String(ids[0].prefix(13))) })
    }

    @Test func anInstantBeforeTheLastOneIsKeptNotMovedForward() throws {
        // A virtual clock set back: the id says the instant it was given.
        let later = RecordID.timeOrdered(at: Date(timeIntervalSince1970: 1_800_000_100))
        let earlier = RecordID.timeOrdered(at: Date(timeIntervalSince1970: 1_600_000_000))
        #expect(earlier < later)
        let b = try #require(Self.bytes(earlier))
        #expect(b[0..<6].reduce(Int64(0)) { $0 << 8 | Int64($1) } == 1_600_000_000_000)
    }

    @Test func anInstantBefore1970IsWrittenAsMillisecondZero() throws {
        let id = RecordID.timeOrdered(at: Date(timeIntervalSince1970: -86_400))
        #expect(id.hasPrefix("00000000-0000-7"))
        #expect(Self.bytes(id) != nil)
    }
}
