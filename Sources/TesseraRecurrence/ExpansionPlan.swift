/// A rule made concrete for one start: the parts the rule leaves out are filled in from the
/// start's local date and time, as RFC 5545 fills them from DTSTART.
///
/// - Without `BYHOUR` or `BYMINUTE`, occurrences take the start's hour or minute; the second
///   always comes from the start (Tessera has no `BYSECOND`).
/// - `WEEKLY` without `BYDAY` fires on the start's weekday.
/// - `MONTHLY` without `BYDAY` and `BYMONTHDAY` fires on the start's day of the month.
/// - `YEARLY` without `BYDAY` and `BYMONTHDAY` fires on the start's day of the month, in the
///   start's month unless `BYMONTH` says otherwise.
struct ExpansionPlan: Sendable {
    let grid: PeriodGrid
    let matcher: DayMatcher
    /// The times of day occurrences fall on, as seconds after local midnight, ascending.
    let secondsOfDay: [Int64]

    init(rule: RecurrenceRule, startWall: Int64) {
        let (startDay, startSecondOfDay) = CivilCalendar.split(wall: startWall)
        let startDate = CivilCalendar.date(ofDay: startDay)
        var byDay = rule.byDay
        var monthDays = rule.byMonthDay
        var months = rule.byMonth
        if byDay.isEmpty && monthDays.isEmpty {
            switch rule.frequency {
            case .daily:
                break
            case .weekly:
                byDay = [RecurrenceRule.WeekdayNum(RecurrenceRule.Weekday.allCases[CivilCalendar.weekday(ofDay: startDay)])]
            case .monthly:
                monthDays = [startDate.day]
            case .yearly:
                if months.isEmpty { months = [startDate.month] }
                monthDays = [startDate.day]
            }
        }
        grid = PeriodGrid(frequency: rule.frequency, interval: rule.interval, startDay: startDay, weekStart: rule.weekStart)
        matcher = DayMatcher(months: months, monthDays: monthDays, byDay: byDay,
                             ordinalsCountInYear: rule.frequency == .yearly && rule.byMonth.isEmpty)
        secondsOfDay = Self.timesOfDay(rule: rule, startSecondOfDay: startSecondOfDay)
    }

    /// Every `BYHOUR` with every `BYMINUTE`, at the start's second, ascending.
    private static func timesOfDay(rule: RecurrenceRule, startSecondOfDay: Int64) -> [Int64] {
        let hours = rule.byHour.isEmpty ? [startSecondOfDay / 3600] : rule.byHour.map(Int64.init)
        let minutes = rule.byMinute.isEmpty ? [startSecondOfDay % 3600 / 60] : rule.byMinute.map(Int64.init)
        let second = startSecondOfDay % 60
        return hours.flatMap { hour in minutes.map { minute in hour * 3600 + minute * 60 + second } }.sorted()
    }
}
