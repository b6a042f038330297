/// Gregorian calendar arithmetic in plain integers, with no time zone and no `Calendar`.
///
/// The evaluator counts days and seconds from 2001-01-01 00:00, the epoch `Date` itself uses
/// (`timeIntervalSinceReferenceDate`), so an instant needs no conversion beyond a cast. A "day
/// number" is a count of days from that date; a "wall" time is local seconds from that date's
/// midnight, as if the zone were UTC. Working in integers keeps each step a few nanoseconds, where
/// a `Calendar` call costs hundreds.
enum CivilCalendar {
    static let secondsPerDay: Int64 = 86_400

    /// Days from 1970-01-01 to 2001-01-01; the conversion below counts from 1970.
    private static let referenceDayFrom1970: Int64 = 11_323

    /// The day number of `year-month-day` (the date need not exist: 2026-02-30 is 2026-03-02).
    ///
    /// Howard Hinnant's `days_from_civil`: shifting the year to start in March puts the leap day
    /// last, so month lengths follow a fixed pattern that `(153 * m + 2) / 5` reproduces.
    static func dayNumber(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468 - referenceDayFrom1970
    }

    /// The year, month and day of a day number; the inverse of ``dayNumber(year:month:day:)``.
    static func date(ofDay dayNumber: Int64) -> (year: Int, month: Int, day: Int) {
        let z = dayNumber + referenceDayFrom1970 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    /// 0 for Monday … 6 for Sunday. Day 0, 2001-01-01, was a Monday.
    static func weekday(ofDay dayNumber: Int64) -> Int {
        Int(floorMod(dayNumber, 7))
    }

    static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Splits wall seconds into a day number and the seconds since that day's midnight.
    static func split(wall: Int64) -> (day: Int64, secondOfDay: Int64) {
        let day = floorDiv(wall, secondsPerDay)
        return (day, wall - day * secondsPerDay)
    }

    /// Division rounding toward minus infinity, so times before 2001 land on the right day.
    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    static func floorMod(_ a: Int64, _ b: Int64) -> Int64 {
        a - floorDiv(a, b) * b
    }
}
