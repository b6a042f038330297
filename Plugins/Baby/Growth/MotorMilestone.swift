/// The six gross motor milestones of the WHO Multicentre Growth Reference Study and their windows
/// of achievement: the ages, in months, between the 1st and the 99th percentile of the age at which
/// healthy children reached them (WHO Motor Development Study, Acta Paediatrica 2006, suppl. 450:86–95).
///
/// A window is wide on purpose: reaching a milestone anywhere inside it is normal. The WHO also
/// notes that 4.3 % of the children never crawled on hands and knees.
public enum MotorMilestone: String, CaseIterable, Codable, Sendable {
    /// Sitting without support.
    case sittingWithoutSupport = "sitting-without-support"
    /// Standing with assistance.
    case standingWithAssistance = "standing-with-assistance"
    /// Hands-and-knees crawling.
    case handsAndKneesCrawling = "hands-and-knees-crawling"
    /// Walking with assistance.
    case walkingWithAssistance = "walking-with-assistance"
    /// Standing alone.
    case standingAlone = "standing-alone"
    /// Walking alone.
    case walkingAlone = "walking-alone"

    /// Days per month as the WHO counts them (365.25 / 12).
    public static let daysPerMonth = 30.4375

    /// The window of achievement in months: 1st to 99th percentile.
    public var windowMonths: ClosedRange<Double> {
        switch self {
        case .sittingWithoutSupport: 3.8...9.2
        case .standingWithAssistance: 4.8...11.4
        case .handsAndKneesCrawling: 5.2...13.5
        case .walkingWithAssistance: 5.9...13.7
        case .standingAlone: 6.9...16.9
        case .walkingAlone: 8.2...17.6
        }
    }

    /// The window of achievement in days of age (months × 30.4375, rounded to whole days).
    public var windowDays: ClosedRange<Int> {
        Int((windowMonths.lowerBound * Self.daysPerMonth).rounded())...Int((windowMonths.upperBound * Self.daysPerMonth).rounded())
    }

    /// An English name, as the WHO words it.
    public var title: String {
        switch self {
        case .sittingWithoutSupport: "Sitting without support"
        case .standingWithAssistance: "Standing with assistance"
        case .handsAndKneesCrawling: "Hands-and-knees crawling"
        case .walkingWithAssistance: "Walking with assistance"
        case .standingAlone: "Standing alone"
        case .walkingAlone: "Walking alone"
        }
    }

    /// Where an age of achievement falls against the window.
    public enum Timing: String, Sendable, Codable {
        /// Before the 1st percentile.
        case beforeWindow = "before-window"
        /// Within the window (1st–99th percentile).
        case withinWindow = "within-window"
        /// After the 99th percentile.
        case afterWindow = "after-window"
    }

    /// Where `ageDays` (the age when the milestone was reached, or today's age if not yet) falls.
    public func timing(ageDays: Int) -> Timing {
        if ageDays < windowDays.lowerBound { return .beforeWindow }
        if ageDays > windowDays.upperBound { return .afterWindow }
        return .withinWindow
    }

    /// The milestones whose window contains `ageDays`, in the order the WHO lists them.
    public static func inWindow(atAgeDays ageDays: Int) -> [MotorMilestone] {
        allCases.filter { $0.windowDays.contains(ageDays) }
    }
}
