import Foundation
import TesseraSDK

/// The child's measurements against the WHO Child Growth Standards (UC15, §6): each point's
/// z-score and percentile for the child's age and sex, and the 3rd–97th percentile lines over the
/// ages shown, for the chart. A child whose sex is not recorded gets no percentiles (the WHO's
/// tables differ for girls and boys), nor a point outside the tables (0–1856 days).
extension Diary {
    /// The WHO indicator a measurement kind is read against.
    static func indicator(of kind: MeasurementKind) -> GrowthIndicator {
        switch kind {
        case .height: .lengthHeightForAge
        case .weight: .weightForAge
        case .headCircumference: .headCircumferenceForAge
        }
    }

    /// The child's birth date and sex (nil when not recorded).
    func growthSubject(_ childID: String) async throws -> (birth: String, sex: GrowthStandard.Sex?) {
        guard let row = try await query("SELECT birth_date, sex FROM children WHERE id = ?", [.text(childID)]).first else {
            throw BabyError.notFound("child", childID)
        }
        return (row["birth_date"].text ?? "", GrowthStandard.Sex(rawValue: row["sex"].text ?? ""))
    }

    /// Whole days from `birth` to the day of `date` (a day or a local moment).
    func ageDays(birth: String, at date: String) -> Int? {
        guard let from = try? dates.parseDay(birth, field: "birthDate"), let to = try? dates.parseDay(String(date.prefix(10)), field: "date"),
              let start = dates.calendar.date(from: from), let end = dates.calendar.date(from: to) else { return nil }
        return dates.calendar.dateComponents([.day], from: start, to: end).day
    }

    /// Each point's z-score and percentile, and the percentile lines over the ages shown (from
    /// birth to the last point, at least a year), or `null` when the child's sex is not recorded.
    func growthPercentiles(childID: String, kind: MeasurementKind, points: [Row]) async throws -> JSONValue {
        let (birth, sex) = try await growthSubject(childID)
        guard let sex else { return .null }
        let indicator = Self.indicator(of: kind)
        var scored: [JSONValue] = []
        var lastAge = 365
        for point in points {
            guard let value = point["value"].real, let age = ageDays(birth: birth, at: point["occurred_at"].text ?? ""),
                  let z = try? GrowthStandard.zScore(value, indicator: indicator, sex: sex, ageDays: age) else { continue }
            lastAge = max(lastAge, age)
            scored.append(["id": point["id"].jsonValue, "ageDays": .integer(Int64(age)),
                           "zScore": .number((z * 100).rounded() / 100),
                           "percentile": .number((GrowthStandard.percentile(ofZScore: z) * 10).rounded() / 10)])
        }
        let range = 0...Double(min(lastAge, 1856))
        let curves = try GrowthStandard.curves(indicator, sex: sex, over: range, step: max(range.upperBound / 60, 1))
        let lines: [JSONValue] = curves.map { curve in
            ["percentile": .number(curve.percentile),
             "points": .array(curve.points.map { ["ageDays": .number($0.x.rounded()), "value": .number(($0.value * 100).rounded() / 100)] })]
        }
        return ["standard": "WHO Child Growth Standards 2006", "indicator": .string(indicator.rawValue), "sex": .string(sex.rawValue),
                "points": .array(scored), "lines": .array(lines)]
    }
}
