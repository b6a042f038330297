import Foundation

/// A recurrence rule in the RFC 5545 `RRULE` syntax, restricted to the subset Tessera evaluates.
///
/// Parse one with ``init(parsing:)`` and evaluate it with ``Recurrence``, which adds the start
/// and the time zone the rule is read in. The rule itself is only the text's meaning: it holds no
/// dates of its own except an ``until`` written in UTC.
///
/// Supported parts: `FREQ` (`DAILY`, `WEEKLY`, `MONTHLY`, `YEARLY`), `INTERVAL`, `COUNT`, `UNTIL`,
/// `BYDAY`, `BYMONTHDAY`, `BYMONTH`, `BYHOUR`, `BYMINUTE` and `WKST`. Names and values are
/// case-insensitive, as in RFC 5545.
///
/// List parts are kept sorted and without repeats, so two rules that mean the same thing compare
/// equal and print the same ``description``: `BYDAY=FR,MO` and `BYDAY=MO,FR,MO` are one rule.
public struct RecurrenceRule: Sendable, Hashable, CustomStringConvertible {
    /// How often the rule's period repeats (`FREQ`).
    public let frequency: Frequency
    /// How many periods from one to the next that is used (`INTERVAL`); 1 when the rule leaves it out.
    public let interval: Int
    /// How many occurrences there are in all (`COUNT`), or nil for no limit by count.
    public let count: Int?
    /// The last moment an occurrence may fall on, inclusive (`UNTIL`), or nil for no end date.
    public let until: Until?
    /// The weekdays occurrences fall on (`BYDAY`); empty when the rule leaves the part out.
    public let byDay: [WeekdayNum]
    /// The days of the month occurrences fall on, 1…31 or -31…-1 counted from the month's end
    /// (`BYMONTHDAY`); empty when the rule leaves the part out.
    public let byMonthDay: [Int]
    /// The months occurrences fall in, 1…12 (`BYMONTH`); empty when the rule leaves the part out.
    public let byMonth: [Int]
    /// The local hours occurrences fall on, 0…23 (`BYHOUR`); empty when the rule leaves the part out.
    public let byHour: [Int]
    /// The local minutes occurrences fall on, 0…59 (`BYMINUTE`); empty when the rule leaves the part out.
    public let byMinute: [Int]
    /// The day weeks start on (`WKST`); Monday when the rule leaves it out. It matters only to
    /// `FREQ=WEEKLY` with an `INTERVAL` above 1, where it decides which days share a week.
    public let weekStart: Weekday

    /// Parses `"FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0"` (an optional `"RRULE:"` prefix is accepted).
    ///
    /// - Throws: ``RecurrenceRuleError`` naming the first part that is unknown, repeated,
    ///   malformed, out of range, or not allowed together with the rest of the rule.
    public init(parsing text: String) throws(RecurrenceRuleError) {
        self = try RuleTextParser.parse(text)
    }

    /// Creates a rule from parts that ``RuleTextParser`` has already checked.
    init(
        frequency: Frequency, interval: Int, count: Int?, until: Until?, byDay: [WeekdayNum],
        byMonthDay: [Int], byMonth: [Int], byHour: [Int], byMinute: [Int], weekStart: Weekday
    ) {
        self.frequency = frequency
        self.interval = interval
        self.count = count
        self.until = until
        self.byDay = byDay
        self.byMonthDay = byMonthDay
        self.byMonth = byMonth
        self.byHour = byHour
        self.byMinute = byMinute
        self.weekStart = weekStart
    }

    /// The canonical RRULE text, without the `RRULE:` prefix: parts in the fixed order `FREQ`,
    /// `INTERVAL`, `COUNT`, `UNTIL`, `BYMONTH`, `BYMONTHDAY`, `BYDAY`, `BYHOUR`, `BYMINUTE`,
    /// `WKST`, and parts at their default (`INTERVAL=1`, `WKST=MO`) left out. Parsing it gives back
    /// an equal rule.
    public var description: String { RuleTextFormatter.format(self) }
}
