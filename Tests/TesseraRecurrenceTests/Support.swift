import Foundation
import TesseraRecurrence

/// An instant from ISO 8601 text such as `2026-03-20T07:00:00Z`.
func utc(_ text: String) -> Date {
    try! Date(text, strategy: .iso8601)
}

/// `2026-03-20T07:00:00Z`, the form the expectations are written in.
func iso(_ date: Date) -> String {
    date.formatted(.iso8601)
}

func zone(_ identifier: String) -> TimeZone {
    TimeZone(identifier: identifier)!
}

/// The recurrence of `rule` from `start` (ISO 8601, UTC) in the zone named `zoneName`.
func recurrence(_ rule: String, from start: String, in zoneName: String) throws -> Recurrence {
    Recurrence(rule: try RecurrenceRule(parsing: rule), start: utc(start), timeZone: zone(zoneName))
}

extension Recurrence {
    /// The first `count` occurrences as ISO 8601 text, found the way the host finds them: `first`,
    /// then `next(after:)` the previous one. Fewer if the rule ends sooner.
    func prefix(_ count: Int) -> [String] {
        var found: [String] = []
        var next = first
        while let date = next, found.count < count {
            found.append(iso(date))
            next = self.next(after: date)
        }
        return found
    }
}

/// The local hour and minute of `date` in `zone`, to check wall-clock times survive DST changes.
func localTime(_ date: Date, in zoneName: String) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone(zoneName)
    let parts = calendar.dateComponents([.hour, .minute], from: date)
    return String(format: "%02d:%02d", parts.hour!, parts.minute!)
}
