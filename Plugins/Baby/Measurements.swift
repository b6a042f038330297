import Foundation
import TesseraSDK

/// The three kinds of measurement (UC14), each with its unit, precision and the physically
/// possible range for a child (0–18 years), so a slip of the finger — 510 cm, 0 kg — is refused.
enum MeasurementKind: String, CaseIterable, Sendable {
    case height, weight, headCircumference

    var unit: String { self == .weight ? "kg" : "cm" }
    /// cm to one decimal, kg to three (grams), §9.8 question 6.
    var decimals: Double { self == .weight ? 1000 : 10 }

    var range: ClosedRange<Double> {
        switch self {
        case .height: 20...220
        case .weight: 0.3...200
        case .headCircumference: 20...65
        }
    }

    /// The value rounded to the kind's precision, or a refusal naming `field` and the range.
    func checked(_ value: Double, field: String) throws -> Double {
        guard value.isFinite, range.contains(value) else {
            throw BabyError.outOfRange(field, "\(value) \(unit) is outside \(range.lowerBound)–\(range.upperBound) \(unit) for a \(rawValue)")
        }
        return (value * decimals).rounded() / decimals
    }
}

extension Diary {
    struct NewMeasurement: Decodable, Sendable {
        var childId: String
        var kind: String
        var value: Double
        var date: String
        var note: String?
        var photos: [String]?
        /// The parent confirms a value the WHO standard finds implausible for the child.
        var confirmed: Bool?
    }

    struct SeriesInput: Decodable, Sendable {
        var childId: String
        var kind: String
        var range: String?
    }

    func addMeasurement(_ input: NewMeasurement) async throws -> JSONValue {
        guard let kind = MeasurementKind(rawValue: input.kind) else {
            throw BabyError.invalid("kind", "'\(input.kind)' is not one of height, weight, headCircumference")
        }
        let value = try kind.checked(input.value, field: "value")
        try await require(.createRecord, on: input.childId)  // who may, before what they sent
        try await checkMeasurementDay(input.date, childID: input.childId)
        if input.confirmed != true { try await checkPlausible(value, kind: kind, childID: input.childId, date: input.date) }
        return try await addRecord(childID: input.childId, type: .measurement, date: input.date, note: input.note, photos: input.photos,
                                   values: ["kind": .text(kind.rawValue), "value": .real(value)])
    }

    /// Issue 41: a measurement is of a day the child has lived: not after today (it showed as the
    /// latest weight), not before the birth (it sat in the timeline without a z-score).
    func checkMeasurementDay(_ date: String, childID: String) async throws {
        let day = String(try dates.parseDayOrMoment(date, field: "date").prefix(10))
        let today = dates.today(clock.now())
        guard day <= today else {
            throw PluginError(.invalidInput, "date: \(day) is after today, \(today) (code date_in_future)", field: "$.date")
        }
        if let birth = try await query("SELECT birth_date FROM children WHERE id = ?", [.text(childID)]).first?["birth_date"].text, day < birth {
            throw PluginError(.invalidInput, "date: \(day) is before the child's birth, \(birth) (code before_birth)", field: "$.date")
        }
    }

    /// The z-scores beyond which WHO Anthro flags a value as implausible (its `flag_threshold`s):
    /// weight-for-age below −6 or above 5, length/height-for-age beyond ±6, head circumference ±5.
    static func plausibleZScores(_ kind: MeasurementKind) -> ClosedRange<Double> {
        switch kind {
        case .weight: -6...5
        case .height: -6...6
        case .headCircumference: -5...5
        }
    }

    /// Issue 41: a value far outside the WHO standard for the child's age and sex (a 70 kg
    /// six-month-old: a slip, or kg for g) is not charted silently; the parent is asked to confirm
    /// it (`confirmed: true`). A child without a recorded sex, or past the tables' five years, is
    /// not checked: there is no standard to hold the value to.
    func checkPlausible(_ value: Double, kind: MeasurementKind, childID: String, date: String) async throws {
        let (birth, sex) = try await growthSubject(childID)
        guard let sex, let age = ageDays(birth: birth, at: date),
              let z = try? GrowthStandard.zScore(value, indicator: Self.indicator(of: kind), sex: sex, ageDays: age),
              !Self.plausibleZScores(kind).contains(z) else { return }
        let rounded = (z * 10).rounded() / 10
        throw PluginError(.invalidInput, "value: \(value) \(kind.unit) is far outside the WHO standard for the child's age and sex "
                          + "(z-score \(rounded)); send it again with confirmed true if it is right (code implausible)", field: "$.value")
    }

    /// UC15: one kind's values over 1 month, 1 year or all time, oldest first, for the chart.
    func measurementSeries(_ input: SeriesInput) async throws -> JSONValue {
        guard let kind = MeasurementKind(rawValue: input.kind) else {
            throw BabyError.invalid("kind", "'\(input.kind)' is not one of height, weight, headCircumference")
        }
        guard try await query("SELECT 1 FROM children WHERE id = ?", [.text(input.childId)]).first != nil else {
            throw BabyError.notFound("child", input.childId)
        }
        let today = dates.today(clock.now())
        let from: String
        switch input.range ?? "all" {
        case "1m": from = dates.day(today, minus: .month, 1)
        case "1y": from = dates.day(today, minus: .year, 1)
        case "all": from = ""
        case let other: throw BabyError.invalid("range", "'\(other)' is not one of 1m, 1y, all")
        }
        let rows = try await query("""
            SELECT id, occurred_at, value FROM records WHERE child_id = ? AND type = 'measurement' AND kind = ? AND occurred_at >= ?
            ORDER BY occurred_at, id
            """, [.text(input.childId), .text(kind.rawValue), .text(from)])
        let points: [JSONValue] = rows.map { ["id": $0["id"].jsonValue, "date": $0["occurred_at"].jsonValue, "value": $0["value"].jsonValue] }
        // Each point against the WHO standard for the child's age and sex (Growth.swift).
        return ["kind": .string(kind.rawValue), "unit": .string(kind.unit), "range": .string(input.range ?? "all"), "points": .array(points),
                "percentiles": try await growthPercentiles(childID: input.childId, kind: kind, points: rows)]
    }
}
