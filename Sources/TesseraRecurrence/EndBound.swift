import Foundation

/// A rule's `UNTIL` resolved to an instant in the recurrence's zone.
struct EndBound: Sendable {
    /// Seconds from 2001-01-01 UTC.
    let seconds: Double
    /// Whether an occurrence exactly at `seconds` is still in. `UNTIL` is inclusive; a date-only
    /// `UNTIL` is stored as the next local midnight, which is not.
    let inclusive: Bool

    init(_ until: RecurrenceRule.Until, resolver: LocalTimeResolver) {
        switch until {
        case .instant(let date):
            seconds = date.timeIntervalSinceReferenceDate
            inclusive = true
        case .localDateTime(let time):
            seconds = Double(resolver.resolve(wall: UntilReader.wallSeconds(of: time)).instant)
            inclusive = true
        case .localDate(let date):
            let nextDay = CivilCalendar.dayNumber(year: date.year, month: date.month, day: date.day) + 1
            seconds = Double(resolver.resolve(wall: nextDay * CivilCalendar.secondsPerDay).instant)
            inclusive = false
        }
    }

    func admits(_ date: Date) -> Bool {
        let time = date.timeIntervalSinceReferenceDate
        return inclusive ? time <= seconds : time < seconds
    }
}
