import Foundation
import Testing
import TesseraSDK

/// Point-to-point geodesy against published values.
///
/// Sources: T. Vincenty, "Direct and inverse solutions of geodesics on the ellipsoid", Survey Review
/// XXIII (176), 1975 (the Flinders Peak → Buninyong example, on WGS-84 as given by Geoscience
/// Australia); C. F. F. Karney's GeographicLib test set (`tests/geodtest.c`, WGS-84, distances to
/// 0.1 µm); and GeographicLib 2.1 `Geodesic.WGS84.Inverse` for the Prague–Brno and JFK–LHR lines.
@Suite struct GeodesyTests {
    /// Degrees from degrees, minutes and seconds.
    static func dms(_ d: Double, _ m: Double, _ s: Double) -> Double { d + m / 60 + s / 3600 }

    @Test func flindersPeakToBuninyongMatchesVincentysExample() {
        let flinders = GeoPoint(latitude: -Self.dms(37, 57, 3.72030), longitude: Self.dms(144, 25, 29.52440))
        let buninyong = GeoPoint(latitude: -Self.dms(37, 39, 10.15610), longitude: Self.dms(143, 55, 35.38390))
        let s = Geodesy.inverse(from: flinders, to: buninyong)
        #expect(s.method == .vincenty)
        #expect(abs(s.distance - 54_972.271) < 0.001)
        #expect(abs(s.initialBearing - Self.dms(306, 52, 5.37)) < 0.01 / 3600)
        // The paper gives the reverse azimuth 127°10′25.07″; the final forward bearing is that − 180°.
        #expect(abs(s.finalBearing - Self.dms(307, 10, 25.07)) < 0.01 / 3600)
    }

    @Test func pragueToBrnoMatchesGeographicLib() {
        // Old Town Square, Prague → Freedom Square, Brno.
        let s = Geodesy.inverse(from: GeoPoint(latitude: 50.0875, longitude: 14.4214),
                                to: GeoPoint(latitude: 49.1951, longitude: 16.6068))
        #expect(abs(s.distance - 186_447.487_843) < 0.001)
        #expect(abs(s.initialBearing - 121.325_772_531) < 1e-7)
        #expect(abs(s.finalBearing - 122.991_194_382) < 1e-7)
    }

    @Test func jfkToHeathrowMatchesGeographicLibsExample() {
        let d = GeoPoint(latitude: 40.6, longitude: -73.8).distance(to: GeoPoint(latitude: 51.6, longitude: -0.5))
        #expect(abs(d - 5_551_759.400_319) < 0.001)
    }

    /// Rows of GeographicLib's `geodtest.c`: lat1, lon1, azi1, lat2, lon2, azi2, s12 (azimuths −180…180).
    static let geographicLibCases: [(Double, Double, Double, Double, Double, Double, Double)] = [
        (35.60777, -139.44815, 111.098748429560326, -11.17491, -69.95921, 129.289270889708762, 8935244.5604818305),
        (55.52454, 106.05087, 22.020059880982801, 77.03196, 197.18234, 109.112041110671519, 4105086.1713924406),
        (-21.97856, 142.59065, -32.44456876433189, 41.84138, 98.56635, -41.84359951440466, 8394328.894657671),
        (-66.99028, 112.2363, 173.73491240878403, -12.70631, 285.90344, 2.512956620913668, 11150344.2312080241),
        (-50.56724, -16.30485, -105.439679907590164, -33.56571, -94.97412, -47.348547835650331, 6455670.5118668696),
        (-68.82867, -74.28391, 93.774347763114881, -50.63005, -8.36685, 34.65564085411343, 3956936.926063544),
        (-19.79938, -174.47484, 71.167275780171533, -11.99349, -154.35109, 65.589099775199228, 2319004.8601169389),
        (-87.85331, 85.66836, -65.120313040242748, 66.48646, 16.09921, -4.888658719272296, 17286615.3147144645),
        (-41.22777, 122.32875, 14.285113402275739, -7.57291, 130.37946, 10.805303085187369, 3812686.035106021),
        (-29.47124, 95.14681, -163.779130441688382, -27.46601, -69.15955, -15.909335945554969, 13487015.8381145492),
    ]

    @Test(arguments: geographicLibCases.indices)
    func agreesWithGeographicLibToAMillimetre(_ i: Int) {
        let (lat1, lon1, azi1, lat2, lon2, azi2, s12) = Self.geographicLibCases[i]
        let s = Geodesy.inverse(from: GeoPoint(latitude: lat1, longitude: lon1), to: GeoPoint(latitude: lat2, longitude: lon2))
        #expect(s.method == .vincenty)
        #expect(abs(s.distance - s12) < 0.001, "case \(i): \(s.distance) vs \(s12)")
        #expect(angleDifference(s.initialBearing, azi1) < 1e-8, "case \(i)")
        #expect(angleDifference(s.finalBearing, azi2) < 1e-8, "case \(i)")
    }

    /// GeographicLib's near-antipodal checks (GeodSolve6, 9, 10, 11), where Vincenty does not converge.
    @Test(arguments: [
        (88.202499451857, 0.0, -88.202499451857, 179.981022032992859592, 20003898.214),
        (89.262080389218, 0.0, -89.262080389218, 179.992207982775375662, 20003925.854),
        (56.320923501171, 0.0, -56.320923501171, 179.664747671772880215, 19993558.287),
        (52.784459512564, 0.0, -52.784459512563990912, 179.634407464943777557, 19991596.095),
        (48.522876735459, 0.0, -48.52287673545898293, 179.599720456223079643, 19989144.774),
    ])
    func nearAntipodalPointsFallBackWithinTheStatedBound(_ c: (Double, Double, Double, Double, Double)) {
        let s = Geodesy.inverse(from: GeoPoint(latitude: c.0, longitude: c.1), to: GeoPoint(latitude: c.2, longitude: c.3))
        #expect(s.distance.isFinite)
        #expect(abs(s.distance - c.4) / c.4 < 0.002, "\(s.method) \(s.distance) vs \(c.4)")
    }

    @Test func coincidentPointsAreZeroApartWithBearingZero() {
        let p = GeoPoint(latitude: 49.19, longitude: 16.61)
        let s = Geodesy.inverse(from: p, to: p)
        #expect(s.distance == 0 && s.initialBearing == 0)
    }

    @Test func bearingsFollowTheCompass() {
        let origin = GeoPoint(latitude: 0, longitude: 0)
        #expect(abs(origin.initialBearing(to: GeoPoint(latitude: 1, longitude: 0)) - 0) < 1e-9)
        #expect(abs(origin.initialBearing(to: GeoPoint(latitude: 0, longitude: 1)) - 90) < 1e-9)
        #expect(abs(origin.initialBearing(to: GeoPoint(latitude: -1, longitude: 0)) - 180) < 1e-9)
        #expect(abs(origin.initialBearing(to: GeoPoint(latitude: 0, longitude: -1)) - 270) < 1e-9)
    }

    @Test func theAntimeridianIsCrossedTheShortWay() {
        // 0.2° of longitude on the equator, across ±180: a·0.2° in radians (the equator is a geodesic).
        let d = GeoPoint(latitude: 0, longitude: 179.9).distance(to: GeoPoint(latitude: 0, longitude: -179.9))
        #expect(abs(d - Geodesy.semiMajorAxis * 0.2 * .pi / 180) < 0.001)
    }

    @Test func insideARadiusIncludesTheBoundary() {
        let center = GeoPoint(latitude: 50.0875, longitude: 14.4214)
        let north = GeoPoint(latitude: 50.0885, longitude: 14.4214)
        let d = north.distance(to: center)
        #expect(north.isWithin(d, of: center))
        #expect(!north.isWithin(d - 0.01, of: center))
        #expect(north.isWithin(200, of: center) && !north.isWithin(100, of: center))
    }

    @Test func aFixHasACoordinate() {
        let fix = LocationFix(latitude: 49.2, longitude: 16.6, timestamp: Date(timeIntervalSince1970: 0), deviceID: "d")
        #expect(fix.coordinate == GeoPoint(latitude: 49.2, longitude: 16.6))
        #expect(GeoPoint(fix).distance(to: fix.coordinate) == 0)
    }

    @Test func nonFiniteInputGivesANonFiniteDistanceNotACrash() {
        let d = GeoPoint(latitude: .nan, longitude: 0).distance(to: GeoPoint(latitude: 0, longitude: 0))
        #expect(!d.isFinite)
    }
}

/// The smallest difference between two bearings in degrees, whatever their ranges.
func angleDifference(_ a: Double, _ b: Double) -> Double {
    let d = abs((a - b).truncatingRemainder(dividingBy: 360))
    return min(d, 360 - d)
}
