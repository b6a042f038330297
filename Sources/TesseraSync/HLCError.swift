import Foundation
import TesseraSystem

/// Why the hybrid logical clock refused a reading or a remote timestamp.
public enum HLCError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A clock ran too far ahead of this host's physical clock: the remote timestamp (when
    /// receiving), or this clock's own last reading (when the host's clock went backwards after a
    /// remote one was taken in). Actual Budget's `ClockDriftError`; its usual cause is a device
    /// whose clock is wrong.
    case clockDrift(clock: Int64, physical: Int64, maxDrift: Int64, remote: Bool)
    /// More than 65,536 readings in one millisecond (the 16-bit counter would wrap). Actual's
    /// `OverflowError`; with a frozen virtual clock, advance it.
    case counterOverflow(millis: Int64)
    /// A time outside the range a timestamp can carry (1970 to 2215; see ``HLCTimestamp``).
    case outOfRange(millis: Int64)
    /// Text that is not a timestamp in the 46-character format.
    case malformed(String)

    public var description: String {
        switch self {
        case .clockDrift(let clock, let physical, let maxDrift, let remote):
            let whose = remote ? "a remote clock reads" : "this host's hybrid clock reads"
            return "\(whose) \(Self.iso(clock)), \(Self.duration(clock - physical)) ahead of this host's clock (\(Self.iso(physical))); at most \(Self.duration(maxDrift)) is accepted: check the clock of the device that is ahead"
        case .counterOverflow(let millis):
            return "more than 65536 clock readings in the millisecond \(Self.iso(millis)): the hybrid clock's counter would overflow"
        case .outOfRange(let millis):
            return "the time \(millis) ms since 1970 is outside what a sync timestamp can carry (1970-01-01 to \(Self.iso(HLCTimestamp.maximumMillis)))"
        case .malformed(let text):
            return "\"\(text)\" is not a sync timestamp (expected 46 characters like 2026-03-02T08:00:00.000Z-0000-00000000000000A1)"
        }
    }

    /// ISO-8601 of a millisecond count, or the count itself where the text has no year for it.
    static func iso(_ millis: Int64) -> String {
        guard (0...253_402_300_799_999).contains(millis) else { return "\(millis) ms since 1970" }
        return TimestampText.iso(millis: millis)
    }

    /// "6 min 3.250 s", "300 ms".
    static func duration(_ millis: Int64) -> String {
        if millis < 1000 { return "\(millis) ms" }
        let minutes = millis / 60_000
        let seconds = Double(millis % 60_000) / 1000
        let secondsText = seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.3f", seconds)
        if minutes == 0 { return "\(secondsText) s" }
        return seconds == 0 ? "\(minutes) min" : "\(minutes) min \(secondsText) s"
    }
}
