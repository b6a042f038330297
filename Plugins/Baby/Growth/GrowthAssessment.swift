import Foundation

/// How a child's length or height was measured: lying down (recumbent length, the standard
/// before two years) or standing (height, the standard from two years).
public enum MeasuredPosition: String, CaseIterable, Codable, Sendable {
    /// Recumbent length, on a measuring board.
    case lying
    /// Standing height, against a wall scale.
    case standing

    /// The position the WHO standard expects at an age: lying before 731 days, standing from 731.
    public static func expected(ageDays: Int) -> MeasuredPosition {
        ageDays < 731 ? .lying : .standing
    }

    /// The youngest age, in days, at which a standing height is plausible: WHO Anthro ignores the
    /// position of a child under 9 months measured "standing" (its `c9mo_flag`), as no such baby stands
    /// still against a scale. 9 months of 30.4375 days is day 273.9, so day 274 is the first.
    public static let firstStandingDay = 274
}

/// One visit's measurements of a child, as a parent or a nurse enters them on the same day.
public struct GrowthVisit: Sendable, Equatable {
    /// The sex whose tables apply.
    public var sex: GrowthStandard.Sex
    /// The age in completed days on the day of the visit.
    public var ageDays: Int
    /// Weight in kg, as entered.
    public var weightKg: Double?
    /// Length or height in cm, as entered (not yet corrected for the position).
    public var lengthHeightCm: Double?
    /// How the length or height was measured; nil when not said (then no correction is made).
    public var position: MeasuredPosition?
    /// Head circumference in cm, as entered.
    public var headCircumferenceCm: Double?
    /// Bilateral pitting oedema: the weight is water as much as the child, so the WHO gives no
    /// weight-based score.
    public var oedema: Bool

    /// A visit; every measurement is optional.
    public init(sex: GrowthStandard.Sex, ageDays: Int, weightKg: Double? = nil, lengthHeightCm: Double? = nil,
                position: MeasuredPosition? = nil, headCircumferenceCm: Double? = nil, oedema: Bool = false) {
        self.sex = sex
        self.ageDays = ageDays
        self.weightKg = weightKg
        self.lengthHeightCm = lengthHeightCm
        self.position = position
        self.headCircumferenceCm = headCircumferenceCm
        self.oedema = oedema
    }
}

/// The WHO indicators of one visit, computed as the WHO's own software (WHO Anthro, R package
/// `anthro`) computes them, so that its z-scores equal Anthro's to two decimals:
///
/// - z-scores only while the child is under 60 months (age in days ÷ 30.4375 < 60);
/// - the length or height corrected for the position: + 0.7 cm for a child under 731 days measured
///   standing, − 0.7 cm for a child of 731 days or more measured lying; a "standing" child under
///   9 months is taken as not said;
/// - weight-for-length (45–110 cm) before 731 days, weight-for-height (65–120 cm) from 731 days, on
///   the corrected length, interpolated between the tables' 0.1 cm rows as Anthro finds them
///   (`LMSTable.parametersAsWHOAnthro`);
/// - BMI from the weight and the corrected length;
/// - no weight-based score (weight-for-age, weight-for-length/height, BMI) with oedema;
/// - a score is flagged implausible beyond WHO Anthro's thresholds (`flagRange`).
public struct GrowthAssessment: Sendable, Equatable {
    /// The length or height the standard compares: as entered, corrected for the position.
    public let adjustedLengthHeightCm: Double?
    /// Body mass index, kg/m², from the weight and the corrected length or height.
    public let bmi: Double?
    /// The weight-for-stature table that applies at this age: weight-for-length or -height.
    public let weightForStature: GrowthIndicator
    /// The z-score of each indicator the visit's measurements allow, unrounded.
    public let zScores: [GrowthIndicator: Double]

    /// The visit's scores.
    public init(_ visit: GrowthVisit) {
        let age = visit.ageDays
        let position = visit.position == .standing && age < MeasuredPosition.firstStandingDay ? nil : visit.position
        let adjusted = visit.lengthHeightCm.map { cm in
            position.map { GrowthStandard.lengthHeightForStandard(cm, ageDays: age, measuredLying: $0 == .lying) } ?? cm
        }
        let bmi: Double? = if let weight = visit.weightKg, let cm = adjusted, cm > 0 { weight / ((cm / 100) * (cm / 100)) } else { nil }
        adjustedLengthHeightCm = adjusted
        self.bmi = bmi
        weightForStature = GrowthIndicator.weightForStature(ageDays: age)

        var scores: [GrowthIndicator: Double] = [:]
        guard Self.scoresAge(age) else { zScores = scores; return }
        let weight = visit.oedema ? nil : visit.weightKg
        scores[.weightForAge] = weight.flatMap { try? GrowthStandard.zScore($0, indicator: .weightForAge, sex: visit.sex, ageDays: age) }
        scores[.lengthHeightForAge] = adjusted.flatMap { try? GrowthStandard.zScore($0, indicator: .lengthHeightForAge, sex: visit.sex, ageDays: age) }
        scores[.headCircumferenceForAge] = visit.headCircumferenceCm.flatMap {
            try? GrowthStandard.zScore($0, indicator: .headCircumferenceForAge, sex: visit.sex, ageDays: age)
        }
        scores[.bmiForAge] = visit.oedema ? nil : bmi.flatMap { try? GrowthStandard.zScore($0, indicator: .bmiForAge, sex: visit.sex, ageDays: age) }
        if let weight, let cm = adjusted, weight > 0, weightForStature.table(for: visit.sex).axisRange.contains(cm),
           let lms = weightForStature.table(for: visit.sex).parametersAsWHOAnthro(atLength: cm) {
            scores[weightForStature] = lms.restrictedZScore(weight)
        }
        zScores = scores
    }

    /// The z-score of `indicator`; for either weight-for-stature indicator, the one that applies.
    public func zScore(_ indicator: GrowthIndicator) -> Double? {
        switch indicator {
        case .weightForLength, .weightForHeight: zScores[weightForStature]
        default: zScores[indicator]
        }
    }

    /// Whether a z-score lies beyond WHO Anthro's flags for its indicator (a value to check).
    public func isFlagged(_ indicator: GrowthIndicator) -> Bool {
        guard let z = zScore(indicator) else { return false }
        // Anthro flags the score it shows, rounded to two decimals: 5.003 is 5.00, not flagged.
        return !Self.flagRange(indicator).contains((z * 100).rounded() / 100)
    }

    /// WHO Anthro's thresholds for an implausible score: weight-for-age below −6 or above 5,
    /// length/height-for-age beyond ±6, the others beyond ±5.
    public static func flagRange(_ indicator: GrowthIndicator) -> ClosedRange<Double> {
        switch indicator {
        case .weightForAge: -6...5
        case .lengthHeightForAge: -6...6
        case .headCircumferenceForAge, .weightForLength, .weightForHeight, .bmiForAge: -5...5
        }
    }

    /// Whether WHO Anthro scores a child of this age: 0 days up to, not including, 60 months.
    public static func scoresAge(_ ageDays: Int) -> Bool {
        ageDays >= 0 && Double(ageDays) / 30.4375 < 60
    }
}
