/// One WHO LMS table (one indicator, one sex) on a regular axis: age in days (step 1) or
/// length/height in cm (step 0.1). Rows are stored column-wise so the generated sources stay plain
/// number literals, quick to compile.
struct LMSTable: Sendable {
    let axisStart: Double
    let axisStep: Double
    let l: [Double]
    let m: [Double]
    let s: [Double]

    /// The first and last axis values the table covers.
    var axisRange: ClosedRange<Double> {
        axisStart...(axisStart + Double(l.count - 1) * axisStep)
    }

    /// The parameters at `x`: a table row when `x` falls on one, otherwise linear interpolation
    /// between the two rows around it; nil outside the table.
    func parameters(at x: Double) -> LMS? {
        let position = (x - axisStart) / axisStep
        // Tolerate the rounding of x itself (65.3 is not exactly 65.0 + 3 × 0.1).
        let nearest = position.rounded()
        if abs(position - nearest) < 1e-6 {
            guard nearest >= 0, Int(nearest) < l.count else { return nil }
            return row(Int(nearest))
        }
        guard position > 0, position < Double(l.count - 1) else { return nil }
        let lower = Int(position.rounded(.down))
        return LMS.interpolate(row(lower), row(lower + 1), fraction: position - Double(lower))
    }

    /// The parameters at a length `x` exactly as WHO Anthro finds them for weight-for-length/height:
    /// the rows at trunc(10x)/10 and trunc(10x + 1)/10, interpolated by (x − lower) / 0.1 when that is
    /// above zero. In binary arithmetic the upper row is sometimes two rows up (x = 103.1 − 0.7 gives
    /// 10x + 1 = 1025.0, so rows 102.3 and 102.5): Anthro then reads almost the 102.5 row, and so do
    /// we, since the scores must equal Anthro's. Nil outside the table, or where Anthro finds no row.
    func parametersAsWHOAnthro(atLength x: Double) -> LMS? {
        let lower = (x * 10).rounded(.towardZero) / 10
        let upper = (x * 10 + 1).rounded(.towardZero) / 10
        let fraction = (x - lower) / 0.1
        guard let low = exactRow(at: lower) else { return nil }
        guard fraction > 0 else { return low }
        guard let high = exactRow(at: upper) else { return nil }
        return LMS.interpolate(low, high, fraction: fraction)
    }

    private func exactRow(at x: Double) -> LMS? {
        let position = ((x - axisStart) / axisStep).rounded()
        guard position >= 0, Int(position) < l.count else { return nil }
        return row(Int(position))
    }

    private func row(_ index: Int) -> LMS {
        LMS(l: l[index], m: m[index], s: s[index])
    }
}

/// The generated tables (WHOTables*.swift) hang off this namespace.
enum WHOTables {}
