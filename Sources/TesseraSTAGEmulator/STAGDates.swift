import Foundation

/// STAG's date formats (spec §2.1): `d.M.yyyy` and `d.M.yyyy H:mm`, Europe/Prague wall time, no zone.
enum STAGDates {
    static let zone = TimeZone(identifier: "Europe/Prague")!

    static func formatter(_ format: String) -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        f.dateFormat = format
        return f
    }

    static func parse(_ text: String) -> Date? {
        for format in ["d.M.yyyy H:mm", "d.M.yyyy", "dd.MM.yyyy"] {
            if let date = formatter(format).date(from: text) { return date }
        }
        return nil
    }

    static func day(_ date: Date) -> String { formatter("d.M.yyyy").string(from: date) }
    static func dayTime(_ date: Date) -> String { formatter("d.M.yyyy H:mm").string(from: date) }
}
