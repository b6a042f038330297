import Foundation
import TesseraSDK

/// Dates as people enter them: a day `YYYY-MM-DD`, a moment `YYYY-MM-DDTHH:MM` (local time in the
/// configured zone), a month `YYYY-MM`. Stored as those texts, so they sort as they read and a
/// day sorts before the moments of that day. Every parse names the field it refuses.
struct LocalDates: Sendable {
    let timeZone: TimeZone

    /// The SDK's calendar of the zone: the day arithmetic lives there.
    var civil: CivilCalendar { CivilCalendar(timeZone: timeZone) }

    var calendar: Calendar { civil.calendar }

    /// Today's date in the zone, `YYYY-MM-DD`.
    func today(_ now: Date) -> String { day(of: now) }

    func day(of date: Date) -> String { civil.date(of: date).description }

    /// The local moment `YYYY-MM-DDTHH:MM` of `date`.
    func moment(of date: Date) -> String {
        let time = civil.timeOfDay(of: date)
        return civil.date(of: date).description + String(format: "T%02d:%02d", time.hour, time.minute)
    }

    /// A day, checked to exist (2026-02-30 does not).
    func parseDay(_ text: String, field: String) throws -> DateComponents {
        guard let day = CivilDate(text) else { throw BabyError.invalid(field, "'\(text)' is not a date YYYY-MM-DD") }
        return DateComponents(year: day.year, month: day.month, day: day.day)
    }

    /// A day or a local moment; returns the text as stored.
    func parseDayOrMoment(_ text: String, field: String) throws -> String {
        if text.count == 10 { _ = try parseDay(text, field: field); return text }
        _ = try instant(text, field: field)
        return text
    }

    /// The instant of a local moment `YYYY-MM-DDTHH:MM`.
    func instant(_ text: String, field: String) throws -> Date {
        guard let match = text.wholeMatch(of: /(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})/),
              let hour = Int(match.2), let minute = Int(match.3), hour < 24, minute < 60
        else { throw BabyError.invalid(field, "'\(text)' is not a date YYYY-MM-DD or a local time YYYY-MM-DDTHH:MM") }
        var parts = try parseDay(String(match.1), field: field)
        parts.hour = hour
        parts.minute = minute
        guard let date = calendar.date(from: parts) else { throw BabyError.invalid(field, "'\(text)' does not exist in \(timeZone.identifier)") }
        return date
    }

    /// A month `YYYY-MM`.
    func parseMonth(_ text: String, field: String) throws -> String {
        guard let match = text.wholeMatch(of: /(\d{4})-(\d{2})/), let month = Int(match.2), (1...12).contains(month), Int(match.1)! >= 1900
        else { throw BabyError.invalid(field, "'\(text)' is not a month YYYY-MM") }
        return text
    }

    /// A time of day `HH:MM`.
    func parseTime(_ text: String, field: String) throws -> (hour: Int, minute: Int) {
        guard let match = text.wholeMatch(of: /(\d{2}):(\d{2})/), let hour = Int(match.1), let minute = Int(match.2), hour < 24, minute < 60
        else { throw BabyError.invalid(field, "'\(text)' is not a time of day HH:MM") }
        return (hour, minute)
    }

    /// Age in whole years, months and days from `birth` to `today` (both `YYYY-MM-DD`).
    func age(birth: String, today: String) -> (years: Int, months: Int, days: Int)? {
        guard let b = try? parseDay(birth, field: "birthDate"), let t = try? parseDay(today, field: "today"),
              let from = calendar.date(from: b), let to = calendar.date(from: t), from <= to else { return nil }
        let c = calendar.dateComponents([.year, .month, .day], from: from, to: to)
        return (c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    /// The day `days` before `day` (for chart windows).
    func day(_ day: String, minus component: Calendar.Component, _ value: Int) -> String {
        guard let parts = try? parseDay(day, field: "day"), let date = calendar.date(from: parts),
              let earlier = calendar.date(byAdding: component, value: -value, to: date) else { return day }
        return self.day(of: earlier)
    }
}
