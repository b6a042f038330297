/// Walks the rule's candidate local times ("wall" seconds, see ``CivilCalendar``) in increasing
/// order, from a given wall time on.
///
/// It starts at the step holding that wall time (one calculation, however far from the start) and
/// then goes step by step, expanding each into its days and each day into its times. It stops
/// past `highest`, or once a whole calendar cycle of steps has gone by without a single day (the
/// rule can then never fire again).
struct WallCursor {
    private let plan: ExpansionPlan
    private let lowest: Int64
    private let highest: Int64
    private var step: Int64
    private var days: [Int64] = []
    private var dayIndex = 0
    private var timeIndex = 0
    private var emptySteps: Int64 = 0
    private var finished = false

    /// A cursor over candidates from `lowest` through `highest`, inclusive.
    init(plan: ExpansionPlan, from lowest: Int64, through highest: Int64) {
        self.plan = plan
        self.lowest = lowest
        self.highest = highest
        step = plan.grid.step(atOrBefore: CivilCalendar.split(wall: lowest).day)
        days.reserveCapacity(8)
    }

    /// The next candidate wall time, or nil when there are no more.
    mutating func next() -> Int64? {
        while !finished {
            if dayIndex < days.count {
                let wall = days[dayIndex] * CivilCalendar.secondsPerDay + plan.secondsOfDay[timeIndex]
                advance()
                if wall < lowest { continue }
                if wall > highest { finished = true; return nil }
                return wall
            }
            loadNextStep()
        }
        return nil
    }

    private mutating func advance() {
        timeIndex += 1
        if timeIndex == plan.secondsOfDay.count {
            timeIndex = 0
            dayIndex += 1
        }
    }

    private mutating func loadNextStep() {
        guard emptySteps < plan.grid.stepsPerCycle,
              plan.grid.firstDay(ofStep: step) * CivilCalendar.secondsPerDay <= highest else {
            finished = true
            return
        }
        days.removeAll(keepingCapacity: true)
        plan.grid.appendDays(ofStep: step, matching: plan.matcher, to: &days)
        step += 1
        emptySteps = days.isEmpty ? emptySteps + 1 : 0
        skipDaysBeforeLowest()
    }

    /// Skips whole days that end before `lowest`, so a year-long step entered in December does
    /// not walk every candidate since January.
    private mutating func skipDaysBeforeLowest() {
        let lastTime = plan.secondsOfDay[plan.secondsOfDay.count - 1]
        dayIndex = 0
        timeIndex = 0
        while dayIndex < days.count && days[dayIndex] * CivilCalendar.secondsPerDay + lastTime < lowest {
            dayIndex += 1
        }
    }
}
