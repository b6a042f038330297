/// A WHO growth indicator: what is measured, against what.
public enum GrowthIndicator: String, CaseIterable, Codable, Sendable {
    /// Weight (kg) for age, 0–1856 days.
    case weightForAge = "weight-for-age"
    /// Recumbent length (under 731 days) or standing height (from 731 days), in cm, for age, 0–1856 days.
    case lengthHeightForAge = "length-height-for-age"
    /// Head circumference (cm) for age, 0–1856 days.
    case headCircumferenceForAge = "head-circumference-for-age"
    /// Weight (kg) for recumbent length, 45–110 cm: the standard for children under 2 years.
    case weightForLength = "weight-for-length"
    /// Weight (kg) for standing height, 65–120 cm: the standard for children from 2 to 5 years.
    case weightForHeight = "weight-for-height"
    /// Body mass index (kg/m²) for age, 0–1856 days: from recumbent length before 731 days, from
    /// standing height after, as the WHO's two BMI tables join.
    case bmiForAge = "bmi-for-age"

    /// The weight-for-stature standard for a child's age: weight-for-length before 731 days (when
    /// children are measured lying), weight-for-height from 731 days (standing), as the WHO splits them.
    public static func weightForStature(ageDays: Int) -> GrowthIndicator {
        ageDays < 731 ? .weightForLength : .weightForHeight
    }

    /// What the indicator's tables are indexed by.
    public enum Axis: String, Sendable {
        /// Age in completed days.
        case ageDays
        /// Recumbent length or standing height in cm.
        case lengthCm
    }

    /// The axis of this indicator's tables.
    public var axis: Axis {
        switch self {
        case .weightForAge, .lengthHeightForAge, .headCircumferenceForAge, .bmiForAge: .ageDays
        case .weightForLength, .weightForHeight: .lengthCm
        }
    }

    /// Whether the WHO restricts the tails beyond ±3 SD (the weight-based indicators).
    public var restrictsTails: Bool {
        switch self {
        case .weightForAge, .weightForLength, .weightForHeight, .bmiForAge: true
        case .lengthHeightForAge, .headCircumferenceForAge: false
        }
    }

    /// The unit of the measurement.
    public var unit: String {
        switch self {
        case .weightForAge, .weightForLength, .weightForHeight: "kg"
        case .lengthHeightForAge, .headCircumferenceForAge: "cm"
        case .bmiForAge: "kg/m²"
        }
    }

    func table(for sex: GrowthStandard.Sex) -> LMSTable {
        switch (self, sex) {
        case (.weightForAge, .boy): WHOTables.weightForAge_boy
        case (.weightForAge, .girl): WHOTables.weightForAge_girl
        case (.lengthHeightForAge, .boy): WHOTables.lengthHeightForAge_boy
        case (.lengthHeightForAge, .girl): WHOTables.lengthHeightForAge_girl
        case (.headCircumferenceForAge, .boy): WHOTables.headCircumferenceForAge_boy
        case (.headCircumferenceForAge, .girl): WHOTables.headCircumferenceForAge_girl
        case (.weightForLength, .boy): WHOTables.weightForLength_boy
        case (.weightForLength, .girl): WHOTables.weightForLength_girl
        case (.weightForHeight, .boy): WHOTables.weightForHeight_boy
        case (.weightForHeight, .girl): WHOTables.weightForHeight_girl
        case (.bmiForAge, .boy): WHOTables.bmiForAge_boy
        case (.bmiForAge, .girl): WHOTables.bmiForAge_girl
        }
    }
}
