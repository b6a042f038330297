import Foundation
import TesseraSDK

/// The three kinds of measurement (UC14), each with its unit and the physically possible range for a child (0–18 years), so a slip of the finger — 510 cm, 0 kg — is refused.
enum MeasurementKind: String, CaseIterable, Sendable {
    case height, weight, headCircumference

    var unit: String { self == .weight ? "kg" : "cm" }
    var range: ClosedRange<Double> {
        switch self {
        case .height: 20...220
        case .weight: 0.3...200
        case .headCircumference: 20...65
        }
    }

    /// The value as entered (issue 41: WHO Anthro scores 72.86 cm, not 72.9), or a refusal naming
    /// `field` and the range.
    func checked(_ value: Double, field: String) throws -> Double {
        guard value.isFinite, range.contains(value) else {
            throw BabyError.outOfRange(field, "\(value) \(unit) is outside \(range.lowerBound)–\(range.upperBound) \(unit) for a \(rawValue)")
        }
        return value
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
        /// A height's position, `lying` or `standing`; by default the one the WHO expects at the age.
        var position: String?
        /// A weight taken with oedema: kept, but given no weight-based score.
        var oedema: Bool?
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
        var values: [String: SQLValue] = ["kind": .text(kind.rawValue), "value": .real(value)]
        let position = try await measuredPosition(input.position, kind: kind, childID: input.childId, date: input.date)
        if let position { values["position"] = .text(position.rawValue) }
        if let oedema = input.oedema {
            guard kind == .weight else { throw BabyError.invalid("oedema", "only a weight is taken with or without oedema") }
            values["oedema"] = .integer(oedema ? 1 : 0)
        }
        if input.confirmed != true, input.oedema != true {
            try await checkPlausible(value, kind: kind, position: position, childID: input.childId, date: input.date)
        }
        return try await addRecord(childID: input.childId, type: .measurement, date: input.date, note: input.note, photos: input.photos,
                                   values: values)
    }

    /// A height's position: as given, or the one the WHO expects at the child's age (lying before
    /// two years). A baby under 9 months is measured lying: WHO Anthro ignores a "standing" then.
    func measuredPosition(_ given: String?, kind: MeasurementKind, childID: String, date: String) async throws -> MeasuredPosition? {
        guard kind == .height else {
            if given != nil { throw BabyError.invalid("position", "only a length or height is measured lying or standing") }
            return nil
        }
        let (birth, _) = try await growthSubject(childID)
        let age = ageDays(birth: birth, at: date) ?? 0
        guard let given else { return MeasuredPosition.expected(ageDays: age) }
        let position = try MeasuredPosition(rawValue: Validate.oneOf(given, MeasuredPosition.allCases.map(\.rawValue), field: "position"))!
        if position == .standing, age < MeasuredPosition.firstStandingDay {
            throw PluginError(.invalidInput, "position: a baby under 9 months is measured lying down", field: "$.position", reason: "standing_too_young")
        }
        return position
    }

    /// Issue 41: a measurement is of a day the child has lived: not after today (it showed as the
    /// latest weight), not before the birth (it sat in the timeline without a z-score).
    func checkMeasurementDay(_ date: String, childID: String) async throws {
        let day = String(try dates.parseDayOrMoment(date, field: "date").prefix(10))
        let today = dates.today(clock.now())
        guard day <= today else {
            throw PluginError(.invalidInput, "date: \(day) is after today, \(today)", field: "$.date", reason: "date_in_future")
        }
        if let birth = try await query("SELECT birth_date FROM children WHERE id = ?", [.text(childID)]).first?["birth_date"].text, day < birth {
            throw PluginError(.invalidInput, "date: \(day) is before the child's birth, \(birth)", field: "$.date", reason: "before_birth")
        }
    }

    /// Issue 41: a value far outside the WHO standard for the child's age and sex (a 70 kg
    /// six-month-old: a slip, or kg for g) is not charted silently; the parent is asked to confirm
    /// it (`confirmed: true`). A child without a recorded sex, or past the tables' five years, is
    /// not checked: there is no standard to hold the value to.
    func checkPlausible(_ value: Double, kind: MeasurementKind, position: MeasuredPosition?, childID: String, date: String) async throws {
        let (birth, sex) = try await growthSubject(childID)
        guard let sex, let age = ageDays(birth: birth, at: date) else { return }
        let visit = GrowthVisit(sex: sex, ageDays: age, weightKg: kind == .weight ? value : nil,
                                lengthHeightCm: kind == .height ? value : nil, position: position,
                                headCircumferenceCm: kind == .headCircumference ? value : nil)
        let indicator = Self.indicator(of: kind)
        let assessment = GrowthAssessment(visit)
        guard assessment.isFlagged(indicator), let z = assessment.zScore(indicator) else { return }
        let rounded = (z * 10).rounded() / 10
        throw PluginError(.invalidInput, "value: \(value) \(kind.unit) is far outside the WHO standard for the child's age and sex "
                          + "(z-score \(rounded)); send it again with confirmed true if it is right", field: "$.value", reason: "implausible")
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
