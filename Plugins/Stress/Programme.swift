import Foundation

/// The four weeks' states, derived from the participant's submissions and the clock alone (§3.2),
/// so that two devices with the same records agree, and a changed delay or time zone takes effect
/// at once. Nothing about a week's state is stored except what the participant did.
///
/// - Week 1 starts when both entry questionnaires are in (F15).
/// - Week N+1 unlocks at `max(start of the day week N started + delay, completion of week N)`
///   (anchor `start`, the spec's proposal resolving G-a) or at `completion + delay` (anchor
///   `completion`); that instant is also its start date.
/// - Nothing opens after the study's last day; what was completed stays completed.
struct Programme: Sendable {
    struct Week: Sendable {
        var order: Int
        var state: State
        var reason: Reason?
        /// For `waiting_until`: when it opens. For `previous_not_completed`: the week to finish.
        var reasonDetail: String?
        var startDate: Date?
        var completedAt: Date?
        var evaluated: Bool
    }

    enum State: String, Sendable { case open, completed, closed }

    let weeks: [Week]
    let entryDoneAt: Date?
    /// The first instant after the study's last day, in the participant's time zone.
    let endsAt: Date?
    /// The study's last day, `YYYY-MM-DD`.
    let lastDay: String?
    let exitRetestAt: Date?
    let exitEvaluationAt: Date?

    init(snapshot: Study.Snapshot, now: Date, config: StudyConfig, calendar: LocalCalendar) {
        let entry = snapshot.submittedAt("entry"), screen = snapshot.submittedAt("screen")
        entryDoneAt = entry.flatMap { e in screen.map { max(e, $0) } }
        let override = snapshot.progress["deadline"]
        lastDay = override ?? config.deadline ?? entryDoneAt.map { calendar.day(calendar.adding(days: config.studyLengthDays, to: $0)) }
        endsAt = lastDay.flatMap { calendar.instant(day: $0) }.map { calendar.adding(days: 1, to: $0) }
        exitRetestAt = snapshot.submittedAt("exit-retest")
        exitEvaluationAt = snapshot.submittedAt("exit-evaluation")
        var weeks: [Week] = []
        for order in 0..<4 {
            let completedAt = snapshot.submittedAt("week-\(order)")
            var week = Week(order: order, state: .closed, completedAt: completedAt, evaluated: snapshot.evaluated.contains(order))
            if let entryDoneAt {
                if order == 0 {
                    week.startDate = entryDoneAt
                } else if let previous = weeks.last, let previousDone = previous.completedAt, let previousStart = previous.startDate {
                    week.startDate = Self.unlock(previousStart: previousStart, previousCompleted: previousDone, config: config, calendar: calendar)
                }
            }
            (week.state, week.reason, week.reasonDetail) = Self.state(of: week, previous: weeks.last, entryDone: entryDoneAt != nil,
                                                                       now: now, endsAt: endsAt)
            weeks.append(week)
        }
        self.weeks = weeks
    }

    static func unlock(previousStart: Date, previousCompleted: Date, config: StudyConfig, calendar: LocalCalendar) -> Date {
        if config.unlockAnchor == "completion" { return calendar.adding(days: config.unlockDelayDays, to: previousCompleted) }
        return max(calendar.adding(days: config.unlockDelayDays, to: calendar.startOfDay(previousStart)), previousCompleted)
    }

    private static func state(of week: Week, previous: Week?, entryDone: Bool, now: Date, endsAt: Date?) -> (State, Reason?, String?) {
        if week.completedAt != nil { return (.completed, nil, nil) }
        guard entryDone else { return (.closed, .entryQuestionnairesPending, nil) }
        if let endsAt, now >= endsAt { return (.closed, .studyEnded, nil) }
        if let previous, previous.completedAt == nil { return (.closed, .previousNotCompleted, String(previous.order)) }
        if let start = week.startDate, now < start { return (.closed, .waitingUntil, start.iso) }
        return (.open, nil, nil)
    }

    /// The open week, if one is.
    var openWeek: Week? { weeks.first { $0.state == .open } }

    /// The week whose rating is owed before `order` can be entered (F14), if any.
    func evaluationOwed(before order: Int) -> Int? {
        guard order > 0, !weeks[order - 1].evaluated, weeks[order - 1].state == .completed else { return nil }
        return order - 1
    }

    /// Whether the exit questionnaires may be filled in: week 4 completed and rated.
    var exitAvailable: Bool { weeks[3].state == .completed && weeks[3].evaluated }

    /// Finished: week 4 and both exit questionnaires are done (§3.2, step 5).
    var finished: Bool { exitAvailable && exitRetestAt != nil && exitEvaluationAt != nil }
}
