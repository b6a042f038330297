import Foundation
import Testing
import TesseraSystem

/// The one copy of the Gregorian day arithmetic the host's modules share (sync and location
/// timestamps, recurrence rules): checked against Foundation's own Gregorian calendar.
@Suite struct GregorianDaysTests {
    @Test func daysCountFrom1970AndADayPastTheMonthsEndCountsOn() {
        #expect(GregorianDays.days(year: 1970, month: 1, day: 1) == 0)
        #expect(GregorianDays.days(year: 1969, month: 12, day: 31) == -1)
        #expect(GregorianDays.days(year: 2000, month: 3, day: 1) == 11_017)
        #expect(GregorianDays.days(year: 2026, month: 2, day: 30) == GregorianDays.days(year: 2026, month: 3, day: 2))
        #expect(GregorianDays.date(days: GregorianDays.days(year: 2024, month: 2, day: 29)) == (2024, 2, 29))
    }

    /// Every 97th day from 1583 to 9999 (every month, leap and common years) as Foundation's
    /// Gregorian calendar in UTC has it, both ways. (Foundation's calendar is Julian before
    /// 15 October 1582; this arithmetic stays Gregorian, as ISO 8601 counts.)
    @Test func agreesWithFoundationsGregorianCalendarFrom1583To9999() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let first = GregorianDays.days(year: 1583, month: 1, day: 1), last = GregorianDays.days(year: 9999, month: 12, day: 31)
        var disagreements: [Int64] = []
        for days in stride(from: first, through: last, by: 97) {
            let parts = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: Double(days) * 86_400))
            let (year, month, day) = GregorianDays.date(days: days)
            if (Int(year), Int(month), Int(day)) != (parts.year, parts.month, parts.day)
                || GregorianDays.days(year: year, month: month, day: day) != days {
                disagreements.append(days)
            }
        }
        #expect(disagreements.isEmpty, "first disagreements: \(disagreements.prefix(5))")
    }

    /// From the year 0 on, each day read back is the same day.
    @Test func everyDayFromTheYear0ReadsBackAsItself() {
        let first = GregorianDays.days(year: 0, month: 1, day: 1), last = GregorianDays.days(year: 9999, month: 12, day: 31)
        let wrong = stride(from: first, through: last, by: 1).first { days in
            let (year, month, day) = GregorianDays.date(days: days)
            return GregorianDays.days(year: year, month: month, day: day) != days
        }
        #expect(wrong == nil)
    }
}
