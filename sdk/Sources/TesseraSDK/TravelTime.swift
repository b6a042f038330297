import Foundation

/// Estimates of the time still needed to cover a distance, from how fast a device has been moving.
///
/// **How recent speeds are combined:** the median. One fix at a traffic light or one GPS jump moves
/// a median much less than a mean, and a median of the last five fixes follows a real change of pace
/// within three fixes.
///
/// **When the device is not moving** (the median is below ``minimumSpeed``, 0.3 m/s by default,
/// slower than any walk) or no speed is known, the estimate is nil: "unknown", never an
/// enormous number of hours.
public enum TravelTime {
    /// Below this speed (m/s) the device counts as stopped and no estimate is made.
    public static let minimumSpeed = 0.3
    /// How many of the newest fixes the fix-based estimate looks at.
    public static let defaultWindow = 5

    /// Seconds to cover `remainingDistance` metres at the median of `recentSpeeds` (m/s).
    ///
    /// Non-finite and negative speeds are ignored. Returns 0 when nothing remains, and nil when no
    /// speed is usable or the median is below `minimumSpeed`.
    public static func estimate(remainingDistance: Double, recentSpeeds: [Double],
                                minimumSpeed: Double = TravelTime.minimumSpeed) -> TimeInterval? {
        guard remainingDistance.isFinite else { return nil }
        if remainingDistance <= 0 { return 0 }
        let usable = recentSpeeds.filter { $0.isFinite && $0 >= 0 }
        guard let speed = median(usable), speed >= minimumSpeed else { return nil }
        return remainingDistance / speed
    }

    /// Seconds to cover `remainingDistance` metres, from the newest `window` of `recentFixes`.
    ///
    /// The fixes are taken in timestamp order (they need not come sorted). Each contributes the
    /// speed it reports; a fix without one contributes the distance from the fix before it divided
    /// by the time between them (when that time is positive). Then as
    /// ``estimate(remainingDistance:recentSpeeds:minimumSpeed:)``.
    public static func estimate(remainingDistance: Double, recentFixes: [LocationFix],
                                window: Int = TravelTime.defaultWindow,
                                minimumSpeed: Double = TravelTime.minimumSpeed) -> TimeInterval? {
        let sorted = recentFixes.sorted { $0.timestamp < $1.timestamp }
        let newest = sorted.indices.suffix(max(1, window))
        let speeds = newest.compactMap { speed(at: $0, in: sorted) }
        return estimate(remainingDistance: remainingDistance, recentSpeeds: speeds, minimumSpeed: minimumSpeed)
    }

    /// The reported speed of fix `i`, or the speed implied by the step from the fix before it.
    private static func speed(at i: Int, in fixes: [LocationFix]) -> Double? {
        if let reported = fixes[i].speed { return reported }
        guard i > 0 else { return nil }
        let seconds = fixes[i].timestamp.timeIntervalSince(fixes[i - 1].timestamp)
        guard seconds > 0 else { return nil }
        return fixes[i - 1].coordinate.distance(to: fixes[i].coordinate) / seconds
    }

    /// The median; the mean of the middle two for an even count; nil when empty.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        let mid = s.count / 2
        return s.count % 2 == 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2
    }
}
