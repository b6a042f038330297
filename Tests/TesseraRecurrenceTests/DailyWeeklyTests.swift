import Foundation
import Testing
import TesseraRecurrence

/// Daily and weekly rules, times of day, and what the start contributes.
@Suite struct DailyWeeklyTests {
    @Test func everySecondWeekOnSeveralDays() throws {
        // The start (Wednesday 2026-05-06) is in week 0, which runs Monday 05-04 to Sunday 05-10.
        let rule = try recurrence("FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,TH,SA;BYHOUR=18;BYMINUTE=0", from: "2026-05-06T00:00:00Z", in: "UTC")
        #expect(rule.prefix(8) == ["2026-05-07T18:00:00Z", "2026-05-09T18:00:00Z",
                                   "2026-05-19T18:00:00Z", "2026-05-21T18:00:00Z", "2026-05-23T18:00:00Z",
                                   "2026-06-02T18:00:00Z", "2026-06-04T18:00:00Z", "2026-06-06T18:00:00Z"])
    }

    @Test func weekStartDecidesWhichDaysShareAWeek() throws {
        // From Tuesday 2026-05-05. With weeks from Monday, Sunday 05-10 is in the start's week; with
        // weeks from Sunday, it begins the skipped week, and 05-17 is the next Sunday that fires.
        let monday = try recurrence("FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;BYHOUR=18;BYMINUTE=0", from: "2026-05-05T00:00:00Z", in: "UTC")
        #expect(monday.prefix(4) == ["2026-05-05T18:00:00Z", "2026-05-10T18:00:00Z", "2026-05-19T18:00:00Z", "2026-05-24T18:00:00Z"])
        let sunday = try recurrence("FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;BYHOUR=18;BYMINUTE=0;WKST=SU", from: "2026-05-05T00:00:00Z", in: "UTC")
        #expect(sunday.prefix(4) == ["2026-05-05T18:00:00Z", "2026-05-17T18:00:00Z", "2026-05-19T18:00:00Z", "2026-05-31T18:00:00Z"])
    }

    @Test func severalHoursAndMinutesFireInOrderEachDay() throws {
        let rule = try recurrence("FREQ=DAILY;BYHOUR=20,8;BYMINUTE=45,15", from: "2026-06-01T12:00:00Z", in: "UTC")
        #expect(rule.prefix(6) == ["2026-06-01T20:15:00Z", "2026-06-01T20:45:00Z", "2026-06-02T08:15:00Z",
                                   "2026-06-02T08:45:00Z", "2026-06-02T20:15:00Z", "2026-06-02T20:45:00Z"])
    }

    @Test func theStartIsAnOccurrenceOnlyIfItMatches() throws {
        // "Every Friday 08:00 starting today", today being Tuesday 2026-03-17 at 08:00 Prague time.
        let fromTuesday = try recurrence("FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0", from: "2026-03-17T07:00:00Z", in: "Europe/Prague")
        #expect(fromTuesday.first.map(iso) == "2026-03-20T07:00:00Z")
        let fromFriday = try recurrence("FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0", from: "2026-03-20T07:00:00Z", in: "Europe/Prague")
        #expect(fromFriday.first.map(iso) == "2026-03-20T07:00:00Z")
        let afterEight = try recurrence("FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0", from: "2026-03-20T07:01:00Z", in: "Europe/Prague")
        #expect(afterEight.first.map(iso) == "2026-03-27T07:00:00Z")
        // Seconds always come from the start (there is no BYSECOND), so 08:00:30 matches itself.
        let withSeconds = try recurrence("FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0", from: "2026-03-20T07:00:30Z", in: "Europe/Prague")
        #expect(withSeconds.prefix(2) == ["2026-03-20T07:00:30Z", "2026-03-27T07:00:30Z"])
    }

    @Test func leftOutPartsComeFromTheStartsLocalTime() throws {
        // 2026-07-14T06:20:05Z is Tuesday 08:20:05 in Prague.
        let daily = try recurrence("FREQ=DAILY", from: "2026-07-14T06:20:05Z", in: "Europe/Prague")
        #expect(daily.prefix(2) == ["2026-07-14T06:20:05Z", "2026-07-15T06:20:05Z"])
        let weekly = try recurrence("FREQ=WEEKLY;BYHOUR=7", from: "2026-07-14T06:20:05Z", in: "Europe/Prague")
        #expect(weekly.prefix(2) == ["2026-07-21T05:20:05Z", "2026-07-28T05:20:05Z"])
        let monthly = try recurrence("FREQ=MONTHLY;BYMINUTE=0", from: "2026-07-14T06:20:05Z", in: "Europe/Prague")
        #expect(monthly.prefix(2) == ["2026-08-14T06:00:05Z", "2026-09-14T06:00:05Z"])
    }

    @Test func aFractionalStartKeepsItsFraction() throws {
        let start = utc("2026-01-01T09:00:00Z").addingTimeInterval(0.25)
        let daily = Recurrence(rule: try RecurrenceRule(parsing: "FREQ=DAILY"), start: start, timeZone: zone("UTC"))
        #expect(daily.first == start)
        #expect(daily.next(after: start) == start.addingTimeInterval(86_400))
        #expect(daily.next(after: start.addingTimeInterval(-0.1)) == start)
    }

    @Test func dailyWithLimitsOnMonthAndWeekday() throws {
        let weekdaysInDecember = try recurrence("FREQ=DAILY;BYMONTH=12;BYDAY=MO,TU,WE,TH,FR;BYHOUR=7;BYMINUTE=0",
                                                from: "2026-11-30T12:00:00Z", in: "UTC")
        #expect(weekdaysInDecember.prefix(6) == ["2026-12-01T07:00:00Z", "2026-12-02T07:00:00Z", "2026-12-03T07:00:00Z",
                                                 "2026-12-04T07:00:00Z", "2026-12-07T07:00:00Z", "2026-12-08T07:00:00Z"])
        #expect(weekdaysInDecember.next(after: utc("2026-12-31T08:00:00Z")).map(iso) == "2027-12-01T07:00:00Z")
    }
}
