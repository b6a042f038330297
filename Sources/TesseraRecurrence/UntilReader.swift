import Foundation

/// Reads an `UNTIL` value in its three forms: `YYYYMMDD` (end of that local day),
/// `YYYYMMDDTHHMMSS` (local time) and `YYYYMMDDTHHMMSSZ` (UTC).
enum UntilReader {
    static func read(_ text: String) throws(RecurrenceRuleError) -> RecurrenceRule.Until {
        let chars = Array(text)
        switch chars.count {
        case 8:
            return .localDate(try date(chars, text))
        case 15 where chars[8] == "T":
            return .localDateTime(try dateTime(chars, text))
        case 16 where chars[8] == "T" && chars[15] == "Z":
            return .instant(instant(of: try dateTime(chars, text)))
        default:
            throw malformed(text)
        }
    }

    private static func date(_ chars: [Character], _ text: String) throws(RecurrenceRuleError) -> RecurrenceRule.LocalDate {
        guard let year = digits(chars, 0..<4), let month = digits(chars, 4..<6), let day = digits(chars, 6..<8) else {
            throw malformed(text)
        }
        guard year >= 1, (1...12).contains(month), (1...CivilCalendar.daysInMonth(year: year, month: month)).contains(day) else {
            throw RecurrenceRuleError(part: "UNTIL", message: "'\(text)' is not a real date")
        }
        return RecurrenceRule.LocalDate(year: year, month: month, day: day)
    }

    private static func dateTime(_ chars: [Character], _ text: String) throws(RecurrenceRuleError) -> RecurrenceRule.LocalDateTime {
        let day = try date(chars, text)
        guard let hour = digits(chars, 9..<11), let minute = digits(chars, 11..<13), let second = digits(chars, 13..<15) else {
            throw malformed(text)
        }
        guard hour <= 23, minute <= 59, second <= 59 else {
            throw RecurrenceRuleError(part: "UNTIL", message: "'\(text)' is not a real time of day: use 000000…235959")
        }
        return RecurrenceRule.LocalDateTime(date: day, hour: hour, minute: minute, second: second)
    }

    /// The UTC instant of a date-time read as UTC.
    static func instant(of time: RecurrenceRule.LocalDateTime) -> Date {
        Date(timeIntervalSinceReferenceDate: Double(wallSeconds(of: time)))
    }

    /// Seconds from 2001-01-01 00:00 to `time`, both read in the same (any) zone.
    static func wallSeconds(of time: RecurrenceRule.LocalDateTime) -> Int64 {
        let day = CivilCalendar.dayNumber(year: time.date.year, month: time.date.month, day: time.date.day)
        return day * CivilCalendar.secondsPerDay + Int64(time.hour * 3600 + time.minute * 60 + time.second)
    }

    private static func digits(_ chars: [Character], _ range: Range<Int>) -> Int? {
        PartReader.unsignedNumber(String(chars[range]))
    }

    private static func malformed(_ text: String) -> RecurrenceRuleError {
        RecurrenceRuleError(
            part: "UNTIL",
            message: "'\(text)' is not a date: use YYYYMMDD, YYYYMMDDTHHMMSS (local) or YYYYMMDDTHHMMSSZ (UTC)")
    }
}
