/// Call durations in fixed buckets, as a Prometheus histogram counts them.
struct LatencyHistogram: Sendable {
    /// Upper bounds in seconds: from half a millisecond (a call that only touches memory) to ten
    /// seconds (a plugin waiting on something slow).
    static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// Observations per bucket (not cumulative; the writer sums them); the last is above every bound.
    private(set) var counts = [UInt64](repeating: 0, count: bounds.count + 1)
    private(set) var sum: Double = 0
    private(set) var count: UInt64 = 0

    mutating func observe(_ seconds: Double) {
        let index = Self.bounds.firstIndex { seconds <= $0 } ?? Self.bounds.count
        counts[index] += 1
        sum += seconds
        count += 1
    }

    /// `(le, cumulative count)` pairs, ending with `+Inf`.
    var cumulativeBuckets: [(String, UInt64)] {
        var running: UInt64 = 0
        var out: [(String, UInt64)] = []
        for (i, bound) in Self.bounds.enumerated() {
            running += counts[i]
            out.append((PrometheusText.number(bound), running))
        }
        out.append(("+Inf", count))
        return out
    }
}
