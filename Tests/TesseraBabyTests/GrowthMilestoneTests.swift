import Testing
@testable import TesseraBaby

/// The WHO's six gross motor milestones and their windows of achievement (1st–99th percentile).
@Suite struct GrowthMilestoneTests {
    @Test func theSixWindowsAreTheWHOs() {
        #expect(MotorMilestone.allCases.count == 6)
        #expect(MotorMilestone.sittingWithoutSupport.windowMonths == 3.8...9.2)
        #expect(MotorMilestone.handsAndKneesCrawling.windowMonths == 5.2...13.5)
        #expect(MotorMilestone.walkingAlone.windowMonths == 8.2...17.6)
        // 8.2 × 30.4375 = 249.6 → 250 days; 17.6 × 30.4375 = 535.7 → 536 days.
        #expect(MotorMilestone.walkingAlone.windowDays == 250...536)
    }

    @Test func anAgeFallsBeforeWithinOrAfterAWindow() {
        #expect(MotorMilestone.walkingAlone.timing(ageDays: 249) == .beforeWindow)
        #expect(MotorMilestone.walkingAlone.timing(ageDays: 250) == .withinWindow)
        #expect(MotorMilestone.walkingAlone.timing(ageDays: 536) == .withinWindow)
        #expect(MotorMilestone.walkingAlone.timing(ageDays: 537) == .afterWindow)
    }

    @Test func theMilestonesDueAtAnAge() {
        #expect(MotorMilestone.inWindow(atAgeDays: 100).isEmpty)  // 3.3 months: none yet
        #expect(MotorMilestone.inWindow(atAgeDays: 120) == [.sittingWithoutSupport])  // 3.9 months
        // 9.9 months: sitting's window closed at 280 days (9.2 × 30.4375); the other five are open.
        #expect(MotorMilestone.inWindow(atAgeDays: 300) == [.standingWithAssistance, .handsAndKneesCrawling, .walkingWithAssistance, .standingAlone, .walkingAlone])
    }
}
