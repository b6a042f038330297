import TesseraSystem

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
    static func dayNumber(year: Int, month: Int, day: Int) -> Int64 {
        GregorianDays.days(year: Int64(year), month: Int64(month), day: Int64(day)) - referenceDayFrom1970
    }

    /// The year, month and day of a day number; the inverse of ``dayNumber(year:month:day:)``.
    static func date(ofDay dayNumber: Int64) -> (year: Int, month: Int, day: Int) {
        let (year, month, day) = GregorianDays.date(days: dayNumber + referenceDayFrom1970)
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
