import Foundation

/// STAG's value-wrapped date or time (`{"value":"24.2.2022"}`, spec §2.1), read in Europe/Prague wall time.
public struct STAGValue: Decodable, Sendable, Equatable {
    public let value: String

    static let zone = TimeZone(identifier: "Europe/Prague")!

    /// The value as an instant: `d.M.yyyy H:mm` or `d.M.yyyy` (zero-padded too); nil for anything else.
    public var date: Date? { Self.parse(value) }

    static func parse(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        for format in ["d.M.yyyy H:mm", "d.M.yyyy"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}

/// A string STAG may send as JSON null or as the string "null" (`termin.limit`, spec §2.6.2).
func nonNull(_ text: String?) -> String? {
    guard let text, text != "null", !text.isEmpty else { return nil }
    return text
}
