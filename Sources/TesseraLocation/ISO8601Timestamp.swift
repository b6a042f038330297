import Foundation
import TesseraSystem

/// Parses the RFC 3339 timestamps that GPX files and gpsd write, such as `2024-05-01T08:30:00Z`,
/// `2024-05-01T08:30:00.250Z` or `2024-05-01T10:30:00+02:00`.
///
/// Why not `ISO8601DateFormatter`: a formatter is a shared mutable object, and GPX and gpsd use
/// only this one shape; a small parser is exact about what it accepts and cheap per timestamp.
enum ISO8601Timestamp {
    /// The instant, or nil when `text` is not `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
    /// A timestamp without a zone is read as UTC (some GPX writers omit the `Z`).
    static func parse(_ text: String) -> Date? {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
              let month = scanner.number(digits: 2), scanner.skip("-"),
              let day = scanner.number(digits: 2), scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
              let hour = scanner.number(digits: 2), scanner.skip(":"),
              let minute = scanner.number(digits: 2), scanner.skip(":"),
              let second = scanner.number(digits: 2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let fraction = scanner.skip(".") ? scanner.fraction() : 0
        guard let fraction, let offset = scanner.zoneOffset(), scanner.atEnd else { return nil }
        let days = Int(GregorianDays.days(year: Int64(year), month: Int64(month), day: Int64(day)))
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return Date(timeIntervalSince1970: seconds)
    }
}

/// A cursor over ASCII bytes for the timestamp parser.
private struct DigitScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    mutating func skip(_ character: Character) -> Bool {
        guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
        index += 1
        return true
    }

    /// Exactly `digits` decimal digits as a number.
    mutating func number(digits: Int) -> Int? {
        guard index + digits <= bytes.count else { return nil }
        var value = 0
        for b in bytes[index..<index + digits] {
            guard (48...57).contains(b) else { return nil }
            value = value * 10 + Int(b - 48)
        }
        index += digits
        return value
    }

    /// One or more digits after a decimal point, as a fraction of a second.
    mutating func fraction() -> Double? {
        var value = 0.0, scale = 1.0
        let start = index
        while index < bytes.count, (48...57).contains(bytes[index]) {
            scale /= 10
            value += Double(bytes[index] - 48) * scale
            index += 1
        }
        return index > start ? value : nil
    }

    /// `Z`, `±HH:MM`, `±HHMM`, or nothing (UTC), in seconds east of UTC; nil when malformed.
    mutating func zoneOffset() -> Int? {
        if atEnd || skip("Z") || skip("z") { return 0 }
        let sign: Int
        if skip("+") { sign = 1 } else if skip("-") { sign = -1 } else { return nil }
        guard let hours = number(digits: 2) else { return nil }
        _ = skip(":")
        guard let minutes = number(digits: 2), hours < 24, minutes < 60 else { return nil }
        return sign * (hours * 3600 + minutes * 60)
    }
}
