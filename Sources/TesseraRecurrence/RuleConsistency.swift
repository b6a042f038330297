/// Checks that need more than one part: RFC 5545's rules on which parts go together, and ordinal
/// ranges that depend on the frequency.
enum RuleConsistency {
    static func check(_ rule: RecurrenceRule) throws(RecurrenceRuleError) {
        if rule.count != nil && rule.until != nil {
            throw RecurrenceRuleError(part: "COUNT", message: "cannot be combined with UNTIL (RFC 5545): use one or the other")
        }
        if rule.frequency == .weekly && !rule.byMonthDay.isEmpty {
            throw RecurrenceRuleError(part: "BYMONTHDAY", message: "is not allowed with FREQ=WEEKLY (RFC 5545)")
        }
        for entry in rule.byDay {
            if let ordinal = entry.ordinal { try checkOrdinal(ordinal, of: entry, in: rule) }
        }
    }

    /// An ordinal counts within a month (`MONTHLY`, or `YEARLY` with `BYMONTH`) or within a year
    /// (`YEARLY` alone); `DAILY` and `WEEKLY` have nothing for it to count within.
    private static func checkOrdinal(
        _ ordinal: Int, of entry: RecurrenceRule.WeekdayNum, in rule: RecurrenceRule
    ) throws(RecurrenceRuleError) {
        let limit: Int
        let scope: String
        switch rule.frequency {
        case .daily, .weekly:
            throw RecurrenceRuleError(
                part: "BYDAY",
                message: "'\(entry)' has an ordinal, which only FREQ=MONTHLY and FREQ=YEARLY allow: write \(entry.weekday.rawValue)")
        case .monthly:
            (limit, scope) = (5, "a month")
        case .yearly:
            (limit, scope) = rule.byMonth.isEmpty ? (53, "a year") : (5, "a month")
        }
        guard abs(ordinal) <= limit else {
            throw RecurrenceRuleError(
                part: "BYDAY",
                message: "'\(entry)' is out of range: \(scope) has at most \(limit) of each weekday, so use 1…\(limit) or -\(limit)…-1")
        }
    }
}
