import Foundation
import Testing
@testable import TesseraBaby
import TesseraSDK
import TesseraTesting

/// Issue 41: every WHO indicator through the module's operations — the position a length was
/// measured in, oedema, weight-for-length/height and BMI from one day's measurements — with the
/// z-scores WHO Anthro gives for the same child (its output quoted in each test).
@Suite struct BabyGrowthIndicatorsTests {
    /// A girl 456 days old on the fixture's clock (2026-03-02).
    static func girl() async throws -> (PluginTestHost, JSONValue) {
        let host = try await BabyFixture.host()
        let id = try #require(try await host.call("child-create", ["name": "Ema", "birthDate": "2024-12-01", "sex": "girl"])["id"])
        return (host, id)
    }

    static func point(_ answer: JSONValue, on date: String) -> JSONValue? {
        answer["points"]?.arrayValue?.first { $0["date"]?.stringValue == date }
    }

    @Test func aHeightMeasuredStandingIsScoredAsWHOAnthroScoresIt() async throws {
        let (host, id) = try await Self.girl()
        let height = try await host.call("measurement-add", ["childId": id, "kind": "height", "value": 74, "position": "standing", "date": "2026-03-02"])
        #expect(height["position"] == "standing")
        _ = try await host.call("measurement-add", ["childId": id, "kind": "weight", "value": 9.1, "date": "2026-03-02"])
        _ = try await host.call("measurement-add", ["childId": id, "kind": "headCircumference", "value": 45.1, "date": "2026-03-02"])
        // anthro_zscores(sex = 2, age = 456, weight = 9.1, lenhei = 74, measure = "h", headc = 45.1):
        // clenhei 74.7, cbmi 16.30798, zwei −0.43, zlen −1.02, zwfl 0.01, zbmi 0.21, zhc −0.4.
        let expected: [(String, Double)] = [("weight-for-age", -0.43), ("length-height-for-age", -1.02), ("weight-for-length-height", 0.01),
                                            ("bmi-for-age", 0.21), ("head-circumference-for-age", -0.4)]
        for (indicator, z) in expected {
            let answer = try await host.call("growth", ["childId": id, "indicator": .string(indicator)])
            let point = try #require(Self.point(answer, on: "2026-03-02"), "\(indicator): \(answer)")
            #expect(point["zScore"]?.doubleValue == z, "\(indicator): \(point)")
            #expect(point["flagged"] == false)
            #expect(answer["lines"]?.arrayValue?.count == 5, "P3, P15, P50, P85, P97")
        }
        let forLength = try await host.call("growth", ["childId": id, "indicator": "weight-for-length-height"])
        let point = try #require(Self.point(forLength, on: "2026-03-02"))
        #expect(point["lengthCm"]?.doubleValue.map { abs($0 - 74.7) < 1e-9 } == true, "the standing height + 0.7 cm")
        #expect(point["standard"] == "weight-for-length", "under two years the length table")
        #expect(forLength["axis"] == "lengthCm")
        let bmi = try await host.call("growth", ["childId": id, "indicator": "bmi-for-age"])
        #expect(Self.point(bmi, on: "2026-03-02")?["value"]?.doubleValue == 16.31)

        // Measured lying instead: anthro says clenhei 74, zlen −1.27, zwfl 0.17, zbmi 0.43.
        _ = try await host.call("record-update", ["id": try #require(height["id"]), "position": "lying"])
        let lying = try await host.call("growth", ["childId": id, "indicator": "length-height-for-age"])
        #expect(Self.point(lying, on: "2026-03-02")?["zScore"]?.doubleValue == -1.27)
        let lyingBMI = try await host.call("growth", ["childId": id, "indicator": "bmi-for-age"])
        #expect(Self.point(lyingBMI, on: "2026-03-02")?["zScore"]?.doubleValue == 0.43)
        // `measurements` scores the corrected length too.
        let series = try await host.call("measurements", ["childId": id, "kind": "height"])
        #expect(series["percentiles"]?["points"]?[0]?["zScore"]?.doubleValue == -1.27)
    }

    @Test func aHeightWithoutAPositionTakesTheOneTheStandardExpects() async throws {
        let (host, id) = try await Self.girl()
        let height = try await host.call("measurement-add", ["childId": id, "kind": "height", "value": 74.86, "date": "2026-03-02"])
        #expect(height["position"] == "lying", "under two years")
        #expect(height["value"]?.doubleValue == 74.86, "kept as entered, not rounded to 74.9")
    }

    @Test func aWeightWithOedemaIsKeptButNotScored() async throws {
        let (host, id) = try await Self.girl()
        // 14 kg is far above the standard for her age, but oedema asks no confirmation: it is not scored.
        let weight = try await host.call("measurement-add", ["childId": id, "kind": "weight", "value": 14, "oedema": true, "date": "2026-03-01"])
        #expect(weight["oedema"] == true)
        let answer = try await host.call("growth", ["childId": id, "indicator": "weight-for-age"])
        let kept = try #require(Self.point(answer, on: "2026-03-01"), "the weight is still charted")
        #expect(kept["value"]?.doubleValue == 14 && kept["zScore"] == nil && kept["percentile"] == nil)
        #expect(answer["unscored"] == [["date": "2026-03-01", "reason": "oedema"]])
        _ = try await host.call("record-update", ["id": try #require(weight["id"]), "oedema": false, "value": 9.1])
        let scored = try await host.call("growth", ["childId": id, "indicator": "weight-for-age"])
        #expect(Self.point(scored, on: "2026-03-01")?["zScore"] != nil)
    }

    @Test func positionAndOedemaBelongToTheirKindsAndABabyUnderNineMonthsLiesDown() async throws {
        let (host, id) = try await Self.girl()
        let baby = try #require(try await host.call("child-create", ["name": "Adam", "birthDate": "2025-09-01", "sex": "boy"])["id"])
        let before = try await BabyFixture.counts(host)
        let weightStanding = await refusal {
            try await host.call("measurement-add", ["childId": id, "kind": "weight", "value": 9, "position": "standing", "date": "2026-03-02"])
        }
        #expect(weightStanding?.field == "$.position")
        let heightOedema = await refusal {
            try await host.call("measurement-add", ["childId": id, "kind": "height", "value": 74, "oedema": true, "date": "2026-03-02"])
        }
        #expect(heightOedema?.field == "$.oedema")
        let standing = await refusal {
            try await host.call("measurement-add", ["childId": baby, "kind": "height", "value": 66, "position": "standing", "date": "2026-03-02"])
        }
        #expect(standing?.field == "$.position" && standing?.reason == "standing_too_young", "\(String(describing: standing))")
        #expect(try await BabyFixture.counts(host) == before, "nothing written")
    }

    @Test func aChildWithoutARecordedSexHasDaysButNoScores() async throws {
        let host = try await BabyFixture.host()
        let id = try #require(try await host.call("child-create", ["name": "Ema", "birthDate": "2024-12-01"])["id"])
        _ = try await host.call("measurement-add", ["childId": id, "kind": "weight", "value": 9.1, "date": "2026-03-02"])
        let answer = try await host.call("growth", ["childId": id, "indicator": "weight-for-age"])
        #expect(answer["sex"] == .null)
        #expect(answer["points"]?.arrayValue?.map { $0["value"] } == [9.1], "charted without a percentile")
        #expect(answer["points"]?[0]?["zScore"] == nil)
        #expect(answer["unscored"] == [["date": "2026-03-02", "reason": "noSex"]])
        #expect(answer["lines"] == [])
    }

    @Test func weightForLengthNeedsALengthOfTheSameDay() async throws {
        let (host, id) = try await Self.girl()
        _ = try await host.call("measurement-add", ["childId": id, "kind": "height", "value": 74, "date": "2026-02-20"])
        _ = try await host.call("measurement-add", ["childId": id, "kind": "weight", "value": 9.1, "date": "2026-03-02"])
        let answer = try await host.call("growth", ["childId": id, "indicator": "weight-for-length-height"])
        #expect(answer["points"] == [], "a weight and a length of different days are not one visit")
        let unknown = await refusal { try await host.call("growth", ["childId": id, "indicator": "weight-for-size"]) }
        #expect(unknown?.field == "$.indicator")
    }
}
