import Foundation
import Testing
import TesseraSDK

/// Distance to a route and progress along it, against values computed independently of the code
/// under test: closed forms on the equator and a meridian, a brute-force search over single
/// segments, and GeographicLib.
@Suite struct GeodesyPolylineTests {
    static let a = Geodesy.semiMajorAxis
    static let e2 = Geodesy.flattening * (2 - Geodesy.flattening)

    /// The meridian arc from the equator to latitude φ (Helmert's series, e⁶ terms; sub-millimetre).
    static func meridianArc(_ phiDegrees: Double) -> Double {
        let phi = phiDegrees * .pi / 180, e4 = e2 * e2, e6 = e4 * e2
        return a * (1 - e2) * ((1 + 3 * e2 / 4 + 45 * e4 / 64 + 175 * e6 / 256) * phi
            - (3 * e2 / 8 + 15 * e4 / 32 + 525 * e6 / 1024) * sin(2 * phi)
            + (15 * e4 / 256 + 105 * e6 / 1024) * sin(4 * phi)
            - (35 * e6 / 3072) * sin(6 * phi))
    }

    static let equator = GeoPolyline((0...10).map { GeoPoint(latitude: 0, longitude: Double($0)) })

    @Test func nearTheEquatorTheDistanceIsTheMeridianArc() throws {
        // The equator is a geodesic and meridians cross it at right angles.
        let r = try #require(Self.equator.nearestPoint(to: GeoPoint(latitude: 0.1, longitude: 5.5)))
        #expect(abs(r.distance - Self.meridianArc(0.1)) < 0.001, "\(r.distance) vs \(Self.meridianArc(0.1))")
        #expect(r.segmentIndex == 5)
        #expect(abs(r.progress - Self.a * 5.5 * .pi / 180) < 0.001)
        #expect(abs(r.remaining - Self.a * 4.5 * .pi / 180) < 0.001)
        #expect(abs(r.point.latitude) < 1e-12 && abs(r.point.longitude - 5.5) < 1e-9)
        #expect(abs(Self.equator.length - Self.a * 10 * .pi / 180) < 0.001)
    }

    @Test func besideAMeridianTheDistanceIsTheParallelArc() throws {
        // 0.01° east of a meridian at 15° N: N(φ)·cos φ·Δλ, to well under a millimetre at 1 km.
        let route = GeoPolyline([GeoPoint(latitude: 10, longitude: 0), GeoPoint(latitude: 20, longitude: 0)])
        let phi = 15.0 * .pi / 180
        let n = Self.a / (1 - Self.e2 * sin(phi) * sin(phi)).squareRoot()
        let expected = n * cos(phi) * 0.01 * .pi / 180
        let d = try #require(route.distance(from: GeoPoint(latitude: 15, longitude: 0.01)))
        #expect(abs(d - expected) < 0.001, "\(d) vs \(expected)")
    }

    @Test func pastAnEndTheNearestPointIsThatEnd() throws {
        let r = try #require(Self.equator.nearestPoint(to: GeoPoint(latitude: 0, longitude: -1)))
        #expect(r.point == GeoPoint(latitude: 0, longitude: 0) && r.segmentIndex == 0 && r.progress == 0)
        #expect(abs(r.distance - Self.a * .pi / 180) < 0.001)
        let end = try #require(Self.equator.nearestPoint(to: GeoPoint(latitude: 0, longitude: 12)))
        #expect(end.point == GeoPoint(latitude: 0, longitude: 10) && end.segmentIndex == 9 && end.remaining < 1e-6)
    }

    @Test func emptyOneNonFiniteAndRepeatedPointsAreHandled() throws {
        #expect(GeoPolyline([]).distance(from: GeoPoint(latitude: 0, longitude: 0)) == nil)
        let single = GeoPolyline([GeoPoint(latitude: 0, longitude: 0)])
        #expect(single.length == 0)
        #expect(abs(try #require(single.distance(from: GeoPoint(latitude: 0, longitude: 1))) - Self.a * .pi / 180) < 0.001)
        #expect(Self.equator.distance(from: GeoPoint(latitude: .nan, longitude: 0)) == nil)
        let withJunk = GeoPolyline([GeoPoint(latitude: 0, longitude: 0), GeoPoint(latitude: .infinity, longitude: 0),
                                    GeoPoint(latitude: 0, longitude: 1), GeoPoint(latitude: 0, longitude: 1)])
        #expect(withJunk.points.count == 3)
        let r = try #require(withJunk.nearestPoint(to: GeoPoint(latitude: 0.001, longitude: 0.5)))
        #expect(abs(r.distance - Self.meridianArc(0.001)) < 0.001 && r.segmentIndex == 0)
    }

    @Test func theBlockPrefilterFindsWhatABruteForceSearchFinds() throws {
        var random = SeededRandom(seed: 7)
        let route = Self.randomWalk(points: 500, start: GeoPoint(latitude: 49.2, longitude: 16.6), random: &random)
        let polyline = GeoPolyline(route)
        let single = route.indices.dropLast().map { GeoPolyline([route[$0], route[$0 + 1]]) }
        for _ in 0..<300 {
            let anchor = route[Int(random.next() % 500)]
            let q = GeoPoint(latitude: anchor.latitude + random.uniform(-0.05, 0.05),
                             longitude: anchor.longitude + random.uniform(-0.05, 0.05))
            let fast = try #require(polyline.nearestPoint(to: q))
            let slow = single.map { $0.distance(from: q)! }
            let best = slow.min()!
            // The route is chosen on the sphere and measured on the ellipsoid, so near-ties may differ by millimetres.
            #expect(abs(fast.distance - best) < 0.01 + 1e-5 * best, "query \(q): \(fast.distance) vs \(best)")
        }
    }

    /// Brute-force references from GeographicLib 2.1: the minimum over each segment's true
    /// ellipsoidal geodesic (sampled, then refined by golden-section search) of the distance to the
    /// point. Route points and queries were generated at random; the values are in metres.
    static let geographicLibCases: [(route: [(Double, Double)], point: (Double, Double), distance: Double, progress: Double, segment: Int)] = [
        (route: [(-58.501720942, 125.076145297), (-58.500159504, 125.037619510), (-58.486529824, 124.975168572)],
         point: (-58.502520607, 125.076262091), distance: 89.3317, progress: 0.0000, segment: 0),
        (route: [(31.333258683, -84.120998235), (31.346020891, -84.127362849), (31.387624216, -84.407794861)],
         point: (31.333296946, -84.162500492), distance: 1963.2375, progress: 4591.6104, segment: 1),
        (route: [(70.266723032, 19.029447465), (69.876822170, 19.538235492), (69.710330023, 19.294603119),
                 (69.612837112, 18.139857795), (69.365423387, 17.753300945)],
         point: (69.733766533, 19.358836585), distance: 1042.8013, progress: 64974.1225, segment: 1),
        (route: [(1.234760082, 147.666621218), (1.226971665, 147.688009318), (1.226133250, 147.689419528),
                 (1.226322743, 147.725261407), (1.227773344, 147.732974754), (1.230395596, 147.764478725),
                 (1.225649717, 147.780697302), (1.222091531, 147.803308320), (1.206209183, 147.820650387)],
         point: (1.129812058, 147.881423899), distance: 10821.8242, progress: 18130.4766, segment: 7),
        (route: [(14.909396861, -38.304112904), (14.739439648, -37.991699769), (14.522203897, -37.660565558),
                 (14.514828751, -37.422314210), (14.298062201, -37.272896260)],
         point: (14.538039889, -37.437488005), distance: 2514.1011, progress: 105520.3322, segment: 2),
        (route: [(45.384837218, 115.374928293), (45.581645110, 115.149866455), (45.598723162, 115.123216068),
                 (45.854778906, 115.102717083)],
         point: (45.581991808, 115.149674601), distance: 18.3605, progress: 28109.3186, segment: 1),
    ]

    @Test(arguments: geographicLibCases.indices)
    func agreesWithGeographicLibWithinTheStatedBound(_ i: Int) throws {
        let c = Self.geographicLibCases[i]
        let route = GeoPolyline(c.route.map { GeoPoint(latitude: $0.0, longitude: $0.1) })
        let r = try #require(route.nearestPoint(to: GeoPoint(latitude: c.point.0, longitude: c.point.1)))
        #expect(r.segmentIndex == c.segment)
        // The bounds GeoPolyline documents: 0.02 % + 1 cm in distance, 0.01 % of it + 10 cm in progress.
        #expect(abs(r.distance - c.distance) <= 0.01 + 2e-4 * c.distance, "\(r.distance) vs \(c.distance)")
        #expect(abs(r.progress - c.progress) <= 0.1 + 1e-4 * c.distance, "\(r.progress) vs \(c.progress)")
    }

    /// A wandering route of short steps (30–300 m), as a walk or a ride would record.
    static func randomWalk(points: Int, start: GeoPoint, random: inout SeededRandom) -> [GeoPoint] {
        var route = [start]
        var heading = 0.0
        while route.count < points {
            heading += random.uniform(-0.6, 0.6)
            let step = random.uniform(30, 300) / 111_000
            let last = route[route.count - 1]
            route.append(GeoPoint(latitude: last.latitude + step * cos(heading),
                                  longitude: last.longitude + step * sin(heading) / cos(last.latitude * .pi / 180)))
        }
        return route
    }
}

/// SplitMix64: a small deterministic generator, so the random cases are the same on every run.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }
}
