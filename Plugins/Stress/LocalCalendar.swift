import Foundation

/// Days and times of day in the participant's time zone: the diary's "today" (F7), the start of
/// the day a week began (the unlock rule), reminder times and the deadline's last day.
struct LocalCalendar: Sendable {
    let calendar: Calendar
    let timeZone: String

    /// A calendar in the IANA zone `identifier` (UTC if unknown).
    init(timeZone identifier: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: identifier) ?? TimeZone(identifier: "UTC")!
        self.calendar = calendar
        timeZone = calendar.timeZone.identifier
    }

    /// `YYYY-MM-DD` of `instant` here.
    func day(_ instant: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: instant)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    /// Midnight at the start of `instant`'s day here.
    func startOfDay(_ instant: Date) -> Date { calendar.startOfDay(for: instant) }

    /// `instant` moved by whole calendar days (a day across a DST change is 23 or 25 hours).
    func adding(days: Int, to instant: Date) -> Date { calendar.date(byAdding: .day, value: days, to: instant)! }

    /// The instant of `hour:minute` on `day` (`YYYY-MM-DD`), or `nil` for a day that is not a date.
    func instant(day: String, hour: Int = 0, minute: Int = 0) -> Date? {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard day.count == 10, parts.count == 3 else { return nil }
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: hour, minute: minute)
        guard components.isValidDate(in: calendar) else { return nil }
        return calendar.date(from: components)
    }

    /// Whole calendar days from `from` to `to`, both `YYYY-MM-DD`.
    func daysBetween(_ from: String, _ to: String) -> Int? {
        guard let a = instant(day: from), let b = instant(day: to) else { return nil }
        return calendar.dateComponents([.day], from: a, to: b).day
    }

    /// Whether `text` is a real `YYYY-MM-DD` date.
    func isDay(_ text: String) -> Bool { instant(day: text) != nil }
}

extension Date {
    /// ISO 8601 with the UTC offset, as every output of this module spells instants.
    var iso: String { formatted(.iso8601) }

    init?(iso text: String) {
        guard let date = try? Date(text, strategy: .iso8601) else { return nil }
        self = date
    }
}
