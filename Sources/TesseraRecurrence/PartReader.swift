import Foundation

/// Reads the value of one RRULE part. Each function checks only its own part; checks that need
/// several parts at once live in ``RuleConsistency``.
enum PartReader {
    static func frequency(_ text: String) throws(RecurrenceRuleError) -> RecurrenceRule.Frequency {
        if let frequency = RecurrenceRule.Frequency(rawValue: text) { return frequency }
        let known = ["SECONDLY", "MINUTELY", "HOURLY"].contains(text)
        throw RecurrenceRuleError(
            part: "FREQ",
            message: "'\(text)' is \(known ? "not supported" : "not a frequency"): use DAILY, WEEKLY, MONTHLY or YEARLY")
    }

    static func interval(_ text: String) throws(RecurrenceRuleError) -> Int {
        guard let value = unsignedNumber(text), (1...RuleTextParser.maximumInterval).contains(value) else {
            throw RecurrenceRuleError(
                part: "INTERVAL",
                message: "'\(text)' is not a valid interval: use a whole number from 1 to \(RuleTextParser.maximumInterval)")
        }
        return value
    }

    static func count(_ text: String) throws(RecurrenceRuleError) -> Int {
        guard let value = unsignedNumber(text), value >= 1 else {
            throw RecurrenceRuleError(part: "COUNT", message: "'\(text)' is not a valid count: use a whole number of at least 1")
        }
        return value
    }

    static func until(_ text: String) throws(RecurrenceRuleError) -> RecurrenceRule.Until {
        try UntilReader.read(text)
    }

    static func weekdays(_ text: String) throws(RecurrenceRuleError) -> [RecurrenceRule.WeekdayNum] {
        var entries: Set<RecurrenceRule.WeekdayNum> = []
        for item in items(text) { entries.insert(try weekdayNum(item)) }
        return entries.sorted()
    }

    static func monthDays(_ text: String) throws(RecurrenceRuleError) -> [Int] {
        try numbers(text, part: "BYMONTHDAY", signed: true, accept: { (1...31).contains(abs($0)) },
                    complaint: "is not a day of the month: use 1…31, or -31…-1 to count from the month's end")
    }

    static func months(_ text: String) throws(RecurrenceRuleError) -> [Int] {
        try numbers(text, part: "BYMONTH", signed: false, accept: { (1...12).contains($0) },
                    complaint: "is not a month: use 1…12")
    }

    static func hours(_ text: String) throws(RecurrenceRuleError) -> [Int] {
        try numbers(text, part: "BYHOUR", signed: false, accept: { (0...23).contains($0) },
                    complaint: "is not an hour: use 0…23")
    }

    static func minutes(_ text: String) throws(RecurrenceRuleError) -> [Int] {
        try numbers(text, part: "BYMINUTE", signed: false, accept: { (0...59).contains($0) },
                    complaint: "is not a minute: use 0…59")
    }

    static func weekStart(_ text: String) throws(RecurrenceRuleError) -> RecurrenceRule.Weekday {
        guard let weekday = RecurrenceRule.Weekday(rawValue: text) else {
            throw RecurrenceRuleError(part: "WKST", message: "'\(text)' is not a weekday: use MO, TU, WE, TH, FR, SA or SU")
        }
        return weekday
    }

    // MARK: - Pieces

    /// `2TU` → (2, Tuesday); `FR` → (nil, Friday). The ordinal's range is checked against the
    /// frequency later, in ``RuleConsistency``; here only 0 is wrong whatever the frequency.
    private static func weekdayNum(_ item: String) throws(RecurrenceRuleError) -> RecurrenceRule.WeekdayNum {
        guard item.count >= 2, let weekday = RecurrenceRule.Weekday(rawValue: String(item.suffix(2))) else {
            throw notAWeekday(item)
        }
        let prefix = String(item.dropLast(2))
        if prefix.isEmpty { return RecurrenceRule.WeekdayNum(weekday) }
        guard let ordinal = signedNumber(prefix) else { throw notAWeekday(item) }
        guard ordinal != 0 else {
            throw RecurrenceRuleError(part: "BYDAY", message: "'\(item)' has ordinal 0: count from 1 (2TU) or from the end (-1FR)")
        }
        return RecurrenceRule.WeekdayNum(ordinal: ordinal, weekday)
    }

    private static func notAWeekday(_ item: String) -> RecurrenceRuleError {
        RecurrenceRuleError(
            part: "BYDAY",
            message: "'\(item)' is not a weekday: use MO…SU, optionally with an ordinal such as 2TU or -1FR")
    }

    /// A comma-separated list of numbers, each passing `accept`, returned sorted without repeats.
    private static func numbers(
        _ text: String, part: String, signed: Bool, accept: (Int) -> Bool, complaint: String
    ) throws(RecurrenceRuleError) -> [Int] {
        var values: Set<Int> = []
        for item in items(text) {
            let value = signed ? signedNumber(item) : unsignedNumber(item)
            guard let value, accept(value) else {
                throw RecurrenceRuleError(part: part, message: "'\(item)' \(complaint)")
            }
            values.insert(value)
        }
        return values.sorted()
    }

    /// Splits a list value at commas, keeping empty items so that `8,,9` is reported.
    private static func items(_ text: String) -> [String] {
        text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    /// Digits only: `Int("+5")` would accept a sign where RFC 5545 allows none.
    static func unsignedNumber(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(text)
    }

    /// An optional `+` or `-`, then digits.
    private static func signedNumber(_ text: String) -> Int? {
        guard let first = text.first else { return nil }
        guard first == "+" || first == "-" else { return unsignedNumber(text) }
        return unsignedNumber(String(text.dropFirst())).map { first == "-" ? -$0 : $0 }
    }
}
