import Foundation

// Geodesy on the WGS-84 ellipsoid for plugins: distance, bearing, "inside a radius". Distances to a
// route are in GeoPolyline.swift and arrival estimates in TravelTime.swift.
//
// Why Vincenty: it is short, needs no tables, and is accurate to well under a millimetre for every
// pair of points except nearly antipodal ones, where its iteration may not converge. For those this
// file falls back to a great circle on the mean-radius sphere and says so in the result.

/// A position on the Earth: latitude and longitude in degrees on WGS-84.
///
/// Latitude runs −90…90 (north positive), longitude −180…180 (east positive); longitudes outside
/// that range are accepted and wrap. The functions here do not check their input: a non-finite
/// coordinate gives a non-finite result.
public struct GeoPoint: Sendable, Hashable, Codable {
    /// Latitude in degrees, −90…90.
    public var latitude: Double
    /// Longitude in degrees, −180…180.
    public var longitude: Double

    /// Creates a point from degrees.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The position of a fix.
    public init(_ fix: LocationFix) {
        self.init(latitude: fix.latitude, longitude: fix.longitude)
    }

    /// The ellipsoidal distance to `other`, in metres. See ``Geodesy/inverse(from:to:)`` for accuracy.
    public func distance(to other: GeoPoint) -> Double {
        Geodesy.inverse(from: self, to: other).distance
    }

    /// The initial bearing of the shortest path to `other`, in degrees clockwise from true north,
    /// 0 ≤ bearing < 360. Zero when the points coincide.
    public func initialBearing(to other: GeoPoint) -> Double {
        Geodesy.inverse(from: self, to: other).initialBearing
    }

    /// Whether this point lies within `radius` metres of `center` (on the boundary counts as inside).
    public func isWithin(_ radius: Double, of center: GeoPoint) -> Bool {
        distance(to: center) <= radius
    }
}

extension LocationFix {
    /// Where the fix is, without the rest of the report.
    public var coordinate: GeoPoint { GeoPoint(self) }
}

/// The answer to the inverse geodesic problem between two points.
public struct GeodesicSolution: Sendable, Hashable {
    /// How a solution was computed.
    public enum Method: Sendable, Hashable {
        /// Vincenty's inverse formula on the WGS-84 ellipsoid converged: accurate to about 0.5 mm.
        case vincenty
        /// Vincenty did not converge (the points are nearly antipodal), so the answer is a great circle
        /// on the sphere of mean radius ``Geodesy/meanRadius``. Within about 0.2 % of the ellipsoidal
        /// distance for such points.
        case sphericalFallback
    }

    /// The length of the shortest path, in metres.
    public var distance: Double
    /// The bearing at the start of the path, degrees clockwise from north, 0 ≤ b < 360.
    public var initialBearing: Double
    /// The bearing at the end of the path (the direction of travel on arrival), 0 ≤ b < 360.
    public var finalBearing: Double
    /// How it was computed.
    public var method: Method

    /// Creates a solution.
    public init(distance: Double, initialBearing: Double, finalBearing: Double, method: Method) {
        self.distance = distance
        self.initialBearing = initialBearing
        self.finalBearing = finalBearing
        self.method = method
    }
}

/// Geodesic computations on the WGS-84 ellipsoid.
public enum Geodesy {
    /// WGS-84 equatorial radius, metres.
    public static let semiMajorAxis = 6_378_137.0
    /// WGS-84 flattening.
    public static let flattening = 1 / 298.257_223_563
    /// WGS-84 polar radius, metres.
    public static let semiMinorAxis = semiMajorAxis * (1 - flattening)
    /// The mean radius R₁ = (2a + b) / 3 of WGS-84, metres: the sphere used by the fallback.
    public static let meanRadius = (2 * semiMajorAxis + semiMinorAxis) / 3

    /// Distance and bearings between two points on the WGS-84 ellipsoid.
    ///
    /// Uses Vincenty's inverse formula (T. Vincenty, Survey Review XXIII, 1975), iterated until the
    /// longitude on the auxiliary sphere changes by less than 10⁻¹² rad; accurate to about 0.5 mm
    /// in distance and 10⁻⁵″ in azimuth. When it does not converge within 200 iterations, which
    /// happens only for nearly antipodal points, the result is a great circle on the mean-radius
    /// sphere and ``GeodesicSolution/method`` is ``GeodesicSolution/Method/sphericalFallback``:
    /// then the distance is within about 0.2 % of the true geodesic (for points within 1° of
    /// antipodal, about 0.11 % at worst) and the bearings are spherical ones.
    public static func inverse(from p1: GeoPoint, to p2: GeoPoint) -> GeodesicSolution {
        vincentyInverse(p1, p2) ?? sphericalInverse(p1, p2)
    }

    /// The ellipsoidal distance between two points, in metres. See ``inverse(from:to:)``.
    public static func distance(from p1: GeoPoint, to p2: GeoPoint) -> Double {
        inverse(from: p1, to: p2).distance
    }

    // MARK: - Vincenty

    /// Vincenty's inverse, or nil when the iteration does not converge.
    static func vincentyInverse(_ p1: GeoPoint, _ p2: GeoPoint) -> GeodesicSolution? {
        // Non-finite input would only spin the iteration; the fallback turns it into a NaN quickly.
        guard p1.latitude.isFinite, p1.longitude.isFinite, p2.latitude.isFinite, p2.longitude.isFinite else { return nil }
        let a = semiMajorAxis, b = semiMinorAxis, f = flattening
        let bigL = wrappedRadians(p2.longitude - p1.longitude)
        // Reduced latitudes; atan2 keeps the poles finite where tan would not.
        let u1 = atan2((1 - f) * sin(radians(p1.latitude)), cos(radians(p1.latitude)))
        let u2 = atan2((1 - f) * sin(radians(p2.latitude)), cos(radians(p2.latitude)))
        let sinU1 = sin(u1), cosU1 = cos(u1), sinU2 = sin(u2), cosU2 = cos(u2)

        var lambda = bigL
        for _ in 0..<200 {
            let state = VincentyState(lambda: lambda, sinU1: sinU1, cosU1: cosU1, sinU2: sinU2, cosU2: cosU2)
            if state.sinSigma == 0 { return GeodesicSolution(distance: 0, initialBearing: 0, finalBearing: 0, method: .vincenty) }
            let c = f / 16 * state.cosSqAlpha * (4 + f * (4 - 3 * state.cosSqAlpha))
            let next = bigL + (1 - c) * f * state.sinAlpha
                * (state.sigma + c * state.sinSigma
                    * (state.cos2SigmaM + c * state.cosSigma * (-1 + 2 * state.cos2SigmaM * state.cos2SigmaM)))
            // Past ±π the iteration has left the region where it converges (near-antipodal points).
            if abs(next) > .pi { return nil }
            let converged = abs(next - lambda) < 1e-12
            lambda = next
            if converged {
                // `state` is from the previous λ; the difference is below 10⁻¹² rad, far under 0.1 mm.
                let distance = b * vincentyArcFactor(state: state, a: a, b: b)
                let azimuth1 = atan2(cosU2 * sin(lambda), cosU1 * sinU2 - sinU1 * cosU2 * cos(lambda))
                let azimuth2 = atan2(cosU1 * sin(lambda), -sinU1 * cosU2 + cosU1 * sinU2 * cos(lambda))
                return GeodesicSolution(distance: distance, initialBearing: compassDegrees(azimuth1),
                                        finalBearing: compassDegrees(azimuth2), method: .vincenty)
            }
        }
        return nil
    }

    /// A·(σ − Δσ): the distance divided by b, from Vincenty's series in u².
    private static func vincentyArcFactor(state s: VincentyState, a: Double, b: Double) -> Double {
        let uSq = s.cosSqAlpha * (a * a - b * b) / (b * b)
        let bigA = 1 + uSq / 16384 * (4096 + uSq * (-768 + uSq * (320 - 175 * uSq)))
        let bigB = uSq / 1024 * (256 + uSq * (-128 + uSq * (74 - 47 * uSq)))
        let c2 = s.cos2SigmaM
        let deltaSigma = bigB * s.sinSigma * (c2 + bigB / 4 * (s.cosSigma * (-1 + 2 * c2 * c2)
            - bigB / 6 * c2 * (-3 + 4 * s.sinSigma * s.sinSigma) * (-3 + 4 * c2 * c2)))
        return bigA * (s.sigma - deltaSigma)
    }

    // MARK: - Spherical fallback

    /// Great circle on the mean-radius sphere (haversine form, well-conditioned for short and long lines).
    static func sphericalInverse(_ p1: GeoPoint, _ p2: GeoPoint) -> GeodesicSolution {
        guard p1.latitude.isFinite, p1.longitude.isFinite, p2.latitude.isFinite, p2.longitude.isFinite else {
            return GeodesicSolution(distance: .nan, initialBearing: .nan, finalBearing: .nan, method: .sphericalFallback)
        }
        let phi1 = radians(p1.latitude), phi2 = radians(p2.latitude)
        let dLambda = wrappedRadians(p2.longitude - p1.longitude)
        let h = sinSquared((phi2 - phi1) / 2) + cos(phi1) * cos(phi2) * sinSquared(dLambda / 2)
        let angle = 2 * asin(min(1, sqrt(h)))
        let bearing1 = atan2(sin(dLambda) * cos(phi2), cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda))
        let bearing2 = atan2(sin(dLambda) * cos(phi1), -cos(phi2) * sin(phi1) + sin(phi2) * cos(phi1) * cos(dLambda))
        return GeodesicSolution(distance: meanRadius * angle, initialBearing: compassDegrees(bearing1),
                                finalBearing: compassDegrees(bearing2), method: .sphericalFallback)
    }
}

/// The quantities of one Vincenty iteration on the auxiliary sphere, for a trial longitude λ.
private struct VincentyState {
    var sinSigma = 0.0, cosSigma = 0.0, sigma = 0.0
    var sinAlpha = 0.0, cosSqAlpha = 0.0, cos2SigmaM = 0.0

    init(lambda: Double, sinU1: Double, cosU1: Double, sinU2: Double, cosU2: Double) {
        let sinLambda = sin(lambda), cosLambda = cos(lambda)
        let t = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
        sinSigma = sqrt((cosU2 * sinLambda) * (cosU2 * sinLambda) + t * t)
        cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
        sigma = atan2(sinSigma, cosSigma)
        sinAlpha = sinSigma == 0 ? 0 : cosU1 * cosU2 * sinLambda / sinSigma
        cosSqAlpha = 1 - sinAlpha * sinAlpha
        // On the equator cos²α = 0 and the term is defined as 0 (Vincenty's note).
        cos2SigmaM = cosSqAlpha == 0 ? 0 : cosSigma - 2 * sinU1 * sinU2 / cosSqAlpha
    }
}

@inline(__always) func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
@inline(__always) func degrees(_ radians: Double) -> Double { radians * 180 / .pi }
@inline(__always) private func sinSquared(_ x: Double) -> Double { let s = sin(x); return s * s }

/// A longitude difference in degrees as radians in −π…π, so the short way round is taken.
func wrappedRadians(_ degreesDifference: Double) -> Double {
    var d = degreesDifference.truncatingRemainder(dividingBy: 360)
    if d > 180 { d -= 360 } else if d < -180 { d += 360 }
    return radians(d)
}

/// An angle in radians from atan2 (−π…π) as a compass bearing in degrees, 0 ≤ b < 360.
func compassDegrees(_ angle: Double) -> Double {
    let d = degrees(angle)
    let wrapped = d < 0 ? d + 360 : d
    return wrapped >= 360 ? wrapped - 360 : wrapped
}
