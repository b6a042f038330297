import Foundation

/// A point of the ellipsoid mapped to the unit sphere, as an Earth-centred vector, for the route search.
///
/// Why vectors: the distance to a great-circle arc becomes three dot products, with no
/// trigonometry per segment, and nothing special happens at the poles or the antimeridian.
///
/// Why the *conformal* sphere (latitude φ replaced by the conformal latitude χ): the map from
/// the ellipsoid to it keeps angles, so "the foot of the perpendicular" found on the sphere is the
/// foot on the ellipsoid too. With geodetic latitude on the sphere, north–south distances are
/// squeezed by up to 0.67 % against east–west ones, which moved the foot along the route by up to
/// 0.5 % of the distance from it.
struct UnitVector: Sendable, Hashable {
    var x: Double
    var y: Double
    var z: Double

    init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The point on the conformal sphere of a geodetic latitude and longitude.
    init(_ point: GeoPoint) {
        let chi = conformalLatitude(radians(point.latitude)), lambda = radians(point.longitude)
        let c = cos(chi)
        self.init(x: c * cos(lambda), y: c * sin(lambda), z: sin(chi))
    }

    /// Back to geodetic latitude and longitude in degrees.
    var geoPoint: GeoPoint {
        let chi = atan2(z, (x * x + y * y).squareRoot())
        return GeoPoint(latitude: degrees(geodeticLatitude(conformal: chi)), longitude: degrees(atan2(y, x)))
    }

    @inline(__always) func dot(_ o: UnitVector) -> Double { x * o.x + y * o.y + z * o.z }

    @inline(__always) func cross(_ o: UnitVector) -> UnitVector {
        UnitVector(x: y * o.z - z * o.y, y: z * o.x - x * o.z, z: x * o.y - y * o.x)
    }

    var length: Double { dot(self).squareRoot() }

    /// This vector scaled to length 1, or nil when it is too short to have a direction.
    var normalized: UnitVector? {
        let l = length
        guard l > 1e-15, l.isFinite else { return nil }
        return UnitVector(x: x / l, y: y / l, z: z / l)
    }

    static func + (a: UnitVector, b: UnitVector) -> UnitVector { UnitVector(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z) }
    static func - (a: UnitVector, b: UnitVector) -> UnitVector { UnitVector(x: a.x - b.x, y: a.y - b.y, z: a.z - b.z) }
    static func * (a: UnitVector, k: Double) -> UnitVector { UnitVector(x: a.x * k, y: a.y * k, z: a.z * k) }

    /// The angle between two unit vectors, radians, well-conditioned for tiny and large angles.
    func angle(to o: UnitVector) -> Double { atan2(cross(o).length, dot(o)) }
}

/// The first eccentricity of WGS-84.
private let eccentricity = (Geodesy.flattening * (2 - Geodesy.flattening)).squareRoot()

/// Conformal latitude χ of geodetic latitude φ (radians): χ = gd(asinh(tan φ) − e·atanh(e·sin φ)).
func conformalLatitude(_ phi: Double) -> Double {
    // Written with sin/cos rather than tan so the poles map to ±π/2 exactly.
    let e = eccentricity
    let psi = asinh(sin(phi) / max(abs(cos(phi)), 1e-300)) - e * atanh(e * sin(phi))
    return atan(sinh(psi))
}

/// Geodetic latitude of conformal latitude χ (radians), by the series in e⁸ (Snyder, *Map
/// Projections — A Working Manual*, eq. 3-5): error below 10⁻¹¹ rad, well under a millimetre.
func geodeticLatitude(conformal chi: Double) -> Double {
    let e2 = eccentricity * eccentricity, e4 = e2 * e2, e6 = e4 * e2, e8 = e6 * e2
    return chi
        + (e2 / 2 + 5 * e4 / 24 + e6 / 12 + 13 * e8 / 360) * sin(2 * chi)
        + (7 * e4 / 48 + 29 * e6 / 240 + 811 * e8 / 11520) * sin(4 * chi)
        + (7 * e6 / 120 + 81 * e8 / 1120) * sin(6 * chi)
        + (4279 * e8 / 161280) * sin(8 * chi)
}
