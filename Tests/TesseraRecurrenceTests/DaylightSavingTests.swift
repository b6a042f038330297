import Foundation
import Testing
import TesseraRecurrence

/// Local times stay local across DST changes; times a change skips move forward by the gap, and
/// times it repeats mean their first instant.
@Suite struct DaylightSavingTests {
    @Test func weeklyFridayAtEightStaysEightThroughSpringForward() throws {
        // Europe/Prague goes from +01:00 to +02:00 on Sunday 2026-03-29; the start is a Tuesday.
        let fridays = try recurrence("FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0", from: "2026-03-17T09:00:00Z", in: "Europe/Prague")
        let dates = fridays.prefix(4)
        #expect(dates == ["2026-03-20T07:00:00Z", "2026-03-27T07:00:00Z", "2026-04-03T06:00:00Z", "2026-04-10T06:00:00Z"])
        #expect(dates.map { localTime(utc($0), in: "Europe/Prague") } == ["08:00", "08:00", "08:00", "08:00"])
    }

    @Test func weeklyFridayAtEightStaysEightThroughFallBack() throws {
        // Back from +02:00 to +01:00 on Sunday 2026-10-25.
        let fridays = try recurrence("FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0", from: "2026-10-13T09:00:00Z", in: "Europe/Prague")
        let dates = fridays.prefix(4)
        #expect(dates == ["2026-10-16T06:00:00Z", "2026-10-23T06:00:00Z", "2026-10-30T07:00:00Z", "2026-11-06T07:00:00Z"])
        #expect(dates.map { localTime(utc($0), in: "Europe/Prague") } == ["08:00", "08:00", "08:00", "08:00"])
    }

    @Test func dailyAtTwoThirtyMovesForwardByTheSpringGap() throws {
        // 02:00–03:00 does not exist in Prague on 2026-03-29: 02:30 that day is 03:30 local.
        let daily = try recurrence("FREQ=DAILY;BYHOUR=2;BYMINUTE=30", from: "2026-03-27T00:00:00Z", in: "Europe/Prague")
        let dates = daily.prefix(4)
        #expect(dates == ["2026-03-27T01:30:00Z", "2026-03-28T01:30:00Z", "2026-03-29T01:30:00Z", "2026-03-30T00:30:00Z"])
        #expect(dates.map { localTime(utc($0), in: "Europe/Prague") } == ["02:30", "02:30", "03:30", "02:30"])
    }

    @Test func dailyAtTwoThirtyTakesTheFirstOfTheRepeatedHour() throws {
        // 02:00–03:00 happens twice in Prague on 2026-10-25: first at +02:00 (00:30Z), then at +01:00.
        let daily = try recurrence("FREQ=DAILY;BYHOUR=2;BYMINUTE=30", from: "2026-10-24T00:00:00Z", in: "Europe/Prague")
        #expect(daily.prefix(3) == ["2026-10-24T00:30:00Z", "2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"])
    }

    @Test func aGapTimeAndTheTimeItMovesToAreOneOccurrence() throws {
        // On 2026-03-29, 02:00 and 03:00 are both 01:00Z, and 02:30 and 03:30 both 01:30Z: the
        // day has two occurrences, not four, and they come out in order.
        let daily = try recurrence("FREQ=DAILY;BYHOUR=2,3;BYMINUTE=0,30", from: "2026-03-28T12:00:00Z", in: "Europe/Prague")
        #expect(daily.prefix(4) == ["2026-03-29T01:00:00Z", "2026-03-29T01:30:00Z", "2026-03-30T00:00:00Z", "2026-03-30T00:30:00Z"])
        let listed = daily.occurrences(from: utc("2026-03-28T12:00:00Z"), through: utc("2026-03-30T23:00:00Z"))
        #expect(listed.map(iso) == ["2026-03-29T01:00:00Z", "2026-03-29T01:30:00Z", "2026-03-30T00:00:00Z",
                                    "2026-03-30T00:30:00Z", "2026-03-30T01:00:00Z", "2026-03-30T01:30:00Z"])
    }

    @Test func aGapTimeComesAfterEarlierWallTimesThatFollowIt() throws {
        // 02:45 in the gap becomes 03:45 local (01:45Z), after 03:15 (01:15Z), though it is earlier
        // on the wall.
        let daily = try recurrence("FREQ=DAILY;BYHOUR=2,3;BYMINUTE=15,45", from: "2026-03-29T00:50:00Z", in: "Europe/Prague")
        #expect(daily.prefix(3) == ["2026-03-29T01:15:00Z", "2026-03-29T01:45:00Z", "2026-03-30T00:15:00Z"])
    }

    @Test func newYorkRepeatsOneOClockAndSkipsTwo() throws {
        // 2026-11-01: 01:00–02:00 happens twice (first at -04:00). 2026-03-08: 02:00–03:00 is skipped.
        let autumn = try recurrence("FREQ=DAILY;BYHOUR=1;BYMINUTE=30", from: "2026-10-31T16:00:00Z", in: "America/New_York")
        #expect(autumn.prefix(3) == ["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z", "2026-11-03T06:30:00Z"])
        let spring = try recurrence("FREQ=DAILY;BYHOUR=2;BYMINUTE=30", from: "2026-03-07T12:00:00Z", in: "America/New_York")
        #expect(spring.prefix(3) == ["2026-03-08T07:30:00Z", "2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z"])
    }

    @Test func sydneyChangesTheOtherWayRound() throws {
        // Southern hemisphere: forward on 2026-10-04 (02:30 → 03:30 +11:00), back on 2026-04-05.
        let spring = try recurrence("FREQ=DAILY;BYHOUR=2;BYMINUTE=30", from: "2026-10-02T02:00:00Z", in: "Australia/Sydney")
        #expect(spring.prefix(4) == ["2026-10-02T16:30:00Z", "2026-10-03T16:30:00Z", "2026-10-04T15:30:00Z", "2026-10-05T15:30:00Z"])
        let autumn = try recurrence("FREQ=DAILY;BYHOUR=2;BYMINUTE=30", from: "2026-04-03T01:00:00Z", in: "Australia/Sydney")
        #expect(autumn.prefix(4) == ["2026-04-03T15:30:00Z", "2026-04-04T15:30:00Z", "2026-04-05T16:30:00Z", "2026-04-06T16:30:00Z"])
    }

    @Test func nextAfterTheFirstOfTwoRepeatedInstantsIsTheNextDay() throws {
        // After 02:30 +02:00 on 2026-10-25, the second 02:30 (+01:00, 01:30Z) is not an occurrence.
        let daily = try recurrence("FREQ=DAILY;BYHOUR=2;BYMINUTE=30", from: "2026-10-20T00:00:00Z", in: "Europe/Prague")
        #expect(daily.next(after: utc("2026-10-25T00:30:00Z")).map(iso) == "2026-10-26T01:30:00Z")
        #expect(daily.next(after: utc("2026-10-25T00:45:00Z")).map(iso) == "2026-10-26T01:30:00Z")
    }
}
