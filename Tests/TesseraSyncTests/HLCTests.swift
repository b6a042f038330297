import Foundation
import TesseraTestFixtures
import Testing
@testable import TesseraSync

@Suite struct HLCTimestampTests {
    @Test func textIsActualsCollatableFormat() throws {
        let t = try HLCTimestamp(millis: 1_429_914_222_123, counter: 0x1000, node: HLCNode(0x0123_4567_89AB_CDEF))
        #expect(t.text == "2015-04-24T22:23:42.123Z-1000-0123456789ABCDEF")
        #expect(t.text.count == HLCTimestamp.textLength)
        #expect(try HLCTimestamp(parsing: t.text) == t)
        #expect(try HLCTimestamp(millis: 0, counter: 0, node: HLCNode(0)).text == "1970-01-01T00:00:00.000Z-0000-0000000000000000")
        #expect(ts(1_772_438_400_000, 0xFFFF, node: .max).text == "2026-03-02T08:00:00.000Z-FFFF-FFFFFFFFFFFFFFFF")
    }

    @Test func textOrderIsFieldOrderAndRoundTrips() throws {
        var random = SplitMix64(seed: 7)
        var stamps: [HLCTimestamp] = []
        for _ in 0..<2000 {
            // Leap days, year ends and close neighbours included by drawing from a narrow and a wide range.
            let millis = Bool.random(using: &random)
                ? Int64.random(in: 0...HLCTimestamp.maximumMillis, using: &random)
                : 951_782_400_000 + Int64.random(in: -3_000_000...3_000_000, using: &random)
            let t = try HLCTimestamp(millis: millis, counter: UInt16.random(in: 0...3, using: &random),
                                     node: HLCNode(UInt64.random(in: 0...3, using: &random) << 60))
            #expect(try HLCTimestamp(parsing: t.text) == t)
            stamps.append(t)
        }
        #expect(stamps.sorted().map(\.text) == stamps.map(\.text).sorted())
    }

    @Test func civilDatesAgreeWithFoundation() throws {
        var random = SplitMix64(seed: 11)
        let formatter = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for _ in 0..<500 {
            // Whole seconds: a Double cannot hold most millisecond fractions exactly.
            let millis = Int64.random(in: 0...HLCTimestamp.maximumMillis / 1000, using: &random) * 1000
            let text = try HLCTimestamp(millis: millis, counter: 0, node: HLCNode(0)).text
            #expect(String(text.prefix(24)) == formatter.format(Date(timeIntervalSince1970: Double(millis) / 1000)))
        }
    }

    @Test(arguments: [
        "2015-04-24T22:23:42.123Z-1000-0123456789abcdef",  // lowercase hex would collate wrongly
        "2015-04-24T22:23:42.123Z-1000-0123456789ABCDE",   // short
        "2015-13-24T22:23:42.123Z-1000-0123456789ABCDEF",  // month 13
        "2015-02-29T22:23:42.123Z-1000-0123456789ABCDEF",  // not a leap year
        "2015-04-24T24:00:00.000Z-1000-0123456789ABCDEF",  // hour 24
        "2015-04-24 22:23:42.123Z-1000-0123456789ABCDEF",  // no T
        "2015-04-24T22:23:42.123+-1000-0123456789ABCDEF",  // no Z
        "1969-12-31T23:59:59.999Z-0000-0123456789ABCDEF",  // before the epoch
        "",
    ])
    func malformedTextIsRefused(_ text: String) {
        #expect(throws: HLCError.self) { try HLCTimestamp(parsing: text) }
    }

    @Test func leapDayParses() throws {
        #expect(try HLCTimestamp(parsing: "2024-02-29T12:00:00.000Z-0000-0000000000000001").millis == 1_709_208_000_000)
    }
}

@Suite struct HybridLogicalClockTests {
    let start: Int64 = 1_772_438_400_000  // 2026-03-02T08:00:00Z

    @Test func sendCountsWithinAMillisecondAndRestartsWhenTimeMoves() throws {
        let clock = TestClock()
        var hlc = HybridLogicalClock(node: HLCNode(0xA1), now: clock.now)
        let a = try hlc.send(), b = try hlc.send()
        #expect((a.millis, a.counter) == (start, 0))
        #expect((b.millis, b.counter) == (start, 1))
        clock.advance(0.001)
        let c = try hlc.send()
        #expect((c.millis, c.counter) == (start + 1, 0))
        #expect(a < b && b < c)
        #expect(c.node == HLCNode(0xA1))
    }

    @Test func readingsNeverGoBackwardsWhenThePhysicalClockDoes() throws {
        let clock = TestClock()
        var hlc = HybridLogicalClock(node: HLCNode(1), now: clock.now)
        let a = try hlc.send()
        clock.advance(-60)
        let b = try hlc.send()
        #expect(b > a)
        #expect((b.millis, b.counter) == (start, 1))
    }

    @Test func receiveMakesLaterReadingsOrderAfterTheRemoteOne() throws {
        let clock = TestClock()
        var hlc = HybridLogicalClock(node: HLCNode(1), now: clock.now)
        let remote = ts(start + 120_000, 7, node: 2)  // two minutes ahead: allowed
        try hlc.receive(remote)
        let next = try hlc.send()
        #expect(next > remote)
        #expect((next.millis, next.counter) == (start + 120_000, 9))
    }

    /// The four cases of the counter on receive: which of (own, remote, physical) holds the max time.
    @Test func receiveCounterRules() throws {
        let clock = TestClock()
        // Only the physical clock is at the max: counter 0.
        var hlc = HybridLogicalClock(node: HLCNode(1), now: clock.now, resumingAfter: ts(start - 10, 5))
        try hlc.receive(ts(start - 5, 9, node: 2))
        #expect(hlc.last == (start, 0))
        // Own and remote tie at the max: one past the larger counter.
        hlc = HybridLogicalClock(node: HLCNode(1), now: clock.now, resumingAfter: ts(start + 50, 5))
        try hlc.receive(ts(start + 50, 9, node: 2))
        #expect(hlc.last == (start + 50, 10))
        // Own alone at the max: one past its counter.
        hlc = HybridLogicalClock(node: HLCNode(1), now: clock.now, resumingAfter: ts(start + 50, 5))
        try hlc.receive(ts(start + 10, 9, node: 2))
        #expect(hlc.last == (start + 50, 6))
        // Remote alone at the max: one past its counter.
        hlc = HybridLogicalClock(node: HLCNode(1), now: clock.now, resumingAfter: ts(start + 10, 5))
        try hlc.receive(ts(start + 50, 9, node: 2))
        #expect(hlc.last == (start + 50, 10))
    }

    @Test func aRemoteClockMoreThanFiveMinutesAheadIsRefusedNamingBothTimes() throws {
        let clock = TestClock()
        var hlc = HybridLogicalClock(node: HLCNode(1), now: clock.now)
        try hlc.receive(ts(start + 300_000, 0, node: 2))  // exactly five minutes: allowed
        let before = hlc.last
        let error = #expect(throws: HLCError.self) { try hlc.receive(ts(start + 300_001, 0, node: 2)) }
        #expect(error == .clockDrift(clock: start + 300_001, physical: start, maxDrift: 300_000, remote: true))
        let text = error?.description ?? ""
        #expect(text.contains("2026-03-02T08:05:00.001Z"), "names the remote time: \(text)")
        #expect(text.contains("2026-03-02T08:00:00.000Z"), "names this host's time: \(text)")
        #expect(text.contains("5 min"), "names the limit: \(text)")
        #expect(hlc.last == before, "a refused timestamp leaves the clock unchanged")
    }

    @Test func sendRefusesWhenTheHostClockFellFarBehindItsOwnReadings() throws {
        let clock = TestClock()
        var hlc = HybridLogicalClock(node: HLCNode(1), now: clock.now)
        try hlc.receive(ts(start + 240_000, 0, node: 2))  // four minutes ahead: allowed
        clock.advance(-120)  // the host's clock steps back two minutes: now six minutes behind
        let error = #expect(throws: HLCError.self) { _ = try hlc.send() }
        guard case .clockDrift(_, _, _, let remote)? = error else { Issue.record("expected drift, got \(String(describing: error))"); return }
        #expect(!remote)
        #expect(error?.description.contains("this host's hybrid clock") == true)
    }

    @Test func theCounterOverflowsAfter65536ReadingsInOneMillisecond() throws {
        let clock = TestClock()
        var hlc = HybridLogicalClock(node: HLCNode(1), now: clock.now)
        for _ in 0...0xFFFF { _ = try hlc.send() }
        #expect(hlc.last == (start, 0xFFFF))
        #expect(throws: HLCError.counterOverflow(millis: start)) { _ = try hlc.send() }
        clock.advance(0.001)
        #expect(try hlc.send().counter == 0, "the next millisecond starts over")
        // A remote reading at the end of its counter overflows a receive too.
        var other = HybridLogicalClock(node: HLCNode(3), now: clock.now)
        #expect(throws: HLCError.counterOverflow(millis: start + 1)) { try other.receive(ts(start + 1, 0xFFFF, node: 2)) }
    }

    @Test func aPhysicalTimeOutsideTheTimestampRangeIsAnError() {
        let clock = TestClock(Date(timeIntervalSince1970: -1))
        var hlc = HybridLogicalClock(node: HLCNode(1), now: clock.now)
        #expect(throws: HLCError.outOfRange(millis: -1000)) { _ = try hlc.send() }
    }

    @Test func errorTextsAreOneClearLine() {
        #expect(HLCError.counterOverflow(millis: start).description
                == "more than 65536 clock readings in the millisecond 2026-03-02T08:00:00.000Z: the hybrid clock's counter would overflow")
        #expect(HLCError.duration(363_250) == "6 min 3.250 s")
        #expect(HLCError.duration(300_000) == "5 min")
        #expect(HLCError.duration(999) == "999 ms")
    }
}
