import Foundation

// Dates as people write them: a day of the calendar and a month, with no time and no zone, and the
// calendar of one time zone that turns an instant into "today" there. A plugin stores days as their
// `YYYY-MM-DD` text, so SQL compares, sorts and groups them as the days they are.
//
// Day arithmetic is integer arithmetic on the proleptic Gregorian calendar (days since 1970-01-01),
// so it never meets a daylight-saving change: a day is always one day.

/// A day of the calendar, with no time and no zone: a birthday, a due date, the day of a diary entry
/// (SDK 1.10).
///
/// Its text is `YYYY-MM-DD`, which sorts as the days do. Only days that exist are made:
/// `CivilDate("2026-02-30")` is nil.
///
/// ```swift
/// let due = CivilDate("2026-03-27")!
/// due.adding(days: 7).description   // "2026-04-03"
/// due.weekday                        // 5, a Friday (1 is Monday)
/// ```
public struct CivilDate: Hashable, Comparable, Sendable, LosslessStringConvertible {
    /// The year, 0 to 9999 (the year 0 is 1 BC, as ISO 8601 counts).
    public let year: Int
    /// The month, 1 (January) to 12.
    public let month: Int
    /// The day of the month, from 1.
    public let day: Int

    /// The day `year`-`month`-`day`, or nil when it does not exist (a 30 February, a month 13, a year
    /// outside 0…9999).
    public init?(year: Int, month: Int, day: Int) {
        guard (0...9999).contains(year), (1...12).contains(month),
              day >= 1, day <= CivilMonth.dayCount(year: year, month: month) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The day written `YYYY-MM-DD` (four, two and two digits), or nil when the text is not one or
    /// the day does not exist.
    public init?(_ text: String) {
        let digits = Array(text.utf8)
        guard digits.count == 10, digits[4] == UInt8(ascii: "-"), digits[7] == UInt8(ascii: "-"),
              let year = decimal(digits[0..<4]), let month = decimal(digits[5..<7]), let day = decimal(digits[8..<10])
        else { return nil }
        self.init(year: year, month: month, day: day)
    }

    /// The day `days` after 1970-01-01 (negative: before it). Years outside 0…9999 are clamped.
    public init(daysSinceEpoch days: Int) {
        // Howard Hinnant's civil_from_days: eras of 400 years, each 146,097 days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        if year < 0 { self.year = 0; self.month = 1; self.day = 1 }
        else if year > 9999 { self.year = 9999; self.month = 12; self.day = 31 }
        else { self.year = year; self.month = month; self.day = day }
    }

    /// Days from 1970-01-01 to this day (negative before it).
    public var daysSinceEpoch: Int {
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `YYYY-MM-DD`.
    public var description: String { "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))" }

    /// The day `days` later (negative: earlier).
    public func adding(days: Int) -> CivilDate { CivilDate(daysSinceEpoch: daysSinceEpoch + days) }

    /// Whole days from this day to `other`: positive when `other` is later.
    public func days(to other: CivilDate) -> Int { other.daysSinceEpoch - daysSinceEpoch }

    /// The day of the week as ISO 8601 numbers it: 1 is Monday, 7 is Sunday.
    public var weekday: Int {
        let fromMonday = (daysSinceEpoch + 3) % 7  // 1970-01-01 was a Thursday
        return (fromMonday < 0 ? fromMonday + 7 : fromMonday) + 1
    }

    /// The Monday that starts this day's week (weeks run Monday to Sunday, as in ISO 8601).
    public var monday: CivilDate { adding(days: 1 - weekday) }

    /// The month this day is in.
    public var civilMonth: CivilMonth { CivilMonth(validYear: year, month: month) }

    /// Whether `lhs` is the earlier day.
    public static func < (lhs: CivilDate, rhs: CivilDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }
}

/// A month of the calendar, with no zone: a budget's month, a statement's month (SDK 1.10).
///
/// Its text is `YYYY-MM`, which sorts as the months do.
public struct CivilMonth: Hashable, Comparable, Sendable, LosslessStringConvertible {
    /// The year, 0 to 9999 (the year 0 is 1 BC, as ISO 8601 counts).
    public let year: Int
    /// The month, 1 (January) to 12.
    public let month: Int

    /// The month `year`-`month`, or nil when it does not exist (a month 13, a year outside 0…9999).
    public init?(year: Int, month: Int) {
        guard (0...9999).contains(year), (1...12).contains(month) else { return nil }
        self.init(validYear: year, month: month)
    }

    /// The month written `YYYY-MM` (four and two digits), or nil when the text is not one.
    public init?(_ text: String) {
        let digits = Array(text.utf8)
        guard digits.count == 7, digits[4] == UInt8(ascii: "-"),
              let year = decimal(digits[0..<4]), let month = decimal(digits[5..<7]) else { return nil }
        self.init(year: year, month: month)
    }

    init(validYear year: Int, month: Int) {
        self.year = year
        self.month = month
    }

    /// `YYYY-MM`.
    public var description: String { "\(padded(year, 4))-\(padded(month, 2))" }

    /// How many days the month has: 28 to 31.
    public var dayCount: Int { Self.dayCount(year: year, month: month) }

    /// The month's first day.
    public var first: CivilDate { CivilDate(year: year, month: month, day: 1)! }

    /// The month's last day.
    public var last: CivilDate { CivilDate(year: year, month: month, day: dayCount)! }

    /// The month `months` later (negative: earlier). Years outside 0…9999 are clamped.
    public func adding(months: Int) -> CivilMonth {
        let index = min(max(year * 12 + month - 1 + months, 0), 9999 * 12 + 11)
        return CivilMonth(validYear: index / 12, month: index % 12 + 1)
    }

    /// Days in `month` (1…12) of `year` in the Gregorian calendar: February has 29 in a leap year.
    public static func dayCount(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Whether `lhs` is the earlier month.
    public static func < (lhs: CivilMonth, rhs: CivilMonth) -> Bool { (lhs.year, lhs.month) < (rhs.year, rhs.month) }
}

/// The Gregorian calendar of one time zone: which day an instant falls on there, and the instant a
/// local time on a day stands for.
///
/// Give it the person's zone (an IANA identifier such as `Europe/Prague`) and the host's clock's
/// instant, never the wall clock, so that a virtual clock moves "today" too.
///
/// ```swift
/// let prague = CivilCalendar(timeZone: "Europe/Prague")
/// let today = prague.date(of: clock.now())
/// let reminder = prague.instant(of: today.adding(days: 1), hour: 8)
/// ```
public struct CivilCalendar: Sendable {
    /// The Gregorian calendar in ``timeZone``, for what this type does not offer.
    public let calendar: Calendar

    /// The zone the days are counted in.
    public var timeZone: TimeZone { calendar.timeZone }

    /// The calendar of the IANA zone `identifier`; UTC when the identifier names no zone.
    public init(timeZone identifier: String) {
        self.init(timeZone: TimeZone(identifier: identifier) ?? TimeZone(identifier: "UTC")!)
    }

    /// The calendar of `timeZone`.
    public init(timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    /// The day `instant` falls on in this zone (for an instant beyond the years 0…9999, the nearest
    /// day that is not).
    public func date(of instant: Date) -> CivilDate {
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return CivilDate(year: parts.year!, month: parts.month!, day: parts.day!)
            ?? CivilDate(daysSinceEpoch: Int((instant.timeIntervalSince1970 / 86_400).rounded(.down)))
    }

    /// The hour (0–23) and minute the clocks of this zone show at `instant`.
    public func timeOfDay(of instant: Date) -> (hour: Int, minute: Int) {
        let parts = calendar.dateComponents([.hour, .minute], from: instant)
        return (parts.hour!, parts.minute!)
    }

    /// The instant of the local time `hour`:`minute` on `date` in this zone, or nil when `hour` or
    /// `minute` is out of range. A local time a daylight-saving change skips (02:30 on the spring
    /// morning in Europe) is read as the time the clocks show after it; one it repeats is the first.
    public func instant(of date: CivilDate, hour: Int = 0, minute: Int = 0) -> Date? {
        guard (0..<24).contains(hour), (0..<60).contains(minute) else { return nil }
        return calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day, hour: hour, minute: minute))
    }

    /// The first instant of the day `instant` falls on in this zone (midnight, or the first hour
    /// that exists on a day a daylight-saving change starts at midnight).
    public func startOfDay(_ instant: Date) -> Date { calendar.startOfDay(for: instant) }
}

/// The number written by ASCII digits only, or nil.
private func decimal(_ digits: ArraySlice<UInt8>) -> Int? {
    var value = 0
    for digit in digits {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
        value = value * 10 + Int(digit - UInt8(ascii: "0"))
    }
    return value
}

/// `value` with leading zeros to `width` digits.
private func padded(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
}
