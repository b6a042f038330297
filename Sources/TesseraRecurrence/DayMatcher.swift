/// Decides which days the rule's `BYMONTH`, `BYMONTHDAY` and `BYDAY` accept, after the defaults
/// taken from the start have been filled in (see ``ExpansionPlan``).
///
/// Every part present must accept a day (they narrow each other); within one part, any value may
/// (they add up). In RFC 5545's words, a part "expands" a longer period into days and "limits" a
/// shorter one; checking every day of the period against every part gives both at once.
struct DayMatcher: Sendable {
    /// Bit `m` set for each accepted month 1…12; every month when `BYMONTH` is absent.
    private let months: UInt16
    /// `BYMONTHDAY` values, positive or counted back from the month's end; empty accepts any day.
    private let monthDays: [Int]
    /// Bit `w` set for each weekday 0 (Monday)…6 given without an ordinal.
    private let plainWeekdays: UInt8
    /// Weekdays given with an ordinal, such as (2, Tuesday) for `2TU`.
    private let ordinalWeekdays: [(ordinal: Int, weekday: Int)]
    /// Whether `BYDAY` is present at all; if not, every weekday is accepted.
    private let filtersWeekdays: Bool
    /// Whether ordinals count within the year (`YEARLY` without `BYMONTH`) rather than the month.
    private let ordinalsCountInYear: Bool

    init(months: [Int], monthDays: [Int], byDay: [RecurrenceRule.WeekdayNum], ordinalsCountInYear: Bool) {
        self.months = months.isEmpty ? 0b1_1111_1111_1110 : months.reduce(0) { $0 | 1 << UInt16($1) }
        self.monthDays = monthDays
        plainWeekdays = byDay.filter { $0.ordinal == nil }.reduce(0) { $0 | 1 << UInt8($1.weekday.index) }
        ordinalWeekdays = byDay.compactMap { entry in entry.ordinal.map { ($0, entry.weekday.index) } }
        filtersWeekdays = !byDay.isEmpty
        self.ordinalsCountInYear = ordinalsCountInYear
    }

    /// Whether a single day passes; for `DAILY` and `WEEKLY`, whose rules carry no ordinals.
    func matches(day: Int64) -> Bool {
        let date = CivilCalendar.date(ofDay: day)
        guard months & (1 << UInt16(date.month)) != 0 else { return false }
        if !monthDays.isEmpty {
            let length = CivilCalendar.daysInMonth(year: date.year, month: date.month)
            guard monthDays.contains(where: { dayOfMonth($0, length: length) == date.day }) else { return false }
        }
        return !filtersWeekdays || plainWeekdays & (1 << UInt8(CivilCalendar.weekday(ofDay: day))) != 0
    }

    /// Appends the days of one month that pass, in order; for `MONTHLY` and `YEARLY`.
    ///
    /// Works on 32-bit masks of the month's days (bit `d` for day `d`): one mask per part, and the
    /// days are the bits left after and-ing them.
    func appendDays(year: Int, month: Int, to days: inout [Int64]) {
        guard months & (1 << UInt16(month)) != 0 else { return }
        let length = CivilCalendar.daysInMonth(year: year, month: month)
        let firstDay = CivilCalendar.dayNumber(year: year, month: month, day: 1)
        var mask: UInt32 = (UInt32.max >> UInt32(31 - length)) & ~1 // bits 1…length
        if !monthDays.isEmpty { mask &= monthDayMask(length: length) }
        if filtersWeekdays { mask &= weekdayMask(year: year, month: month, firstDay: firstDay, length: length) }
        while mask != 0 {
            let day = mask.trailingZeroBitCount
            days.append(firstDay + Int64(day - 1))
            mask &= mask - 1
        }
    }

    /// `BYMONTHDAY=-1` is the month's last day; a day the month lacks (31 in April) is nil, so it
    /// is skipped rather than moved.
    private func dayOfMonth(_ value: Int, length: Int) -> Int? {
        let day = value > 0 ? value : length + 1 + value
        return (1...length).contains(day) ? day : nil
    }

    private func monthDayMask(length: Int) -> UInt32 {
        monthDays.reduce(0) { mask, value in
            dayOfMonth(value, length: length).map { mask | 1 << UInt32($0) } ?? mask
        }
    }

    private func weekdayMask(year: Int, month: Int, firstDay: Int64, length: Int) -> UInt32 {
        let firstWeekday = CivilCalendar.weekday(ofDay: firstDay)
        var mask: UInt32 = 0
        for weekday in 0..<7 where plainWeekdays & (1 << UInt8(weekday)) != 0 {
            var day = 1 + (weekday - firstWeekday + 7) % 7
            while day <= length { mask |= 1 << UInt32(day); day += 7 }
        }
        for (ordinal, weekday) in ordinalWeekdays {
            let day = ordinalsCountInYear
                ? nthWeekdayOfYear(ordinal, weekday, year: year).map { Int($0 - firstDay) + 1 }
                : nthWeekday(ordinal, weekday, firstWeekday: firstWeekday, length: length)
            if let day, (1...length).contains(day) { mask |= 1 << UInt32(day) }
        }
        return mask
    }

    /// The day of the month of its `ordinal`-th `weekday` (negative counts from the end), or nil
    /// when the month has too few (a fifth Monday).
    private func nthWeekday(_ ordinal: Int, _ weekday: Int, firstWeekday: Int, length: Int) -> Int? {
        let first = 1 + (weekday - firstWeekday + 7) % 7
        let count = (length - first) / 7 + 1
        let index = ordinal > 0 ? ordinal - 1 : count + ordinal
        return (0..<count).contains(index) ? first + 7 * index : nil
    }

    /// The day number of the year's `ordinal`-th `weekday` (negative counts from the end), or nil
    /// when the year has too few.
    private func nthWeekdayOfYear(_ ordinal: Int, _ weekday: Int, year: Int) -> Int64? {
        let january1 = CivilCalendar.dayNumber(year: year, month: 1, day: 1)
        let length = CivilCalendar.isLeapYear(year) ? 366 : 365
        let first = Int64((weekday - CivilCalendar.weekday(ofDay: january1) + 7) % 7)
        let count = (Int64(length) - 1 - first) / 7 + 1
        let index = Int64(ordinal > 0 ? ordinal - 1 : Int(count) + ordinal)
        return (0..<count).contains(index) ? january1 + first + 7 * index : nil
    }
}
