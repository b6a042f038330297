import Foundation
import TesseraSDK

/// Calendar dates in the person's time zone: "today", months, the days of a month. Dates are
/// `YYYY-MM-DD` text, months `YYYY-MM`, so that SQL compares and groups them as text. The calendar
/// arithmetic is the SDK's (`CivilDate`, `CivilMonth`, `CivilCalendar`); this type speaks the texts
/// the module stores.
struct LocalDates: Sendable {
    let civil: CivilCalendar

    /// The Gregorian calendar of the person's zone.
    var calendar: Calendar { civil.calendar }

    /// Dates in the IANA zone `identifier` (UTC if unknown).
    init(timeZone identifier: String) { civil = CivilCalendar(timeZone: identifier) }

    /// `YYYY-MM-DD` of `instant` here.
    func day(_ instant: Date) -> String { civil.date(of: instant).description }

    /// `YYYY-MM` of `instant` here.
    func month(_ instant: Date) -> String { civil.date(of: instant).civilMonth.description }

    /// The first and last day of `month` (`YYYY-MM`), or `nil` if it is not a month.
    func bounds(ofMonth month: String) -> (first: String, last: String)? {
        CivilMonth(month).map { ($0.first.description, $0.last.description) }
    }

    /// The instant `hour:minute` local time on `day` (`YYYY-MM-DD`).
    func instant(day: String, hour: Int, minute: Int) -> Date? {
        CivilDate(day).flatMap { civil.instant(of: $0, hour: hour, minute: minute) }
    }

    /// The first Friday 08:00 here strictly after `instant`: 08:00 local time on either side of a
    /// daylight-saving change.
    func nextFridayEight(after instant: Date) -> Date? {
        calendar.nextDate(after: instant, matching: DateComponents(hour: 8, minute: 0, second: 0, weekday: 6), matchingPolicy: .nextTime)
    }

    /// The next `hour`:00 here strictly after `instant` (the daily import's time).
    func nextHour(_ hour: Int, after instant: Date) -> Date? {
        calendar.nextDate(after: instant, matching: DateComponents(hour: hour, minute: 0, second: 0), matchingPolicy: .nextTime)
    }

    /// The Monday and Sunday of the week holding `day` (weeks run Monday to Sunday, spec §7.4).
    static func week(containing day: String) -> (first: String, last: String)? {
        CivilDate(day).map { ($0.monday.description, $0.monday.adding(days: 6).description) }
    }

    /// Whether `text` is a real `YYYY-MM-DD` date.
    static func isDay(_ text: String) -> Bool { CivilDate(text) != nil }

    static func parseDay(_ text: String) -> (Int, Int, Int)? {
        CivilDate(text).map { ($0.year, $0.month, $0.day) }
    }

    static func parseMonth(_ text: String) -> (Int, Int)? {
        CivilMonth(text).map { ($0.year, $0.month) }
    }

    static func daysIn(year: Int, month: Int) -> Int { CivilMonth.dayCount(year: year, month: month) }

    /// `day` moved by `days` (negative: earlier), on the calendar alone.
    static func adding(_ days: Int, to day: String) -> String {
        CivilDate(day)?.adding(days: days).description ?? day
    }

    /// Whole days from `a` to `b`.
    static func daysBetween(_ a: String, _ b: String) -> Int {
        guard let one = CivilDate(a), let two = CivilDate(b) else { return 0 }
        return one.days(to: two)
    }

    /// `YYYY-MM-DD` of a day known to exist (the callers clamp the day to the month's length).
    static func text(_ y: Int, _ m: Int, _ d: Int) -> String {
        CivilDate(year: y, month: m, day: d)?.description ?? "\(y)-\(m)-\(d)"
    }
}
