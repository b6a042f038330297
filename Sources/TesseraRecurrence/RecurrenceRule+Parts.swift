import Foundation

extension RecurrenceRule {
    /// The length of the period a rule repeats (`FREQ`). Tessera evaluates these four; the RFC's
    /// `SECONDLY`, `MINUTELY` and `HOURLY` are rejected when parsing.
    public enum Frequency: String, Sendable, Hashable, CaseIterable {
        /// Every day (`FREQ=DAILY`).
        case daily = "DAILY"
        /// Every week (`FREQ=WEEKLY`).
        case weekly = "WEEKLY"
        /// Every month (`FREQ=MONTHLY`).
        case monthly = "MONTHLY"
        /// Every year (`FREQ=YEARLY`).
        case yearly = "YEARLY"
    }

    /// A day of the week, spelled as in RFC 5545 (`MO` … `SU`).
    public enum Weekday: String, Sendable, Hashable, CaseIterable {
        /// `MO`
        case monday = "MO"
        /// `TU`
        case tuesday = "TU"
        /// `WE`
        case wednesday = "WE"
        /// `TH`
        case thursday = "TH"
        /// `FR`
        case friday = "FR"
        /// `SA`
        case saturday = "SA"
        /// `SU`
        case sunday = "SU"

        /// 0 for Monday through 6 for Sunday: the order RFC 5545 lists them in, and the one the
        /// evaluator counts in.
        var index: Int {
            switch self {
            case .monday: 0
            case .tuesday: 1
            case .wednesday: 2
            case .thursday: 3
            case .friday: 4
            case .saturday: 5
            case .sunday: 6
            }
        }
    }

    /// One entry of `BYDAY`: a weekday, optionally with an ordinal (RFC 5545 calls it
    /// "weekdaynum"). `FR` is every Friday; `2TU` the second Tuesday and `-1FR` the last Friday of
    /// the month (`FREQ=MONTHLY`, or `FREQ=YEARLY` with `BYMONTH`) or of the year (`FREQ=YEARLY`
    /// without `BYMONTH`).
    public struct WeekdayNum: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// Which occurrence of the weekday in the month or year: 1 is the first, -1 the last; nil
        /// for every one.
        public let ordinal: Int?
        /// The day of the week.
        public let weekday: Weekday

        /// Creates an entry; the parser checks the ordinal's range against the rule's frequency.
        public init(ordinal: Int? = nil, _ weekday: Weekday) {
            self.ordinal = ordinal
            self.weekday = weekday
        }

        /// `FR`, `2TU`, `-1FR`.
        public var description: String { (ordinal.map(String.init) ?? "") + weekday.rawValue }

        /// Monday first; for one weekday, the plain entry first, then by ordinal.
        public static func < (a: Self, b: Self) -> Bool {
            if a.weekday != b.weekday { return a.weekday.index < b.weekday.index }
            return (a.ordinal ?? Int.min) < (b.ordinal ?? Int.min)
        }
    }

    /// A calendar date with no time zone attached: the recurrence's zone gives it meaning.
    public struct LocalDate: Sendable, Hashable {
        /// The year, 1…9999.
        public let year: Int
        /// The month, 1…12.
        public let month: Int
        /// The day of the month, 1…31.
        public let day: Int

        /// Creates a date; the parser checks it exists.
        public init(year: Int, month: Int, day: Int) {
            self.year = year
            self.month = month
            self.day = day
        }
    }

    /// A date and time of day with no time zone attached: the recurrence's zone gives it meaning.
    public struct LocalDateTime: Sendable, Hashable {
        /// The calendar date.
        public let date: LocalDate
        /// The hour, 0…23.
        public let hour: Int
        /// The minute, 0…59.
        public let minute: Int
        /// The second, 0…59.
        public let second: Int

        /// Creates a date and time; the parser checks the ranges.
        public init(date: LocalDate, hour: Int, minute: Int, second: Int) {
            self.date = date
            self.hour = hour
            self.minute = minute
            self.second = second
        }
    }

    /// When a rule ends (`UNTIL`), in one of its three written forms. Inclusive: an occurrence
    /// exactly at the end still counts.
    public enum Until: Sendable, Hashable {
        /// `YYYYMMDDTHHMMSSZ`: an instant, the same in every zone.
        case instant(Date)
        /// `YYYYMMDDTHHMMSS`: a local time in the recurrence's zone (read like an occurrence: a
        /// time in a spring-forward gap moves forward by the gap, a repeated time means its first
        /// instant).
        case localDateTime(LocalDateTime)
        /// `YYYYMMDD`: through the end of that local day in the recurrence's zone.
        case localDate(LocalDate)
    }
}
