import Foundation

/// Writes a ``RecurrenceRule`` back as canonical RRULE text.
enum RuleTextFormatter {
    static func format(_ rule: RecurrenceRule) -> String {
        var parts = ["FREQ=\(rule.frequency.rawValue)"]
        if rule.interval != 1 { parts.append("INTERVAL=\(rule.interval)") }
        if let count = rule.count { parts.append("COUNT=\(count)") }
        if let until = rule.until { parts.append("UNTIL=\(format(until))") }
        appendList("BYMONTH", rule.byMonth, to: &parts)
        appendList("BYMONTHDAY", rule.byMonthDay, to: &parts)
        appendList("BYDAY", rule.byDay, to: &parts)
        appendList("BYHOUR", rule.byHour, to: &parts)
        appendList("BYMINUTE", rule.byMinute, to: &parts)
        if rule.weekStart != .monday { parts.append("WKST=\(rule.weekStart.rawValue)") }
        return parts.joined(separator: ";")
    }

    private static func appendList(_ name: String, _ values: [some CustomStringConvertible], to parts: inout [String]) {
        if !values.isEmpty { parts.append("\(name)=\(values.map(\.description).joined(separator: ","))") }
    }

    static func format(_ until: RecurrenceRule.Until) -> String {
        switch until {
        case .localDate(let date):
            return format(date)
        case .localDateTime(let time):
            return format(time)
        case .instant(let date):
            return format(utcDateTime(of: date)) + "Z"
        }
    }

    private static func format(_ date: RecurrenceRule.LocalDate) -> String {
        pad(date.year, 4) + pad(date.month, 2) + pad(date.day, 2)
    }

    private static func format(_ time: RecurrenceRule.LocalDateTime) -> String {
        format(time.date) + "T" + pad(time.hour, 2) + pad(time.minute, 2) + pad(time.second, 2)
    }

    /// The UTC date and time of `date`, to the whole second (parsed instants have no fraction).
    private static func utcDateTime(of date: Date) -> RecurrenceRule.LocalDateTime {
        let seconds = Int64(date.timeIntervalSinceReferenceDate.rounded(.down))
        let (day, secondOfDay) = CivilCalendar.split(wall: seconds)
        let civil = CivilCalendar.date(ofDay: day)
        return RecurrenceRule.LocalDateTime(
            date: RecurrenceRule.LocalDate(year: civil.year, month: civil.month, day: civil.day),
            hour: Int(secondOfDay / 3600), minute: Int(secondOfDay % 3600 / 60), second: Int(secondOfDay % 60))
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
