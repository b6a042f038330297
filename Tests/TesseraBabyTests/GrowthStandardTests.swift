import Foundation
import Testing
@testable import TesseraBaby

/// The WHO growth standards against values checked by hand from the tables
/// (../shared/data/who-growth): the median is z = 0, the SD lines are z = ±2 and ±3, and the WHO's
/// published SD tables (rounded to 0.1) agree.
@Suite struct GrowthStandardTests {
    @Test(arguments: GrowthIndicator.allCases, GrowthStandard.Sex.allCases)
    func theMedianIsZScoreZeroAndTheFiftiethPercentile(indicator: GrowthIndicator, sex: GrowthStandard.Sex) throws {
        let points: [Double] = indicator.axis == .ageDays ? [0, 1, 365, 730, 731, 1856] : (indicator == .weightForLength ? [45, 80, 110] : [65, 90, 120])
        for x in points {
            let median = try GrowthStandard.parameters(indicator, sex: sex, at: x).m
            let z = indicator.axis == .ageDays
                ? try GrowthStandard.zScore(median, indicator: indicator, sex: sex, ageDays: Int(x))
                : try GrowthStandard.zScore(median, indicator: indicator, sex: sex, lengthCm: x)
            #expect(abs(z) < 1e-12, "\(indicator) \(sex) at \(x)")
            #expect(abs(GrowthStandard.percentile(ofZScore: z) - 50) < 1e-9)
        }
    }

    @Test func theTablesRowsAreTheCSVsValues() throws {
        // First and last rows of wfa_boys_0_5.csv and wfl_girls_0_2.csv, copied by hand.
        #expect(try GrowthStandard.parameters(.weightForAge, sex: .boy, at: 0) == LMS(l: 0.3487, m: 3.3464, s: 0.14602))
        #expect(try GrowthStandard.parameters(.weightForAge, sex: .boy, at: 1856) == LMS(l: -0.1534, m: 18.4968, s: 0.1358))
        #expect(try GrowthStandard.parameters(.weightForLength, sex: .girl, at: 45.0) == LMS(l: -0.3833, m: 2.4607, s: 0.09029))
        #expect(try GrowthStandard.parameters(.weightForLength, sex: .girl, at: 110.0) == LMS(l: -0.3833, m: 18.3324, s: 0.09401))
        #expect(try GrowthStandard.parameters(.headCircumferenceForAge, sex: .girl, at: 1) == LMS(l: 1, m: 33.975, s: 0.03479))
        #expect(try GrowthStandard.parameters(.weightForHeight, sex: .boy, at: 65.1) == LMS(l: -0.3521, m: 7.4563, s: 0.08216))
    }

    @Test func lengthAtBirthTwoStandardDeviationsAboveTheMedianIsZTwo() throws {
        // lhfa boys, day 0: L 1, M 49.8842, S 0.03795. With L = 1 the curve is normal:
        // SD2 = M · (1 + 2S) = 49.8842 · 1.0759 = 53.67041 cm (WHO's SD table: 53.7).
        let sd2 = 49.8842 * 1.0759
        #expect(abs(try GrowthStandard.zScore(sd2, indicator: .lengthHeightForAge, sex: .boy, ageDays: 0) - 2) < 1e-9)
        #expect(abs(try GrowthStandard.zScore(49.8842 * (1 - 2 * 0.03795), indicator: .lengthHeightForAge, sex: .boy, ageDays: 0) + 2) < 1e-9)
        #expect(abs(try GrowthStandard.value(atZScore: 2, indicator: .lengthHeightForAge, sex: .boy, at: 0) - 53.67041) < 1e-4)
    }

    @Test func weightAtBirthMatchesTheWHOsPublishedStandardDeviationLines() throws {
        // The WHO's weight-for-age SD table for boys at birth: −3 SD 2.1, −2 SD 2.5, +2 SD 4.4, +3 SD 5.0 kg.
        // By hand from L 0.3487, M 3.3464, S 0.146: M·(1 + L·S·z)^(1/L) = 2.0805, 2.4594, 4.4192, 5.0304.
        let expected: [(z: Double, kg: Double, published: Double)] = [(-3, 2.0805, 2.1), (-2, 2.4594, 2.5), (2, 4.4192, 4.4), (3, 5.0304, 5.0)]
        for line in expected {
            let value = try GrowthStandard.value(atZScore: line.z, indicator: .weightForAge, sex: .boy, at: 0)
            #expect(abs(value - line.kg) < 1e-3, "z \(line.z): \(value)")
            #expect((value * 10).rounded() / 10 == line.published)
            #expect(abs(try GrowthStandard.zScore(value, indicator: .weightForAge, sex: .boy, ageDays: 0) - line.z) < 1e-9)
        }
    }

    @Test func weightBeyondThreeStandardDeviationsUsesTheRestrictedTail() throws {
        // SD3 = 5.030639, SD2 = 4.419354 (boys, day 0: L 0.3487, M 3.3464, S 0.14602). One SD3−SD2 step above SD3 is z = 4 exactly
        // under the WHO's restriction; the plain LMS formula would say 3.9237.
        let sd3 = 5.030639, sd2 = 4.419354
        let heavy = sd3 + (sd3 - sd2)
        #expect(abs(try GrowthStandard.zScore(heavy, indicator: .weightForAge, sex: .boy, ageDays: 0) - 4) < 1e-4)
        let lms = try GrowthStandard.parameters(.weightForAge, sex: .boy, at: 0)
        #expect(abs(lms.plainZScore(heavy) - 3.9237) < 1e-3)
        // Below: SD−3 = 2.080308, SD−2 = 2.459312; half a step below SD−3 is z = −3.5.
        let light = 2.080308 - 0.5 * (2.459312 - 2.080308)
        #expect(abs(try GrowthStandard.zScore(light, indicator: .weightForAge, sex: .boy, ageDays: 0) + 3.5) < 1e-4)
        // And the inverse lands on the same weights.
        #expect(abs(try GrowthStandard.value(atZScore: 4, indicator: .weightForAge, sex: .boy, at: 0) - heavy) < 1e-4)
        #expect(abs(try GrowthStandard.value(atZScore: -3.5, indicator: .weightForAge, sex: .boy, at: 0) - light) < 1e-4)
    }

    @Test func headCircumferenceHasNoRestrictedTail() throws {
        // hcfa girls day 0: L 1, M 33.8787, S 0.03496; z = 4 is simply M·(1 + 4S).
        let y = 33.8787 * (1 + 4 * 0.03496)
        #expect(abs(try GrowthStandard.zScore(y, indicator: .headCircumferenceForAge, sex: .girl, ageDays: 0) - 4) < 1e-9)
    }

    @Test func percentilesOfTheChartLines() throws {
        #expect(abs(GrowthStandard.percentile(ofZScore: 1.880794) - 97) < 1e-4)
        #expect(abs(GrowthStandard.percentile(ofZScore: -1.036433) - 15) < 1e-4)
        #expect(abs(GrowthStandard.percentile(ofZScore: 2) - 97.724987) < 1e-5)
        #expect(abs(try GrowthStandard.zScore(ofPercentile: 3) + 1.880794) < 1e-6)
        #expect(abs(try GrowthStandard.zScore(ofPercentile: 85) - 1.036433) < 1e-6)
        #expect(abs(try GrowthStandard.zScore(ofPercentile: 0.1) + 3.090232) < 1e-6)
        for z in stride(from: -5.0, through: 5.0, by: 0.25) {
            #expect(abs(try GrowthStandard.zScore(ofPercentile: GrowthStandard.percentile(ofZScore: z)) - z) < 1e-8)
        }
        // wfa boys day 365: L 0.0645, M 9.646, S 0.10925 → z = ((9.6/9.646)^0.0645 − 1)/(0.0645 · 0.10925) = −0.043748.
        #expect(abs(try GrowthStandard.zScore(9.6, indicator: .weightForAge, sex: .boy, ageDays: 365) + 0.0437482) < 1e-6)
        #expect(abs(try GrowthStandard.percentile(9.6, indicator: .weightForAge, sex: .boy, ageDays: 365) - 48.2553) < 1e-4)
    }

    @Test func weightForLengthBetweenTableRowsIsInterpolated() throws {
        // wfl boys 45.0: M 2.441; 45.1: M 2.4577. Halfway, the median is their mean.
        let lms = try GrowthStandard.parameters(.weightForLength, sex: .boy, at: 45.05)
        #expect(abs(lms.m - (2.441 + 2.4577) / 2) < 1e-12)
        #expect(abs(try GrowthStandard.zScore(lms.m, indicator: .weightForLength, sex: .boy, lengthCm: 45.05)) < 1e-12)
    }

    @Test func chartCurvesAreOrderedAndTheMedianLineIsTheTable() throws {
        let curves = try GrowthStandard.curves(.weightForAge, sex: .girl, over: 0...730, step: 30.4375)
        #expect(curves.map(\.percentile) == [3, 15, 50, 85, 97])
        #expect(curves[0].points.count == 25)  // 0, one month, … 24 months (730.5 > 730, so 730 closes it)
        #expect(curves[0].points.last?.x == 730)
        for index in curves[0].points.indices {
            let values = curves.map { $0.points[index].value }
            #expect(values == values.sorted() && Set(values).count == 5)
        }
        #expect(curves[2].points[0].value == 3.2322)  // wfa girls day 0: M 3.2322
    }

    @Test func badInputIsRefusedNamingTheField() throws {
        #expect(throws: GrowthStandardError.outsideTable(.weightForAge, 1857, 0...1856)) {
            try GrowthStandard.zScore(18, indicator: .weightForAge, sex: .boy, ageDays: 1857)
        }
        #expect(throws: GrowthStandardError.measurementNotPositive(0)) {
            try GrowthStandard.zScore(0, indicator: .headCircumferenceForAge, sex: .girl, ageDays: 10)
        }
        #expect(throws: GrowthStandardError.wrongAxis(.weightForLength, given: .ageDays)) {
            try GrowthStandard.zScore(8, indicator: .weightForLength, sex: .girl, ageDays: 300)
        }
        #expect(throws: GrowthStandardError.percentileOutOfRange(100)) { try GrowthStandard.zScore(ofPercentile: 100) }
        let message = GrowthStandardError.outsideTable(.weightForHeight, 64, 65...120).description
        #expect(message.contains("lengthCm 64.0") && message.contains("weight-for-height"))
    }

    @Test func weightForStatureSwitchesFromLengthToHeightAtTwoYears() {
        #expect(GrowthIndicator.weightForStature(ageDays: 730) == .weightForLength)
        #expect(GrowthIndicator.weightForStature(ageDays: 731) == .weightForHeight)
    }

    @Test func lyingAndStandingLengthsAreCorrectedByPointSevenCentimetres() {
        #expect(GrowthStandard.lengthHeightForStandard(80, ageDays: 600, measuredLying: false) == 80.7)
        #expect(GrowthStandard.lengthHeightForStandard(90, ageDays: 731, measuredLying: true) == 89.3)
        #expect(GrowthStandard.lengthHeightForStandard(80, ageDays: 600, measuredLying: true) == 80)
    }
}
