import Foundation

/// The WHO's Box-Cox parameters at one point of a growth standard: power `l`, median `m`,
/// coefficient of variation `s` (WHO Child Growth Standards, 2006, chapter 7).
public struct LMS: Sendable, Equatable {
    /// The Box-Cox power.
    public let l: Double
    /// The median.
    public let m: Double
    /// The coefficient of variation.
    public let s: Double

    /// Parameters as the WHO tables give them.
    public init(l: Double, m: Double, s: Double) {
        self.l = l
        self.m = m
        self.s = s
    }

    /// The plain LMS z-score of `y`: ((y/M)^L − 1) / (L·S), or ln(y/M) / S when L = 0.
    public func plainZScore(_ y: Double) -> Double {
        if l == 0 { return log(y / m) / s }
        return (pow(y / m, l) - 1) / (l * s)
    }

    /// The measurement at z-score `z` on the plain LMS curve: M·(1 + L·S·z)^(1/L), or M·e^(S·z) when L = 0.
    public func plainValue(atZ z: Double) -> Double {
        if l == 0 { return m * exp(s * z) }
        return m * pow(1 + l * s * z, 1 / l)
    }

    /// The z-score of `y` with the WHO's restricted application of the LMS method (used for the
    /// weight-based indicators): beyond ±3 SD the distribution is extended linearly with the
    /// distance between the 2 and 3 SD curves, so that the skewed tail does not compress extreme
    /// values (WHO Child Growth Standards, 2006, section 7.2.1).
    public func restrictedZScore(_ y: Double) -> Double {
        let z = plainZScore(y)
        if z > 3 {
            let sd3 = plainValue(atZ: 3), sd2 = plainValue(atZ: 2)
            return 3 + (y - sd3) / (sd3 - sd2)
        }
        if z < -3 {
            let sd3 = plainValue(atZ: -3), sd2 = plainValue(atZ: -2)
            return -3 + (y - sd3) / (sd2 - sd3)
        }
        return z
    }

    /// The measurement at `z` under the restricted application: the inverse of `restrictedZScore`.
    public func restrictedValue(atZ z: Double) -> Double {
        if z > 3 {
            let sd3 = plainValue(atZ: 3), sd2 = plainValue(atZ: 2)
            return sd3 + (z - 3) * (sd3 - sd2)
        }
        if z < -3 {
            let sd3 = plainValue(atZ: -3), sd2 = plainValue(atZ: -2)
            return sd3 + (z + 3) * (sd2 - sd3)
        }
        return plainValue(atZ: z)
    }

    /// Linear interpolation between two neighbouring rows, as the WHO builds its daily tables.
    static func interpolate(_ a: LMS, _ b: LMS, fraction t: Double) -> LMS {
        LMS(l: a.l + (b.l - a.l) * t, m: a.m + (b.m - a.m) * t, s: a.s + (b.s - a.s) * t)
    }
}
