/// Days and dates of the proleptic Gregorian calendar in plain integers: the one copy of Howard
/// Hinnant's `days_from_civil` and `civil_from_days` the host's modules share (sync timestamps,
/// location timestamps, recurrence rules).
///
/// Plugins have the same arithmetic in the SDK (`CivilDate`), which they reach and the host's hot
/// paths should not: a call into the SDK's library is not inlined. Working in integers keeps each
/// conversion a few nanoseconds, where a `Calendar` call costs hundreds, and never meets a
/// daylight-saving change.
///
/// Shifting the year to start in March puts the leap day last, so the months' lengths follow a
/// fixed pattern that `(153 * m + 2) / 5` reproduces; 400 years are 146,097 days exactly.
public enum GregorianDays {
    /// Days from 1970-01-01 to `year`-`month`-`day` (negative before it), for any year; `month` is
    /// 1…12, and a day past its month's end counts on into the next (2026-02-30 is 2026-03-02).
    @inlinable
    public static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The year, month and day `days` after 1970-01-01 (before it, when negative); the inverse of
    /// ``days(year:month:day:)`` for a day that exists.
    @inlinable
    public static func date(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
