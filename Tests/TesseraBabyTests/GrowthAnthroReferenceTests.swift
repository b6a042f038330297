import Foundation
import Testing
@testable import TesseraBaby

/// Issue 41: every WHO indicator equals WHO Anthro's own output to its two decimals. The reference
/// is 3,000 children scored by the WHO's R package `anthro` (Fixtures/who-anthro-reference.csv,
/// made by scripts/who-anthro-reference.R): both sexes, 0–1,900 days, measured lying or standing
/// whatever the age, some with oedema, some far beyond ±3 SD. A score Anthro leaves empty must be
/// empty here too, and Anthro's implausibility flags must be ours.
@Suite struct GrowthAnthroReferenceTests {
    struct Child {
        var line: Int
        var visit: GrowthVisit
        var expected: [String: String]
    }

    static func population() throws -> [Child] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/who-anthro-reference.csv")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: true)
            .filter { !$0.hasPrefix("#") }
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        return try lines.dropFirst().enumerated().map { index, line in
            let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let row = Dictionary(uniqueKeysWithValues: zip(header, cells))
            let visit = GrowthVisit(
                sex: try #require(GrowthStandard.Sex(rawValue: row["sex"] ?? "")), ageDays: try #require(Int(row["age_days"] ?? "")),
                weightKg: Double(row["weight"] ?? ""), lengthHeightCm: Double(row["lenhei"] ?? ""),
                position: MeasuredPosition(rawValue: row["measure"] ?? ""), headCircumferenceCm: Double(row["headc"] ?? ""),
                oedema: row["oedema"] == "TRUE")
            return Child(line: index + 3, visit: visit, expected: row)
        }
    }

    /// (the reference's column, our indicator, the flag column)
    static let columns: [(String, GrowthIndicator, String)] = [
        ("zwei", .weightForAge, "fwei"), ("zlen", .lengthHeightForAge, "flen"), ("zwfl", .weightForLength, "fwfl"),
        ("zbmi", .bmiForAge, "fbmi"), ("zhc", .headCircumferenceForAge, "fhc"),
    ]

    @Test func everyIndicatorEqualsWHOAnthroToTwoDecimals() throws {
        let children = try Self.population()
        #expect(children.count == 3000)
        var compared = 0
        var differing: [String] = []
        for child in children {
            let ours = GrowthAssessment(child.visit)
            for (column, indicator, flagColumn) in Self.columns {
                let theirs = Double(child.expected[column] ?? "")
                let mine = ours.zScore(indicator)
                switch (theirs, mine) {
                case (nil, nil): continue
                case (let theirs?, let mine?):
                    compared += 1
                    // Anthro rounds to two decimals: ours, unrounded, must round to the same.
                    if abs(mine - theirs) > 0.005 + 1e-9 { differing.append("line \(child.line) \(column): Anthro \(theirs), ours \(mine)") }
                    if ours.isFlagged(indicator) != (child.expected[flagColumn] == "1") {
                        differing.append("line \(child.line) \(flagColumn): Anthro \(child.expected[flagColumn] ?? "")")
                    }
                default:
                    differing.append("line \(child.line) \(column): Anthro \(theirs.map { "\($0)" } ?? "none"), ours \(mine.map { "\($0)" } ?? "none")")
                }
            }
        }
        #expect(compared > 12_000, "scores compared: \(compared)")
        #expect(differing.isEmpty, "\(differing.count) differ, first: \(differing.prefix(10).joined(separator: "; "))")
    }

    @Test func theCorrectedLengthAndBMIAreAnthros() throws {
        for child in try Self.population() {
            let ours = GrowthAssessment(child.visit)
            if let theirs = Double(child.expected["clenhei"] ?? "") {
                let mine = try #require(ours.adjustedLengthHeightCm, "line \(child.line)")
                #expect(abs(mine - theirs) < 1e-9, "line \(child.line)")
            }
            if let theirs = Double(child.expected["cbmi"] ?? "") {
                let mine = try #require(ours.bmi, "line \(child.line)")
                #expect(abs(mine - theirs) < 1e-9, "line \(child.line)")
            }
        }
    }

    @Test func aLengthMeasuredTheOtherWayIsCorrectedBySevenMillimetres() {
        let lyingAtThree = GrowthAssessment(GrowthVisit(sex: .boy, ageDays: 1100, lengthHeightCm: 95, position: .lying))
        let standingAtThree = GrowthAssessment(GrowthVisit(sex: .boy, ageDays: 1100, lengthHeightCm: 94.3, position: .standing))
        #expect(lyingAtThree.adjustedLengthHeightCm == 94.3)
        #expect(lyingAtThree.zScore(.lengthHeightForAge) == standingAtThree.zScore(.lengthHeightForAge))
        let standingAtOne = GrowthAssessment(GrowthVisit(sex: .girl, ageDays: 400, lengthHeightCm: 74, position: .standing))
        #expect(abs((standingAtOne.adjustedLengthHeightCm ?? 0) - 74.7) < 1e-9)
        // A "standing" baby under 9 months is taken as not said: no correction.
        let standingBaby = GrowthAssessment(GrowthVisit(sex: .girl, ageDays: 200, lengthHeightCm: 66, position: .standing))
        #expect(standingBaby.adjustedLengthHeightCm == 66)
    }

    @Test func oedemaLeavesNoWeightBasedScore() {
        let visit = GrowthVisit(sex: .girl, ageDays: 300, weightKg: 8, lengthHeightCm: 70, position: .lying, headCircumferenceCm: 44, oedema: true)
        let scores = GrowthAssessment(visit)
        #expect(scores.zScore(.weightForAge) == nil)
        #expect(scores.zScore(.weightForLength) == nil)
        #expect(scores.zScore(.bmiForAge) == nil)
        #expect(scores.zScore(.lengthHeightForAge) != nil)
        #expect(scores.zScore(.headCircumferenceForAge) != nil)
    }

    @Test func nothingIsScoredFromSixtyMonths() {
        // 60 months = 1826.25 days: day 1826 is scored, 1827 is not (WHO Anthro's rule).
        #expect(GrowthAssessment(GrowthVisit(sex: .boy, ageDays: 1826, weightKg: 18)).zScore(.weightForAge) != nil)
        #expect(GrowthAssessment(GrowthVisit(sex: .boy, ageDays: 1827, weightKg: 18)).zScore(.weightForAge) == nil)
    }
}
