import Foundation
import TesseraSDK

/// The child's measurements against the WHO Child Growth Standards (UC15, §6, issue 41): every
/// indicator WHO Anthro gives — weight-for-age, length/height-for-age, weight-for-length/height,
/// BMI-for-age, head circumference-for-age — as z-score and percentile, and the 3rd–97th
/// percentile lines for the chart. The measurements of one day are one visit, as WHO Anthro takes
/// a row: a weight and a length of the same day give weight-for-length and BMI. A child whose sex
/// is not recorded gets no scores (the WHO's tables differ for girls and boys), nor a visit after
/// 60 months, where the standard ends.
extension Diary {
    /// The WHO indicator a measurement kind is read against by age.
    static func indicator(of kind: MeasurementKind) -> GrowthIndicator {
        switch kind {
        case .height: .lengthHeightForAge
        case .weight: .weightForAge
        case .headCircumference: .headCircumferenceForAge
        }
    }

    /// The indicators the `growth` operation answers, by the names it takes: weight-for-length and
    /// weight-for-height are one chart, the table switching at two years as WHO Anthro switches.
    static let growthIndicators: [String: GrowthIndicator] = [
        "weight-for-age": .weightForAge, "length-height-for-age": .lengthHeightForAge,
        "weight-for-length-height": .weightForLength, "bmi-for-age": .bmiForAge,
        "head-circumference-for-age": .headCircumferenceForAge,
    ]

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

    /// One day's measurements: the last of each kind entered for that day, and their scores.
    struct GrowthDay {
        var day: String
        var ageDays: Int
        var rows: [MeasurementKind: Row]
        var assessment: GrowthAssessment?
    }

    /// The child's measurements, a day at a time, oldest first, each day scored when the child's
    /// sex is recorded.
    func growthDays(childID: String, sex: GrowthStandard.Sex?, birth: String) async throws -> [GrowthDay] {
        let rows = try await query("""
            SELECT id, occurred_at, kind, value, position, oedema FROM records
            WHERE child_id = ? AND type = 'measurement' ORDER BY occurred_at, id
            """, [.text(childID)])
        var days: [GrowthDay] = []
        for row in rows {
            guard let kind = MeasurementKind(rawValue: row["kind"].text ?? ""), let date = row["occurred_at"].text,
                  let age = ageDays(birth: birth, at: date) else { continue }
            let day = String(date.prefix(10))
            if days.last?.day != day { days.append(GrowthDay(day: day, ageDays: age, rows: [:])) }
            days[days.count - 1].rows[kind] = row
        }
        guard let sex else { return days }
        return days.map { day in
            var scored = day
            let weight = day.rows[.weight]
            let height = day.rows[.height]
            scored.assessment = GrowthAssessment(GrowthVisit(
                sex: sex, ageDays: day.ageDays, weightKg: weight?["value"].real, lengthHeightCm: height?["value"].real,
                position: MeasuredPosition(rawValue: height?["position"].text ?? ""),
                headCircumferenceCm: day.rows[.headCircumference]?["value"].real, oedema: weight?["oedema"].integer == 1))
            return scored
        }
    }

    /// For `measurements`: each point's z-score and percentile, and the percentile lines over the
    /// ages shown (from birth to the last point, at least a year), or `null` when the child's sex is
    /// not recorded. A length is scored as the standard takes it (corrected for the position); a
    /// weight with oedema, or a point past 60 months, has no score.
    func growthPercentiles(childID: String, kind: MeasurementKind, points: [Row]) async throws -> JSONValue {
        let (birth, sex) = try await growthSubject(childID)
        guard let sex else { return .null }
        let indicator = Self.indicator(of: kind)
        let days = try await growthDays(childID: childID, sex: sex, birth: birth)
        let wanted = Set(points.compactMap { $0["id"].text })
        var scored: [JSONValue] = []
        var lastAge = 365
        for day in days {
            guard let row = day.rows[kind], let id = row["id"].text, wanted.contains(id),
                  let assessment = day.assessment, let z = assessment.zScore(indicator) else { continue }
            lastAge = max(lastAge, day.ageDays)
            scored.append(["id": .string(id), "ageDays": .integer(Int64(day.ageDays)), "zScore": .number(Self.twoDecimals(z)),
                           "percentile": .number(Self.percentile(z)), "flagged": .bool(assessment.isFlagged(indicator))])
        }
        let range = 0...Double(min(lastAge, 1856))
        return ["standard": "WHO Child Growth Standards 2006", "indicator": .string(indicator.rawValue), "sex": .string(sex.rawValue),
                "points": .array(scored), "lines": try Self.lines(indicator, sex: sex, over: range, key: "ageDays")]
    }

    struct GrowthInput: Decodable, Sendable {
        var childId: String
        var indicator: String
    }

    /// `growth` (issue 41): one indicator's points, each with z-score, percentile and whether WHO
    /// Anthro would flag it when the standard can score it, the percentile lines for its chart, and
    /// the days that could not be scored with the reason (`noSex`, `oedema`, `outsideStandard`: past 60 months or a length outside the table).
    func growth(_ input: GrowthInput) async throws -> JSONValue {
        guard let indicator = Self.growthIndicators[input.indicator] else {
            throw BabyError.invalid("indicator", "'\(input.indicator)' is not one of \(Self.growthIndicators.keys.sorted().joined(separator: ", "))")
        }
        let (birth, sex) = try await growthSubject(input.childId)
        let days = try await growthDays(childID: input.childId, sex: sex, birth: birth)
        let byLength = indicator.axis == .lengthCm
        var points: [JSONValue] = []
        var unscored: [JSONValue] = []
        for day in days {
            guard let measured = Self.measured(indicator, on: day) else { continue }
            var point: [String: JSONValue] = ["date": .string(day.day), "ageDays": .integer(Int64(day.ageDays)), "value": .number(measured.value)]
            if let length = measured.lengthCm { point["lengthCm"] = .number(length) }
            // A day the standard cannot score is still the child's value: charted, without a percentile.
            guard let assessment = day.assessment, let z = assessment.zScore(indicator) else {
                unscored.append(["date": .string(day.day), "reason": .string(Self.whyUnscored(indicator, day: day, sex: sex))])
                points.append(.object(point))
                continue
            }
            if byLength { point["standard"] = .string(assessment.weightForStature.rawValue) }
            point["zScore"] = .number(Self.twoDecimals(z))
            point["percentile"] = .number(Self.percentile(z))
            point["flagged"] = .bool(assessment.isFlagged(indicator))
            points.append(.object(point))
        }
        var answer: [String: JSONValue] = [
            "indicator": .string(input.indicator), "standard": "WHO Child Growth Standards 2006",
            "sex": sex.map { .string($0.rawValue) } ?? .null, "axis": .string(byLength ? "lengthCm" : "ageDays"),
            "unit": .string(indicator.unit), "points": .array(points), "unscored": .array(unscored), "lines": [],
        ]
        if let sex { answer["lines"] = try Self.chartLines(indicator, sex: sex, days: days, points: points) }
        return .object(answer)
    }

    /// The value a day gives for an indicator (kg, cm or kg/m²), and for weight-for-length the
    /// corrected length it is read at; nil when the day has nothing for it.
    static func measured(_ indicator: GrowthIndicator, on day: GrowthDay) -> (value: Double, lengthCm: Double?)? {
        let weight = day.rows[.weight]?["value"].real
        switch indicator {
        case .weightForAge: return weight.map { ($0, nil) }
        case .lengthHeightForAge:
            return day.rows[.height]?["value"].real.map { ($0, day.assessment?.adjustedLengthHeightCm) }
        case .headCircumferenceForAge: return day.rows[.headCircumference]?["value"].real.map { ($0, nil) }
        case .weightForLength, .weightForHeight:
            guard let weight, day.rows[.height] != nil else { return nil }
            return (weight, day.assessment?.adjustedLengthHeightCm ?? day.rows[.height]?["value"].real)
        case .bmiForAge:
            guard weight != nil, day.rows[.height] != nil else { return nil }
            return day.assessment?.bmi.map { (($0 * 100).rounded() / 100, nil) }
        }
    }

    /// Why a day with a value for the indicator got no score, as a code the page puts in words.
    static func whyUnscored(_ indicator: GrowthIndicator, day: GrowthDay, sex: GrowthStandard.Sex?) -> String {
        guard sex != nil else { return "noSex" }
        let weightBased = [.weightForAge, .weightForLength, .weightForHeight, .bmiForAge].contains(indicator)
        if weightBased, day.rows[.weight]?["oedema"].integer == 1 { return "oedema" }
        return "outsideStandard"
    }

    /// The chart's percentile lines: by age from birth to the last day (at least a year), or for
    /// weight-for-length/height by length around the points, on the table of the latest day.
    static func chartLines(_ indicator: GrowthIndicator, sex: GrowthStandard.Sex, days: [GrowthDay], points: [JSONValue]) throws -> JSONValue {
        guard indicator.axis == .lengthCm else {
            let last = days.filter { measured(indicator, on: $0) != nil }.map(\.ageDays).max() ?? 365
            return try lines(indicator, sex: sex, over: 0...Double(min(max(last, 365), 1856)), key: "ageDays")
        }
        let lengths = points.compactMap { $0["lengthCm"]?.doubleValue }
        let table = GrowthIndicator.weightForStature(ageDays: days.last?.ageDays ?? 0)
        let bounds = table == .weightForLength ? 45.0...110.0 : 65.0...120.0
        let low = max(bounds.lowerBound, ((lengths.min() ?? bounds.lowerBound) - 5).rounded(.down))
        let high = min(bounds.upperBound, ((lengths.max() ?? bounds.lowerBound + 20) + 5).rounded(.up))
        return try lines(table, sex: sex, over: low...max(high, low + 1), key: "lengthCm")
    }

    static func lines(_ indicator: GrowthIndicator, sex: GrowthStandard.Sex, over range: ClosedRange<Double>, key: String) throws -> JSONValue {
        let step = indicator.axis == .ageDays ? max(range.upperBound / 60, 1) : max((range.upperBound - range.lowerBound) / 60, 0.1)
        let curves = try GrowthStandard.curves(indicator, sex: sex, over: range, step: step)
        return .array(curves.map { curve in
            ["percentile": .number(curve.percentile),
             "points": .array(curve.points.map { point in
                 let x: JSONValue = indicator.axis == .ageDays ? .number(point.x.rounded()) : .number((point.x * 10).rounded() / 10)
                 return [key: x, "value": .number((point.value * 100).rounded() / 100)]
             })]
        })
    }

    static func twoDecimals(_ z: Double) -> Double { (z * 100).rounded() / 100 }
    static func percentile(_ z: Double) -> Double { (GrowthStandard.percentile(ofZScore: z) * 10).rounded() / 10 }
}
