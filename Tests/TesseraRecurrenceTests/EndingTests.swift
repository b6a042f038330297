import Foundation
import Testing
import TesseraRecurrence

/// COUNT and UNTIL: where a rule ends, and that nothing comes after.
@Suite struct EndingTests {
    @Test func countCountsOccurrencesFromTheStart() throws {
        // The start (a Tuesday) does not match, so it is not counted.
        let rule = try recurrence("FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0;COUNT=3", from: "2026-03-17T09:00:00Z", in: "Europe/Prague")
        #expect(rule.prefix(10) == ["2026-03-20T07:00:00Z", "2026-03-27T07:00:00Z", "2026-04-03T06:00:00Z"])
        #expect(rule.next(after: utc("2026-04-03T06:00:00Z")) == nil)
        #expect(rule.next(after: utc("2030-01-01T00:00:00Z")) == nil)
        #expect(rule.next(after: utc("2026-03-25T00:00:00Z")).map(iso) == "2026-03-27T07:00:00Z")
        #expect(rule.occurrences(from: utc("2026-03-21T00:00:00Z"), through: utc("2027-01-01T00:00:00Z")).map(iso)
            == ["2026-03-27T07:00:00Z", "2026-04-03T06:00:00Z"])
    }

    @Test func countCountsAGapTimeAndWhereItMovesToOnce() throws {
        let rule = try recurrence("FREQ=DAILY;BYHOUR=2,3;BYMINUTE=30;COUNT=3", from: "2026-03-28T12:00:00Z", in: "Europe/Prague")
        #expect(rule.prefix(10) == ["2026-03-29T01:30:00Z", "2026-03-30T00:30:00Z", "2026-03-30T01:30:00Z"])
    }

    @Test func untilInUTCIsInclusive() throws {
        // 08:00 in Prague in January is 07:00Z.
        let rule = try recurrence("FREQ=DAILY;BYHOUR=8;BYMINUTE=0;UNTIL=20260104T070000Z", from: "2026-01-01T00:00:00Z", in: "Europe/Prague")
        #expect(rule.prefix(10) == ["2026-01-01T07:00:00Z", "2026-01-02T07:00:00Z", "2026-01-03T07:00:00Z", "2026-01-04T07:00:00Z"])
        #expect(rule.next(after: utc("2026-01-04T07:00:00Z")) == nil)
    }

    @Test func untilInLocalTimeIsReadInTheRecurrencesZone() throws {
        let rule = try RecurrenceRule(parsing: "FREQ=DAILY;BYHOUR=8;BYMINUTE=0;UNTIL=20260103T080000")
        let prague = Recurrence(rule: rule, start: utc("2026-01-01T00:00:00Z"), timeZone: zone("Europe/Prague"))
        #expect(prague.prefix(10) == ["2026-01-01T07:00:00Z", "2026-01-02T07:00:00Z", "2026-01-03T07:00:00Z"])
        let justBefore = try recurrence("FREQ=DAILY;BYHOUR=8;BYMINUTE=0;UNTIL=20260103T075959", from: "2026-01-01T00:00:00Z", in: "Europe/Prague")
        #expect(justBefore.prefix(10) == ["2026-01-01T07:00:00Z", "2026-01-02T07:00:00Z"])
    }

    @Test func untilInLocalTimeInTheGapMovesForwardLikeAnOccurrence() throws {
        // UNTIL 02:30 on 2026-03-29 is 03:30 local (01:30Z), so 03:00 local (01:00Z) is still in.
        let rule = try recurrence("FREQ=DAILY;BYHOUR=3;BYMINUTE=0;UNTIL=20260329T023000", from: "2026-03-27T12:00:00Z", in: "Europe/Prague")
        #expect(rule.prefix(10) == ["2026-03-28T02:00:00Z", "2026-03-29T01:00:00Z"])
    }

    @Test func untilAsADateRunsThroughTheEndOfThatLocalDay() throws {
        let rule = try RecurrenceRule(parsing: "FREQ=DAILY;BYHOUR=23;BYMINUTE=30;UNTIL=20260103")
        let prague = Recurrence(rule: rule, start: utc("2026-01-01T00:00:00Z"), timeZone: zone("Europe/Prague"))
        #expect(prague.prefix(10) == ["2026-01-01T22:30:00Z", "2026-01-02T22:30:00Z", "2026-01-03T22:30:00Z"])
        let newYork = Recurrence(rule: rule, start: utc("2026-01-01T12:00:00Z"), timeZone: zone("America/New_York"))
        #expect(newYork.prefix(10) == ["2026-01-02T04:30:00Z", "2026-01-03T04:30:00Z", "2026-01-04T04:30:00Z"])
    }

    @Test func untilBeforeTheStartMeansNoOccurrences() throws {
        let rule = try recurrence("FREQ=DAILY;UNTIL=20251231", from: "2026-01-01T00:00:00Z", in: "UTC")
        #expect(rule.first == nil)
        #expect(rule.occurrences(from: utc("2020-01-01T00:00:00Z"), through: utc("2030-01-01T00:00:00Z")).isEmpty)
    }

    @Test func occurrencesAreInclusiveAndLimited() throws {
        let daily = try recurrence("FREQ=DAILY;BYHOUR=9;BYMINUTE=0", from: "2026-01-01T00:00:00Z", in: "UTC")
        let range = daily.occurrences(from: utc("2026-01-02T09:00:00Z"), through: utc("2026-01-05T09:00:00Z"))
        #expect(range.map(iso) == ["2026-01-02T09:00:00Z", "2026-01-03T09:00:00Z", "2026-01-04T09:00:00Z", "2026-01-05T09:00:00Z"])
        let limited = daily.occurrences(from: utc("2025-06-01T00:00:00Z"), through: utc("2027-01-01T00:00:00Z"), limit: 2)
        #expect(limited.map(iso) == ["2026-01-01T09:00:00Z", "2026-01-02T09:00:00Z"])
        #expect(daily.occurrences(from: utc("2026-01-05T00:00:00Z"), through: utc("2026-01-04T00:00:00Z")).isEmpty)
        #expect(daily.occurrences(from: utc("2026-01-01T00:00:00Z"), through: utc("2026-02-01T00:00:00Z"), limit: 0).isEmpty)
    }
}
