import Foundation
import Testing
import TesseraSDK

/// `CivilDate`, `CivilMonth` and `CivilCalendar`: parsing only days that exist, day arithmetic
/// checked against Foundation's Gregorian calendar over 1600–2400, and a zone's days across a
/// daylight-saving change.
@Suite struct CivilDatesTests {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    @Test func onlyDaysThatExistAreParsed() {
        #expect(CivilDate("2024-02-29")?.description == "2024-02-29")
        #expect(CivilDate("2026-02-29") == nil)
        #expect(CivilDate("2000-02-29") != nil)  // divisible by 400: a leap year
        #expect(CivilDate("1900-02-29") == nil)  // divisible by 100 only: not one
        #expect(CivilDate("2026-04-31") == nil)
        #expect(CivilDate("2026-13-01") == nil)
        #expect(CivilDate("2026-00-10") == nil)
        #expect(CivilDate("0000-02-29") != nil)  // the year 0 (1 BC) is a leap year
        #expect(CivilDate("-001-01-01") == nil && CivilDate("10000-01-01") == nil)
        for text in ["2026-1-011", "2026/01/01", "26-01-01", "2026-01-01T00:00", "２０２６-01-01", " 2026-01-1", "+026-01-01", ""] {
            #expect(CivilDate(text) == nil, "\(text)")
        }
        #expect(CivilDate(year: 2026, month: 3, day: 27)?.description == "2026-03-27")
        #expect(CivilDate(year: 7, month: 1, day: 2)?.description == "0007-01-02")
    }

    @Test func monthsParseAndKnowTheirDays() throws {
        let february = try #require(CivilMonth("2028-02"))
        #expect(february.dayCount == 29 && february.first.description == "2028-02-01" && february.last.description == "2028-02-29")
        #expect(CivilMonth("2027-02")?.dayCount == 28)
        #expect(CivilMonth("2026-13") == nil && CivilMonth("2026-1") == nil && CivilMonth("2026-01-01") == nil)
        #expect(february.adding(months: 11).description == "2029-01")
        #expect(february.adding(months: -2).description == "2027-12")
        #expect(CivilMonth("2026-12")! < CivilMonth("2027-01")!)
        #expect(CivilDate("2026-11-29")!.civilMonth.description == "2026-11")
    }

    @Test func dayArithmeticAgreesWithFoundationOverEightCenturies() throws {
        let start = try #require(CivilDate("1600-01-01"))
        let startInstant = try #require(Self.utc.date(from: DateComponents(year: 1600, month: 1, day: 1)))
        var day = start
        // Every 7th day over 800 years, so that each month, leap day and weekday is met.
        for offset in stride(from: 0, through: 292_000, by: 7) {
            let instant = Self.utc.date(byAdding: .day, value: offset, to: startInstant)!
            let parts = Self.utc.dateComponents([.year, .month, .day, .weekday], from: instant)
            day = start.adding(days: offset)
            #expect(day.year == parts.year && day.month == parts.month && day.day == parts.day, "\(offset)")
            #expect(day.weekday == (parts.weekday! + 5) % 7 + 1, "\(day)")
            #expect(start.days(to: day) == offset)
            #expect(CivilDate(day.description) == day)
            if day.year != parts.year { break }
        }
        #expect(day.year == 2399)
    }

    @Test func theEpochWeekdaysAndMondays() {
        #expect(CivilDate("1970-01-01")!.daysSinceEpoch == 0)
        #expect(CivilDate(daysSinceEpoch: -1).description == "1969-12-31")
        #expect(CivilDate("1970-01-01")!.weekday == 4)  // a Thursday
        #expect(CivilDate("2026-11-29")!.weekday == 7)  // a Sunday
        #expect(CivilDate("2026-11-29")!.monday.description == "2026-11-23")
        #expect(CivilDate("2026-11-23")!.monday.description == "2026-11-23")
        #expect(CivilDate("2026-03-01")!.adding(days: -1).description == "2026-02-28")
        #expect(CivilDate("2026-01-01")! < CivilDate("2026-01-02")!)
        #expect(CivilDate(daysSinceEpoch: .min / 2).description == "0000-01-01")
        #expect(CivilDate(daysSinceEpoch: .max / 2).description == "9999-12-31")
    }

    @Test func aZonesDaysAcrossTheSpringChange() throws {
        let prague = CivilCalendar(timeZone: "Europe/Prague")
        let day = try #require(CivilDate("2026-03-29"))  // clocks go from 02:00 to 03:00
        let midnight = try #require(prague.instant(of: day))
        let next = try #require(prague.instant(of: day.adding(days: 1)))
        #expect(next.timeIntervalSince(midnight) == 23 * 3600)
        #expect(prague.date(of: next.addingTimeInterval(-1)) == day)
        #expect(prague.date(of: next) == day.adding(days: 1))
        let eight = try #require(prague.instant(of: day, hour: 8))
        #expect(prague.timeOfDay(of: eight).hour == 8 && prague.timeOfDay(of: eight).minute == 0)
        #expect(eight.timeIntervalSince(midnight) == 7 * 3600)
        #expect(prague.startOfDay(eight) == midnight)
        #expect(prague.instant(of: day, hour: 24) == nil && prague.instant(of: day, minute: 60) == nil)
        // 23:30 UTC on 28 March is already the 29th in Prague (UTC+1).
        #expect(prague.date(of: Date(timeIntervalSince1970: 1_774_740_600)).description == "2026-03-29")
        #expect(CivilCalendar(timeZone: "Not/AZone").timeZone.secondsFromGMT() == 0)  // UTC
    }
}
