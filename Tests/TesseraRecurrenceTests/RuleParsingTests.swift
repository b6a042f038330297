import Foundation
import Testing
import TesseraRecurrence

@Suite struct RuleParsingTests {
    @Test func readsEveryPart() throws {
        let rule = try RecurrenceRule(parsing:
            "FREQ=MONTHLY;INTERVAL=2;UNTIL=20261231T235959Z;BYMONTH=3,12;BYMONTHDAY=1,-1;BYDAY=2TU,-1FR;BYHOUR=9;BYMINUTE=0,30;WKST=SU")
        #expect(rule.frequency == .monthly)
        #expect(rule.interval == 2)
        #expect(rule.count == nil)
        #expect(rule.until == .instant(utc("2026-12-31T23:59:59Z")))
        #expect(rule.byMonth == [3, 12])
        #expect(rule.byMonthDay == [-1, 1])
        #expect(rule.byDay == [.init(ordinal: 2, .tuesday), .init(ordinal: -1, .friday)])
        #expect(rule.byHour == [9])
        #expect(rule.byMinute == [0, 30])
        #expect(rule.weekStart == .sunday)
    }

    @Test func leftOutPartsTakeTheirDefaults() throws {
        let rule = try RecurrenceRule(parsing: "FREQ=DAILY")
        #expect(rule.interval == 1)
        #expect(rule.count == nil && rule.until == nil)
        #expect(rule.byDay.isEmpty && rule.byMonthDay.isEmpty && rule.byMonth.isEmpty)
        #expect(rule.byHour.isEmpty && rule.byMinute.isEmpty)
        #expect(rule.weekStart == .monday)
    }

    @Test func writesPartsInAFixedOrderWithDefaultsLeftOut() throws {
        let rule = try RecurrenceRule(parsing:
            "WKST=SU;BYMINUTE=30,0;BYHOUR=9;BYDAY=-1FR,2TU;BYMONTHDAY=1;BYMONTH=12,3;COUNT=4;INTERVAL=2;FREQ=MONTHLY")
        #expect(rule.description
            == "FREQ=MONTHLY;INTERVAL=2;COUNT=4;BYMONTH=3,12;BYMONTHDAY=1;BYDAY=2TU,-1FR;BYHOUR=9;BYMINUTE=0,30;WKST=SU")
        #expect(try RecurrenceRule(parsing: "FREQ=WEEKLY;INTERVAL=1;WKST=MO").description == "FREQ=WEEKLY")
    }

    @Test func acceptsThePrefixAnyCaseAndSpacesAround() throws {
        let rule = try RecurrenceRule(parsing: "  RRULE:freq=weekly;byday=fr;byhour=8;byminute=0\n")
        #expect(rule.description == "FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0")
        #expect(rule == (try RecurrenceRule(parsing: "FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0")))
    }

    @Test func listsAreSortedAndRepeatsDropped() throws {
        let rule = try RecurrenceRule(parsing: "FREQ=MONTHLY;BYDAY=FR,MO,+2TU,FR;BYHOUR=8,8,7")
        #expect(rule.description == "FREQ=MONTHLY;BYDAY=MO,2TU,FR;BYHOUR=7,8")
        #expect(rule == (try RecurrenceRule(parsing: "FREQ=MONTHLY;BYDAY=MO,FR,2TU;BYHOUR=7,8")))
    }

    @Test func readsUntilInItsThreeForms() throws {
        let instant = try RecurrenceRule(parsing: "FREQ=DAILY;UNTIL=20260329T013000Z")
        #expect(instant.until == .instant(utc("2026-03-29T01:30:00Z")))
        let local = try RecurrenceRule(parsing: "FREQ=DAILY;UNTIL=20260329T023000")
        #expect(local.until == .localDateTime(.init(date: .init(year: 2026, month: 3, day: 29), hour: 2, minute: 30, second: 0)))
        let date = try RecurrenceRule(parsing: "FREQ=DAILY;UNTIL=20280229")
        #expect(date.until == .localDate(.init(year: 2028, month: 2, day: 29)))
    }

    @Test(arguments: [
        "FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0",
        "FREQ=DAILY;INTERVAL=3;COUNT=10",
        "FREQ=DAILY;UNTIL=20261025T023000",
        "FREQ=DAILY;UNTIL=20261025",
        "FREQ=WEEKLY;UNTIL=20000101T000000Z;BYDAY=TU,TH",
        "FREQ=MONTHLY;BYDAY=-1FR",
        "FREQ=MONTHLY;BYMONTHDAY=-31,-1,1,31",
        "FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU;BYHOUR=2;BYMINUTE=30",
        "FREQ=YEARLY;BYDAY=20MO,-53SU",
        "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE,FR;WKST=SU",
    ])
    func canonicalTextRoundTrips(_ text: String) throws {
        let rule = try RecurrenceRule(parsing: text)
        #expect(rule.description == text)
        #expect(try RecurrenceRule(parsing: rule.description) == rule)
    }
}
