import Foundation
import TesseraSDK

/// Study results with their statistics (spec §5.2.3–4): credits earned against the study plan's
/// target, the weighted average, counts by grade, and per academic year the same, split into the
/// winter (ZS) and summer (LS) semester.
///
/// A subject's result is its latest grade as STAG reports it (`zk_hodnoceni`, which a retake
/// replaces). Passed: 1, 2, 3, S (credit given) or A–E; failed: 4, N, F. The weighted average is
/// Σ(credits × grade) / Σ credits over the subjects with a numeric grade (letters A–F count as
/// 1, 1.5, 2, 2.5, 3, 4); a 4 that stands counts, as in the thesis's app; S/N do not.
enum Results {
    struct Statistics: Equatable {
        var creditsEnrolled = 0
        var creditsEarned = 0
        var enrolled = 0
        var passed = 0
        var weightedAverage: Double?
        var countsByGrade: [String: Int] = [:]
    }

    /// One subject's row: its credits (from the subject list) and result (from the grades).
    struct Row {
        let subject: String
        let name: String
        let year: String
        let semester: String?
        let credits: Int
        let grade: JSONValue?
    }

    /// The target for the whole study by the programme's type (`typSp`): bachelor's 180, follow-up
    /// master's 120, long master's 300, doctoral 240 (ECTS); `nil` when STAG does not say.
    static func target(programmeType: String?) -> Int? {
        switch programmeType?.uppercased() {
        case "B": 180
        case "N": 120
        case "M": 300
        case "P", "D": 240
        default: nil
        }
    }

    /// The numeric value of a grade for the average, `nil` for S/N and anything unknown.
    static func value(_ grade: String) -> Double? {
        if let number = Double(grade), (1...4).contains(number) { return number }
        return ["A": 1, "B": 1.5, "C": 2, "D": 2.5, "E": 3, "F": 4][grade.uppercased()]
    }

    static func passes(_ grade: String) -> Bool {
        !["4", "N", "F", ""].contains(grade.uppercased()) && (value(grade) != nil || grade.uppercased() == "S")
    }

    /// Each subject of the list with its grade (matched by subject and year, else by subject).
    static func rows(grades: [JSONValue], subjects: [JSONValue]) -> [Row] {
        var bySubjectYear: [String: JSONValue] = [:]
        for grade in grades { bySubjectYear["\(grade["subject"]?.stringValue ?? "")|\(grade["year"]?.stringValue ?? "")"] = grade }
        var rows = subjects.map { item -> Row in
            let code = item["subject"]?.stringValue ?? ""
            let year = item["year"]?.stringValue ?? ""
            let grade = bySubjectYear.removeValue(forKey: "\(code)|\(year)")
            return Row(subject: code, name: item["name"]?.stringValue ?? code, year: year,
                       semester: item["semester"]?.stringValue ?? grade?["semester"]?.stringValue,
                       credits: Int(item["credits"]?.integerValue ?? 0), grade: grade)
        }
        // A grade whose subject is not in the list (an older list cached) still counts, without credits.
        for grade in bySubjectYear.values.sorted(by: { ($0["subject"]?.stringValue ?? "") < ($1["subject"]?.stringValue ?? "") }) {
            let code = grade["subject"]?.stringValue ?? ""
            rows.append(Row(subject: code, name: grade["subjectName"]?.stringValue ?? code, year: grade["year"]?.stringValue ?? "",
                            semester: grade["semester"]?.stringValue, credits: 0, grade: grade))
        }
        return rows
    }

    static func statistics(grades: [JSONValue], subjects: [JSONValue]) -> Statistics { statistics(rows(grades: grades, subjects: subjects)) }

    static func statistics(_ rows: [Row]) -> Statistics {
        var stats = Statistics()
        var weighted = 0.0, weights = 0
        for row in rows {
            stats.enrolled += 1
            stats.creditsEnrolled += row.credits
            guard let grade = row.grade?["grade"]?.stringValue, !grade.isEmpty else { continue }
            stats.countsByGrade[grade, default: 0] += 1
            if passes(grade) { stats.passed += 1; stats.creditsEarned += row.credits }
            if let value = value(grade), row.credits > 0 { weighted += value * Double(row.credits); weights += row.credits }
        }
        stats.weightedAverage = weights > 0 ? weighted / Double(weights) : nil
        return stats
    }

    /// The average rounded to two places, as a string ("1.83").
    static func format(_ average: Double) -> String { String(format: "%.2f", average) }

    static func json(_ stats: Statistics) -> [String: JSONValue] {
        ["creditsEnrolled": .integer(Int64(stats.creditsEnrolled)), "creditsEarned": .integer(Int64(stats.creditsEarned)),
         "enrolled": .integer(Int64(stats.enrolled)), "passed": .integer(Int64(stats.passed)),
         "weightedAverage": stats.weightedAverage.map { .number(($0 * 100).rounded() / 100) } ?? .null,
         "countsByGrade": .object(stats.countsByGrade.mapValues { .integer(Int64($0)) })]
    }

    /// The whole answer: totals with the target, and the years, newest first.
    static func report(grades: [JSONValue], subjects: [JSONValue], programmeType: String?) -> JSONValue {
        let all = rows(grades: grades, subjects: subjects)
        var totals = json(statistics(all))
        totals["creditsTarget"] = target(programmeType: programmeType).map { .integer(Int64($0)) } ?? .null
        let years = Dictionary(grouping: all, by: \.year).sorted { $0.key > $1.key }.map { year, rows -> JSONValue in
            var entry = json(statistics(rows))
            entry["year"] = .string(year)
            entry["label"] = .string(Int(year).map { "\($0)/\(String(format: "%02d", ($0 + 1) % 100))" } ?? year)
            var semesters: [String: JSONValue] = [:]
            for (semester, list) in Dictionary(grouping: rows, by: { $0.semester ?? "?" }) {
                semesters[semester] = .array(list.sorted { $0.subject < $1.subject }.map(subjectJSON))
            }
            entry["semesters"] = .object(semesters)
            return .object(entry)
        }
        totals["years"] = .array(years)
        return .object(totals)
    }

    static func subjectJSON(_ row: Row) -> JSONValue {
        let grade = row.grade?["grade"]?.stringValue
        return ["subject": .string(row.subject), "name": .string(row.name), "credits": .integer(Int64(row.credits)),
                "grade": grade.map(JSONValue.string) ?? .null, "kind": row.grade?["kind"] ?? .null, "date": row.grade?["date"] ?? .null,
                "attempt": row.grade?["attempt"] ?? .null, "passed": .bool(grade.map(passes) ?? false)]
    }
}
