import Foundation

/// Calendar dates in the person's time zone: "today", months, the days of a month. Dates are
/// `YYYY-MM-DD` text, months `YYYY-MM`, so that SQL compares and groups them as text.
struct LocalDates: Sendable {
    let calendar: Calendar

    /// Dates in the IANA zone `identifier` (UTC if unknown).
    init(timeZone identifier: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: identifier) ?? TimeZone(identifier: "UTC")!
        calendar.firstWeekday = 2  // weeks start on Monday, as in Slovakia and Czechia
        self.calendar = calendar
    }

    /// `YYYY-MM-DD` of `instant` here.
    func day(_ instant: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: instant)
        return Self.text(c.year!, c.month!, c.day!)
    }

    /// `YYYY-MM` of `instant` here.
    func month(_ instant: Date) -> String { String(day(instant).prefix(7)) }

    /// The first and last day of `month` (`YYYY-MM`), or `nil` if it is not a month.
    func bounds(ofMonth month: String) -> (first: String, last: String)? {
        guard let (year, number) = Self.parseMonth(month),
              let start = calendar.date(from: DateComponents(year: year, month: number, day: 1)),
              let days = calendar.range(of: .day, in: .month, for: start) else { return nil }
        return (Self.text(year, number, 1), Self.text(year, number, days.count))
    }

    /// The number of days in `month`.
    func dayCount(ofMonth month: String) -> Int {
        guard let (first, last) = bounds(ofMonth: month) else { return 0 }
        return Int(last.suffix(2))! - Int(first.suffix(2))! + 1
    }

    /// The instant `hour:minute` local time on `day` (`YYYY-MM-DD`).
    func instant(day: String, hour: Int, minute: Int) -> Date? {
        guard let (y, m, d) = Self.parseDay(day) else { return nil }
        return calendar.date(from: DateComponents(year: y, month: m, day: d, hour: hour, minute: minute))
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
        guard let date = utcDate(day) else { return nil }
        let weekday = utc.component(.weekday, from: date)  // 1 = Sunday … 7 = Saturday
        let monday = adding(-((weekday + 5) % 7), to: day)
        return (monday, adding(6, to: monday))
    }

    /// Whether `text` is a real `YYYY-MM-DD` date.
    static func isDay(_ text: String) -> Bool { parseDay(text) != nil }

    static func parseDay(_ text: String) -> (Int, Int, Int)? {
        let parts = text.split(separator: "-")
        guard text.count == 10, parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
              (1...12).contains(m), d >= 1, d <= daysIn(year: y, month: m) else { return nil }
        return (y, m, d)
    }

    static func parseMonth(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: "-")
        guard text.count == 7, parts.count == 2, let y = Int(parts[0]), let m = Int(parts[1]), (1...12).contains(m) else { return nil }
        return (y, m)
    }

    static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `day` moved by `days` (negative: earlier), on the calendar alone.
    static func adding(_ days: Int, to day: String) -> String {
        guard let date = utcDate(day), let moved = utc.date(byAdding: .day, value: days, to: date) else { return day }
        let c = utc.dateComponents([.year, .month, .day], from: moved)
        return text(c.year!, c.month!, c.day!)
    }

    /// Whole days from `a` to `b`.
    static func daysBetween(_ a: String, _ b: String) -> Int {
        guard let one = utcDate(a), let two = utcDate(b) else { return 0 }
        return utc.dateComponents([.day], from: one, to: two).day ?? 0
    }

    /// Day arithmetic runs in UTC, where every day has 24 hours.
    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    private static func utcDate(_ day: String) -> Date? {
        guard let (y, m, d) = parseDay(day) else { return nil }
        return utc.date(from: DateComponents(year: y, month: m, day: d))
    }

    static func text(_ y: Int, _ m: Int, _ d: Int) -> String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(y)-\(two(m))-\(two(d))"
    }
}
