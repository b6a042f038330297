import Foundation
import Synchronization

/// The wall-clock time a log line is written at, `2026-11-29T03:35:40.123Z`: UTC, to the
/// millisecond, as `Date.ISO8601FormatStyle(includingFractionalSeconds: true)` writes it.
///
/// The date and time to the second are made once per second and kept; a line adds its
/// milliseconds. Foundation's format style made the whole text for every line, the largest part
/// of an access line's cost (docs/benchmarks.md, "The access line").
enum LogTime {
    /// The last second made, and its text up to and including the `.` before the milliseconds.
    private static let lastSecond = Mutex<(second: Int, text: String)>((Int.min, ""))

    /// Now.
    static func now() -> String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return text(seconds: Int(time.tv_sec), milliseconds: Int(time.tv_nsec) / 1_000_000)
    }

    /// The text of a time `seconds` after 1970 (UTC) and `milliseconds` (0–999).
    static func text(seconds: Int, milliseconds: Int) -> String {
        var text = lastSecond.withLock { last in
            if last.second != seconds { last = (seconds, secondText(seconds)) }
            return last.text
        }
        text.append(digits(milliseconds, count: 3))
        text.append("Z")
        return text
    }

    /// `2026-11-29T03:35:40.`
    private static func secondText(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return digits(Int(parts.tm_year) + 1900, count: 4) + "-" + digits(Int(parts.tm_mon) + 1, count: 2) + "-"
            + digits(Int(parts.tm_mday), count: 2) + "T" + digits(Int(parts.tm_hour), count: 2) + ":"
            + digits(Int(parts.tm_min), count: 2) + ":" + digits(Int(parts.tm_sec), count: 2) + "."
    }

    /// `value` in decimal, with leading zeros to `count` digits.
    private static func digits(_ value: Int, count: Int) -> String {
        let text = String(value)
        return text.count >= count ? text : String(repeating: "0", count: count - text.count) + text
    }
}
