/// The rule's periods (days, weeks, months or years) laid out from the start: step 0 is the
/// period holding the start, step 1 the one `INTERVAL` periods later, and so on.
///
/// Steps are numbered rather than dated so that any step can be reached in one calculation: this
/// is what lets ``Recurrence/next(after:)`` jump straight to a date years after the start.
struct PeriodGrid: Sendable {
    let frequency: RecurrenceRule.Frequency
    let interval: Int64
    /// The first day of step 0 (`DAILY`, `WEEKLY`), or its month counted from year 0
    /// (`year * 12 + month - 1`, `MONTHLY`), or its year (`YEARLY`).
    private let anchor: Int64

    /// A weekly grid's weeks begin on `weekStart`, so that with `INTERVAL=2` the days sharing a
    /// week (and so firing together) are the ones `WKST` says.
    init(frequency: RecurrenceRule.Frequency, interval: Int, startDay: Int64, weekStart: RecurrenceRule.Weekday) {
        self.frequency = frequency
        self.interval = Int64(interval)
        let start = CivilCalendar.date(ofDay: startDay)
        switch frequency {
        case .daily:
            anchor = startDay
        case .weekly:
            let daysIntoWeek = CivilCalendar.floorMod(Int64(CivilCalendar.weekday(ofDay: startDay) - weekStart.index), 7)
            anchor = startDay - daysIntoWeek
        case .monthly:
            anchor = Int64(start.year * 12 + start.month - 1)
        case .yearly:
            anchor = Int64(start.year)
        }
    }

    /// The last step that begins on or before `day` (0 if `day` is before the start's period).
    func step(atOrBefore day: Int64) -> Int64 {
        max(0, CivilCalendar.floorDiv(periods(toDay: day), interval))
    }

    /// The first day of a step.
    func firstDay(ofStep step: Int64) -> Int64 {
        switch frequency {
        case .daily:
            return anchor + step * interval
        case .weekly:
            return anchor + step * interval * 7
        case .monthly:
            let month = anchor + step * interval
            return CivilCalendar.dayNumber(year: Int(CivilCalendar.floorDiv(month, 12)),
                                           month: Int(CivilCalendar.floorMod(month, 12)) + 1, day: 1)
        case .yearly:
            return CivilCalendar.dayNumber(year: Int(anchor + step * interval), month: 1, day: 1)
        }
    }

    /// Appends the days of a step that `matcher` accepts, in order.
    func appendDays(ofStep step: Int64, matching matcher: DayMatcher, to days: inout [Int64]) {
        let first = firstDay(ofStep: step)
        switch frequency {
        case .daily:
            if matcher.matches(day: first) { days.append(first) }
        case .weekly:
            for day in first..<(first + 7) where matcher.matches(day: day) { days.append(day) }
        case .monthly:
            let date = CivilCalendar.date(ofDay: first)
            matcher.appendDays(year: date.year, month: date.month, to: &days)
        case .yearly:
            let year = CivilCalendar.date(ofDay: first).year
            for month in 1...12 { matcher.appendDays(year: year, month: month, to: &days) }
        }
    }

    /// How many steps in a row can hold no occurrence before it is certain none ever will.
    ///
    /// The Gregorian calendar repeats every 400 years (146 097 days, exactly 20 871 weeks, 4 800
    /// months), so the steps' days repeat once the steps have gone round that cycle: a rule such as
    /// `BYMONTH=2;BYMONTHDAY=30` is known to be empty after one cycle rather than looping forever.
    var stepsPerCycle: Int64 {
        let cycle: Int64 = switch frequency {
        case .daily: 146_097
        case .weekly: 20_871
        case .monthly: 4_800
        case .yearly: 400
        }
        return cycle / greatestCommonDivisor(cycle, interval)
    }

    /// Periods from step 0's to the one holding `day`, counted in the grid's unit (days, weeks,
    /// months or years), not in steps.
    private func periods(toDay day: Int64) -> Int64 {
        switch frequency {
        case .daily: return day - anchor
        case .weekly: return CivilCalendar.floorDiv(day - anchor, 7)
        case .monthly:
            let date = CivilCalendar.date(ofDay: day)
            return Int64(date.year * 12 + date.month - 1) - anchor
        case .yearly:
            return Int64(CivilCalendar.date(ofDay: day).year) - anchor
        }
    }

    private func greatestCommonDivisor(_ a: Int64, _ b: Int64) -> Int64 {
        b == 0 ? a : greatestCommonDivisor(b, a % b)
    }
}
