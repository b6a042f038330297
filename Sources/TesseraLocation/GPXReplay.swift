import Foundation
import TesseraClock
import TesseraSDK

/// Why a set of points cannot be replayed.
public struct GPXReplayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// Plays GPX points back as location fixes on a clock, faster or slower than they were recorded.
///
/// **Timing.** With speed factor `s` (60 = one hour of track in one minute), point `i` is due at
/// `start + (tᵢ − t₀) / s`; the replay sleeps on the clock until then and emits it. On a
/// ``VirtualClockSource`` nothing happens until the clock is moved, and moving it replays exactly
/// the points that fell due, in order, the same way every time.
///
/// **Timestamps.** An emitted fix carries the *replay* instant (its due time), not the time
/// recorded in the file: the track appears to be happening now, as a plugin subscribed to the
/// live feed expects, and the feed's checks (too far in the future, out of order) treat it like
/// any other fix. Its `speed` is likewise the apparent one (metres moved since the previous point
/// divided by replay seconds) so it agrees with positions and timestamps; `course` is the bearing
/// from the previous point (for the first point, toward the next). `altitude` is `<ele>`.
///
/// **Points without times.** If no point has a `<time>`, they are spread along the track at
/// ``walkingSpeed`` (1.4 m/s, 5 km/h) before the speed factor applies. If only some have times,
/// or times go backwards, the replay is refused: guessing would put fixes at invented moments.
public struct GPXReplay: Sendable {
    /// The pace given to a track that has no times, m/s.
    public static let walkingSpeed = 1.4

    /// The points, in order.
    public let points: [GPXPoint]
    /// Seconds of track from the first point to each point (recorded, before the speed factor).
    private let offsets: [TimeInterval]
    /// The speed factor.
    public let speed: Double
    /// The device id the fixes carry.
    public let deviceID: String

    /// Prepares a replay of `points` at `speed` × real time for `deviceID`.
    public init(points: [GPXPoint], speed: Double = 1, deviceID: String) throws(GPXReplayError) {
        guard speed.isFinite, speed > 0 else { throw GPXReplayError("the speed factor must be a positive number, got \(speed)") }
        self.points = points
        self.speed = speed
        self.deviceID = deviceID
        self.offsets = try Self.offsets(of: points)
    }

    /// Seconds from the first point to each point, from the times or, lacking all times, from
    /// the distance at walking speed.
    private static func offsets(of points: [GPXPoint]) throws(GPXReplayError) -> [TimeInterval] {
        let timed = points.compactMap(\.time)
        if timed.isEmpty {
            var travelled = 0.0
            return points.indices.map { i in
                if i > 0 { travelled += coordinate(points[i - 1]).distance(to: coordinate(points[i])) }
                return travelled / walkingSpeed
            }
        }
        guard timed.count == points.count else {
            throw GPXReplayError("\(timed.count) of \(points.count) points have a <time>; a replay needs all or none")
        }
        for i in timed.indices.dropFirst() where timed[i] < timed[i - 1] {
            throw GPXReplayError("time goes backwards at point \(i + 1): \(timed[i]) is before \(timed[i - 1])")
        }
        return timed.map { $0.timeIntervalSince(timed[0]) }
    }

    /// Every fix with the instant it is due, for a replay starting at `start`.
    public func schedule(startingAt start: Date) -> [LocationFix] {
        points.indices.map { fix(at: $0, start: start) }
    }

    /// Replays on `clock`, starting now on it: sleeps until each fix is due and hands it to `emit`.
    /// Throws `CancellationError` when the task is cancelled while waiting.
    public func run(on clock: any ClockSource, emit: (LocationFix) async -> Void) async throws {
        let start = clock.now()
        for i in points.indices {
            let fix = fix(at: i, start: start)
            try await clock.sleep(until: fix.timestamp)
            try Task.checkCancellation()
            await emit(fix)
        }
    }

    /// The fix for point `i` of a replay starting at `start`.
    private func fix(at i: Int, start: Date) -> LocationFix {
        let p = points[i]
        let due = start.addingTimeInterval(offsets[i] / speed)
        var apparentSpeed: Double?
        var course: Double?
        if i > 0 {
            let step = Self.coordinate(points[i - 1]).distance(to: Self.coordinate(p))
            let seconds = (offsets[i] - offsets[i - 1]) / speed
            apparentSpeed = seconds > 0 ? step / seconds : nil
            course = step > 0 ? Self.coordinate(points[i - 1]).initialBearing(to: Self.coordinate(p)) : nil
        } else if points.count > 1, Self.coordinate(p) != Self.coordinate(points[1]) {
            course = Self.coordinate(p).initialBearing(to: Self.coordinate(points[1]))
        }
        return LocationFix(latitude: p.latitude, longitude: p.longitude, altitude: p.elevation,
                           speed: apparentSpeed, course: course, timestamp: due, deviceID: deviceID)
    }

    private static func coordinate(_ p: GPXPoint) -> GeoPoint { GeoPoint(latitude: p.latitude, longitude: p.longitude) }
}
