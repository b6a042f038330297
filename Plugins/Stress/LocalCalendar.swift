import Foundation
import TesseraSDK

/// Days and times of day in the participant's time zone: the diary's "today" (F7), the start of
/// the day a week began (the unlock rule), reminder times and the deadline's last day.
struct LocalCalendar: Sendable {
    /// The SDK's calendar of the zone: the day arithmetic lives there.
    let civil: CivilCalendar
    let timeZone: String

    /// The Gregorian calendar of the participant's zone.
    var calendar: Calendar { civil.calendar }

    /// A calendar in the IANA zone `identifier` (UTC if unknown).
    init(timeZone identifier: String) {
        civil = CivilCalendar(timeZone: identifier)
        timeZone = civil.timeZone.identifier
    }

    /// `YYYY-MM-DD` of `instant` here.
    func day(_ instant: Date) -> String { civil.date(of: instant).description }

    /// Midnight at the start of `instant`'s day here.
    func startOfDay(_ instant: Date) -> Date { civil.startOfDay(instant) }

    /// `instant` moved by whole calendar days (a day across a DST change is 23 or 25 hours).
    func adding(days: Int, to instant: Date) -> Date { calendar.date(byAdding: .day, value: days, to: instant)! }

    /// The instant of `hour:minute` on `day` (`YYYY-MM-DD`), or `nil` for a day that is not a date.
    func instant(day: String, hour: Int = 0, minute: Int = 0) -> Date? {
        CivilDate(day).flatMap { civil.instant(of: $0, hour: hour, minute: minute) }
    }

    /// Whole calendar days from `from` to `to`, both `YYYY-MM-DD`.
    func daysBetween(_ from: String, _ to: String) -> Int? {
        guard let a = CivilDate(from), let b = CivilDate(to) else { return nil }
        return a.days(to: b)
    }

    /// Whether `text` is a real `YYYY-MM-DD` date.
    func isDay(_ text: String) -> Bool { CivilDate(text) != nil }
}

extension Date {
    /// ISO 8601 with the UTC offset, as every output of this module spells instants.
    var iso: String { formatted(.iso8601) }

    init?(iso text: String) {
        guard let date = try? Date(text, strategy: .iso8601) else { return nil }
        self = date
    }
}
