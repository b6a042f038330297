import Foundation

/// Turns RRULE text into a ``RecurrenceRule``: splits it into `NAME=VALUE` parts, reads each
/// value, then checks the parts against each other (for example, no `COUNT` with `UNTIL`).
enum RuleTextParser {
    /// The parts Tessera evaluates, in the order the canonical text writes them.
    static let supportedParts = ["FREQ", "INTERVAL", "COUNT", "UNTIL", "BYMONTH", "BYMONTHDAY",
                                 "BYDAY", "BYHOUR", "BYMINUTE", "WKST"]
    /// RFC 5545 parts that are valid RRULE but that Tessera does not evaluate; named separately
    /// so the error says "not supported" rather than "unknown".
    static let unsupportedParts = ["BYSECOND", "BYSETPOS", "BYYEARDAY", "BYWEEKNO"]

    /// The largest `INTERVAL` accepted: beyond it a rule means nothing useful, and the bound keeps
    /// the evaluator's period arithmetic far from overflow.
    static let maximumInterval = 10_000

    static func parse(_ text: String) throws(RecurrenceRuleError) -> RecurrenceRule {
        let parts = try splitParts(text)
        guard let freqText = parts["FREQ"] else {
            throw RecurrenceRuleError(part: "FREQ", message: "is required: use DAILY, WEEKLY, MONTHLY or YEARLY")
        }
        let frequency = try PartReader.frequency(freqText)
        let rule = RecurrenceRule(
            frequency: frequency,
            interval: try parts["INTERVAL"].map(PartReader.interval) ?? 1,
            count: try parts["COUNT"].map(PartReader.count),
            until: try parts["UNTIL"].map(PartReader.until),
            byDay: try parts["BYDAY"].map(PartReader.weekdays) ?? [],
            byMonthDay: try parts["BYMONTHDAY"].map(PartReader.monthDays) ?? [],
            byMonth: try parts["BYMONTH"].map(PartReader.months) ?? [],
            byHour: try parts["BYHOUR"].map(PartReader.hours) ?? [],
            byMinute: try parts["BYMINUTE"].map(PartReader.minutes) ?? [],
            weekStart: try parts["WKST"].map(PartReader.weekStart) ?? .monday
        )
        try RuleConsistency.check(rule)
        return rule
    }

    /// The text's parts by upper-cased name. Rejects unknown, unsupported and repeated names, and
    /// parts without a value. Empty segments (a trailing `;`) are ignored.
    static func splitParts(_ text: String) throws(RecurrenceRuleError) -> [String: String] {
        var body = text.trimmingCharacters(in: .whitespacesAndNewlines).uppercased()
        if body.hasPrefix("RRULE:") { body.removeFirst("RRULE:".count) }
        guard !body.isEmpty else {
            throw RecurrenceRuleError(part: "RRULE", message: "the rule is empty: write parts such as FREQ=WEEKLY;BYDAY=FR")
        }
        var parts: [String: String] = [:]
        for segment in body.split(separator: ";", omittingEmptySubsequences: true) {
            let (name, value) = try nameAndValue(String(segment))
            guard parts[name] == nil else {
                throw RecurrenceRuleError(part: name, message: "appears more than once")
            }
            parts[name] = value
        }
        return parts
    }

    private static func nameAndValue(_ segment: String) throws(RecurrenceRuleError) -> (String, String) {
        guard let equals = segment.firstIndex(of: "=") else {
            throw RecurrenceRuleError(part: segment.isEmpty ? "RRULE" : segment,
                                      message: "expected NAME=VALUE, found '\(segment)'")
        }
        let name = String(segment[..<equals])
        let value = String(segment[segment.index(after: equals)...])
        if unsupportedParts.contains(name) {
            throw RecurrenceRuleError(part: name, message: "is not supported; Tessera evaluates \(supportedList)")
        }
        guard supportedParts.contains(name) else {
            throw RecurrenceRuleError(part: name.isEmpty ? "RRULE" : name,
                                      message: "is not an RRULE part Tessera knows; use \(supportedList)")
        }
        guard !value.isEmpty else {
            throw RecurrenceRuleError(part: name, message: "has no value")
        }
        return (name, value)
    }

    private static var supportedList: String { supportedParts.joined(separator: ", ") }
}
