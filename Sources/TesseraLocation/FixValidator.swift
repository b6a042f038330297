import Foundation
import TesseraSDK

/// Why a fix was dropped. The raw values are the keys of the feed's counters.
public enum FixRejection: String, Sendable, Hashable, CaseIterable {
    /// The input could not be turned into a fix at all (bad JSON, a missing `lat`, …).
    case malformed
    /// A coordinate, the timestamp, or an optional number (accuracy, altitude, speed, course) is NaN or infinite.
    case nonFinite
    /// Latitude outside −90…90 or longitude outside −180…180.
    case outOfRange
    /// A negative accuracy radius.
    case negativeAccuracy
    /// The timestamp is further ahead of the host's clock than the allowed margin.
    case inTheFuture
    /// The device already has an accepted fix with this exact timestamp.
    case duplicate
    /// Older than the newest accepted fix of its device; accepting it would break timestamp order.
    case outOfOrder
}

/// Decides which fixes the feed accepts, and remembers enough to keep each device's fixes in
/// timestamp order: the newest accepted fix per device.
///
/// Checks that need no history (``check(_:)``) are separate from those that do
/// (``admit(_:now:)``), so a batch can be checked, then sorted, then admitted in order.
public struct FixValidator: Sendable {
    /// How far ahead of the host's clock a timestamp may be (device clocks drift; 10 minutes by default).
    public var futureMargin: TimeInterval
    /// The newest accepted fix of each device.
    public private(set) var newest: [String: LocationFix] = [:]

    /// Creates a validator with no history.
    public init(futureMargin: TimeInterval = 600) {
        self.futureMargin = futureMargin
    }

    /// The checks that depend on the fix alone: finiteness, ranges, accuracy. Nil when it passes.
    public func check(_ fix: LocationFix) -> FixRejection? {
        let optionals = [fix.accuracy, fix.altitude, fix.speed, fix.course].compactMap { $0 }
        guard fix.latitude.isFinite, fix.longitude.isFinite, fix.timestamp.timeIntervalSince1970.isFinite,
              optionals.allSatisfy(\.isFinite)
        else { return .nonFinite }
        guard (-90...90).contains(fix.latitude), (-180...180).contains(fix.longitude) else { return .outOfRange }
        if let accuracy = fix.accuracy, accuracy < 0 { return .negativeAccuracy }
        return nil
    }

    /// The checks against the clock and the device's history; on success the fix becomes the
    /// device's newest. Nil when accepted. Call it in timestamp order within a device.
    public mutating func admit(_ fix: LocationFix, now: Date) -> FixRejection? {
        if let rejection = check(fix) { return rejection }
        return admitChecked(fix, now: now)
    }

    /// ``admit(_:now:)`` for a fix that has already passed ``check(_:)``.
    mutating func admitChecked(_ fix: LocationFix, now: Date) -> FixRejection? {
        if fix.timestamp.timeIntervalSince(now) > futureMargin { return .inTheFuture }
        if let previous = newest[fix.deviceID]?.timestamp {
            if fix.timestamp == previous { return .duplicate }
            if fix.timestamp < previous { return .outOfOrder }
        }
        newest[fix.deviceID] = fix
        return nil
    }
}
