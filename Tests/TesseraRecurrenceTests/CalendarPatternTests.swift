import Foundation
import Testing
import TesseraRecurrence

/// Monthly and yearly rules: ordinals, days counted from the month's end, days some months lack.
@Suite struct CalendarPatternTests {
    @Test func monthlySecondTuesday() throws {
        let rule = try recurrence("FREQ=MONTHLY;BYDAY=2TU;BYHOUR=9;BYMINUTE=0", from: "2026-01-01T00:00:00Z", in: "Europe/Prague")
        #expect(rule.prefix(6) == ["2026-01-13T08:00:00Z", "2026-02-10T08:00:00Z", "2026-03-10T08:00:00Z",
                                   "2026-04-14T07:00:00Z", "2026-05-12T07:00:00Z", "2026-06-09T07:00:00Z"])
    }

    @Test func monthlyLastFriday() throws {
        let rule = try recurrence("FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=17;BYMINUTE=0", from: "2026-01-01T05:00:00Z", in: "America/New_York")
        #expect(rule.prefix(6) == ["2026-01-30T22:00:00Z", "2026-02-27T22:00:00Z", "2026-03-27T21:00:00Z",
                                   "2026-04-24T21:00:00Z", "2026-05-29T21:00:00Z", "2026-06-26T21:00:00Z"])
    }

    @Test func yearlyLastSundayOfMarch() throws {
        // The ordinal counts within BYMONTH's month, not the year. 2026-03-29 is also Prague's
        // change to summer time, so 10:00 there is 08:00Z.
        let rule = try recurrence("FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU;BYHOUR=10;BYMINUTE=0", from: "2026-01-01T00:00:00Z", in: "Europe/Prague")
        #expect(rule.prefix(5) == ["2026-03-29T08:00:00Z", "2027-03-28T08:00:00Z", "2028-03-26T08:00:00Z",
                                   "2029-03-25T08:00:00Z", "2030-03-31T08:00:00Z"])
    }

    @Test func yearlyOrdinalsWithoutMonthCountInTheYear() throws {
        let twentiethMonday = try recurrence("FREQ=YEARLY;BYDAY=20MO", from: "2026-01-01T09:00:00Z", in: "UTC")
        #expect(twentiethMonday.prefix(3) == ["2026-05-18T09:00:00Z", "2027-05-17T09:00:00Z", "2028-05-15T09:00:00Z"])
        let lastSunday = try recurrence("FREQ=YEARLY;BYDAY=-1SU", from: "2026-01-01T09:00:00Z", in: "UTC")
        #expect(lastSunday.prefix(3) == ["2026-12-27T09:00:00Z", "2027-12-26T09:00:00Z", "2028-12-31T09:00:00Z"])
    }

    @Test func lastDayOfTheMonthIncludingLeapFebruary() throws {
        let rule = try recurrence("FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=12;BYMINUTE=0", from: "2027-11-15T00:00:00Z", in: "UTC")
        #expect(rule.prefix(6) == ["2027-11-30T12:00:00Z", "2027-12-31T12:00:00Z", "2028-01-31T12:00:00Z",
                                   "2028-02-29T12:00:00Z", "2028-03-31T12:00:00Z", "2028-04-30T12:00:00Z"])
        let nonLeap = try recurrence("FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=12;BYMINUTE=0", from: "2027-02-01T00:00:00Z", in: "UTC")
        #expect(nonLeap.first.map(iso) == "2027-02-28T12:00:00Z")
    }

    @Test func the31stSkipsShortMonthsInsteadOfMovingToTheirLastDay() throws {
        let rule = try recurrence("FREQ=MONTHLY;BYMONTHDAY=31;BYHOUR=12;BYMINUTE=0", from: "2026-01-01T00:00:00Z", in: "UTC")
        #expect(rule.prefix(7) == ["2026-01-31T12:00:00Z", "2026-03-31T12:00:00Z", "2026-05-31T12:00:00Z",
                                   "2026-07-31T12:00:00Z", "2026-08-31T12:00:00Z", "2026-10-31T12:00:00Z",
                                   "2026-12-31T12:00:00Z"])
        let fromThe31st = try recurrence("FREQ=MONTHLY", from: "2026-01-31T07:30:00Z", in: "UTC")
        #expect(fromThe31st.prefix(3) == ["2026-01-31T07:30:00Z", "2026-03-31T07:30:00Z", "2026-05-31T07:30:00Z"])
    }

    @Test func byMonthDayAndByDayTogetherNarrowEachOther() throws {
        let fridayThe13th = try recurrence("FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13;BYHOUR=9;BYMINUTE=0", from: "2026-01-01T09:00:00Z", in: "UTC")
        #expect(fridayThe13th.prefix(4) == ["2026-02-13T09:00:00Z", "2026-03-13T09:00:00Z", "2026-11-13T09:00:00Z", "2027-08-13T09:00:00Z"])
    }

    @Test func yearlyWithoutDayPartsRepeatsTheStartDate() throws {
        let leapDay = try recurrence("FREQ=YEARLY", from: "2024-02-29T07:30:00Z", in: "UTC")
        #expect(leapDay.prefix(3) == ["2024-02-29T07:30:00Z", "2028-02-29T07:30:00Z", "2032-02-29T07:30:00Z"])
        let inJune = try recurrence("FREQ=YEARLY;BYMONTH=6,12", from: "2026-03-05T10:00:00Z", in: "UTC")
        #expect(inJune.prefix(3) == ["2026-06-05T10:00:00Z", "2026-12-05T10:00:00Z", "2027-06-05T10:00:00Z"])
    }

    @Test func aRuleThatCanNeverFireHasNoOccurrences() throws {
        let february30 = try recurrence("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", from: "2026-01-01T00:00:00Z", in: "UTC")
        #expect(february30.first == nil)
        #expect(february30.next(after: utc("2030-01-01T00:00:00Z")) == nil)
        // Every seventh day from a Monday is always a Monday, never a Tuesday.
        let never = try recurrence("FREQ=DAILY;INTERVAL=7;BYDAY=TU", from: "2026-01-05T08:00:00Z", in: "UTC")
        #expect(never.first == nil)
        // Every fourth year from 2097 (2101, 2105, …) is never a leap year; from 2096 it usually is,
        // except 2100. The second needs the 400-year cycle; the first must still end.
        let offLeap = try recurrence("FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29", from: "2097-01-01T00:00:00Z", in: "UTC")
        #expect(offLeap.first == nil)
        let onLeap = try recurrence("FREQ=YEARLY;INTERVAL=4;BYMONTH=2;BYMONTHDAY=29", from: "2096-01-01T00:00:00Z", in: "UTC")
        #expect(onLeap.prefix(2) == ["2096-02-29T00:00:00Z", "2104-02-29T00:00:00Z"])
    }
}
