import Foundation
import Testing
import TesseraSDK

/// Arrival estimates: the median of recent speeds, and "unknown" when stopped.
@Suite struct GeodesyTravelTimeTests {
    @Test func usesTheMedianOfRecentSpeeds() {
        // Median of 1, 1.5, 9 (a GPS jump) is 1.5 m/s: 3 km takes 2000 s.
        #expect(TravelTime.estimate(remainingDistance: 3000, recentSpeeds: [1, 9, 1.5]) == 2000)
        // Even count: the mean of the middle two, (1 + 2) / 2.
        #expect(TravelTime.estimate(remainingDistance: 300, recentSpeeds: [2, 1, 0.5, 3]) == 200)
    }

    @Test func ignoresUnusableSpeedsAndGivesNoEstimateWhenStopped() {
        #expect(TravelTime.estimate(remainingDistance: 100, recentSpeeds: [.nan, -1, 2, .infinity]) == 50)
        #expect(TravelTime.estimate(remainingDistance: 100, recentSpeeds: [0, 0.1, 5]) == nil)
        #expect(TravelTime.estimate(remainingDistance: 100, recentSpeeds: []) == nil)
        #expect(TravelTime.estimate(remainingDistance: 100, recentSpeeds: [0.5], minimumSpeed: 1) == nil)
        #expect(TravelTime.estimate(remainingDistance: .nan, recentSpeeds: [1]) == nil)
    }

    @Test func nothingLeftTakesNoTime() {
        #expect(TravelTime.estimate(remainingDistance: 0, recentSpeeds: []) == 0)
        #expect(TravelTime.estimate(remainingDistance: -5, recentSpeeds: [0]) == 0)
    }

    @Test func fixesWithoutSpeedContributeTheirStepSpeed() throws {
        // Due north along a meridian, 1 km per 1000 s steps = 1 m/s (to well under 0.1 %).
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        let step = 1000 / 111_200.0
        let fixes = (0..<4).map {
            LocationFix(latitude: 49 + Double($0) * step, longitude: 16, timestamp: t0 + Double($0) * 1000, deviceID: "d")
        }
        let t = try #require(TravelTime.estimate(remainingDistance: 5000, recentFixes: fixes.reversed()))
        #expect(abs(t - 5000) < 10, "\(t)")
    }

    @Test func onlyTheNewestWindowCounts() {
        let t0 = Date(timeIntervalSince1970: 0)
        let old = (0..<10).map { LocationFix(latitude: 0, longitude: 0, speed: 0, timestamp: t0 + Double($0), deviceID: "d") }
        let recent = (10..<13).map { LocationFix(latitude: 0, longitude: 0, speed: 2, timestamp: t0 + Double($0), deviceID: "d") }
        #expect(TravelTime.estimate(remainingDistance: 100, recentFixes: recent + old, window: 3) == 50)
        #expect(TravelTime.estimate(remainingDistance: 100, recentFixes: recent + old, window: 7) == nil)
    }
}
