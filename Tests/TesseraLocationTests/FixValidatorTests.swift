import Foundation
import Testing
import TesseraLocation
import TesseraSDK

@Suite struct FixValidatorTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func fix(_ lat: Double = 49.2, _ lon: Double = 16.6, at offset: TimeInterval = 0, device: String = "d",
                    accuracy: Double? = nil, speed: Double? = nil) -> LocationFix {
        LocationFix(latitude: lat, longitude: lon, accuracy: accuracy, speed: speed, timestamp: now + offset, deviceID: device)
    }

    @Test(arguments: [
        (fix(.nan, 16), FixRejection.nonFinite), (fix(49, .infinity), .nonFinite), (fix(speed: .nan), .nonFinite),
        (fix(90.0001, 0), .outOfRange), (fix(-91, 0), .outOfRange), (fix(0, 180.5), .outOfRange), (fix(0, -181), .outOfRange),
        (fix(accuracy: -1), .negativeAccuracy),
    ])
    func checksEachFixOnItsOwn(_ fix: LocationFix, _ reason: FixRejection) {
        var validator = FixValidator()
        #expect(validator.check(fix) == reason)
        #expect(validator.admit(fix, now: Self.now) == reason)
        #expect(validator.newest.isEmpty)
    }

    @Test func theEdgesOfTheRangesAreAccepted() {
        let validator = FixValidator()
        for fix in [Self.fix(90, 180), Self.fix(-90, -180), Self.fix(accuracy: 0)] { #expect(validator.check(fix) == nil) }
    }

    @Test func refusesTimestampsTooFarAheadOfTheClock() {
        var validator = FixValidator(futureMargin: 600)
        #expect(validator.admit(Self.fix(at: 600), now: Self.now) == nil, "exactly the margin is allowed")
        #expect(validator.admit(Self.fix(at: 601, device: "e"), now: Self.now) == .inTheFuture)
    }

    @Test func keepsEachDevicesFixesInTimestampOrder() {
        var validator = FixValidator()
        #expect(validator.admit(Self.fix(at: 10), now: Self.now) == nil)
        #expect(validator.admit(Self.fix(at: 10), now: Self.now) == .duplicate)
        #expect(validator.admit(Self.fix(at: 5), now: Self.now) == .outOfOrder)
        #expect(validator.admit(Self.fix(at: 5, device: "other"), now: Self.now) == nil, "another device has its own order")
        #expect(validator.admit(Self.fix(at: 11), now: Self.now) == nil)
        #expect(validator.newest["d"]?.timestamp == Self.now + 11)
    }
}
