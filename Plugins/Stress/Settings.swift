import Foundation
import TesseraSDK

/// The participant's own settings: the language of texts (Czech, Slovak or English), the time
/// zone that decides "today" and when reminders ring, and the daily diary reminder's time (off by
/// default).
extension Study {
    struct Settings: Codable, Sendable {
        var language = "cs"
        var timeZone = "Europe/Prague"
        /// `HH:MM` local time, or `nil` when the daily diary reminder is off.
        var diaryReminder: String?
    }

    func settings() async throws -> Settings {
        var settings = Settings()
        for row in try await storage.query("SELECT id, value FROM settings") {
            let value = row["value"].text ?? ""
            switch row["id"].text {
            case "language": settings.language = value
            case "timeZone": settings.timeZone = value
            case "diaryReminder": settings.diaryReminder = value.isEmpty ? nil : value
            default: break
            }
        }
        return settings
    }

    struct SettingsInput: Decodable, Sendable {
        var language: String?
        var timeZone: String?
        /// `HH:MM` turns the reminder on at that time; an empty string turns it off.
        var diaryReminder: String?
    }

    func setSettings(_ input: SettingsInput) async throws -> Settings {
        _ = try await activeSnapshot()
        if let language = input.language, !["cs", "sk", "en"].contains(language) {
            throw PluginError.invalid("the language is cs, sk or en", field: "$.language")
        }
        if let zone = input.timeZone, TimeZone(identifier: zone) == nil {
            throw PluginError.invalid("'\(zone)' is not an IANA time zone such as Europe/Prague", field: "$.timeZone")
        }
        if let time = input.diaryReminder, !time.isEmpty, Self.timeOfDay(time) == nil {
            throw PluginError.invalid("the reminder time is HH:MM, 00:00–23:59", field: "$.diaryReminder")
        }
        try await storage.write { batch in
            if let value = input.language { batch.put("settings", id: "language", ["value": .text(value)]) }
            if let value = input.timeZone { batch.put("settings", id: "timeZone", ["value": .text(value)]) }
            if let value = input.diaryReminder { batch.put("settings", id: "diaryReminder", ["value": .text(value)]) }
        }
        try await reschedule()
        return try await settings()
    }

    /// `(hour, minute)` of `HH:MM`.
    static func timeOfDay(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: ":")
        guard text.count == 5, parts.count == 2, let h = Int(parts[0]), let m = Int(parts[1]), (0...23).contains(h), (0...59).contains(m) else {
            return nil
        }
        return (h, m)
    }
}

/// The study's last day as the research team sets it (the thesis's `HttpDeadline`, A16), over the
/// operator's `config.deadline`. Administrators only.
extension Study {
    func setDeadline(lastDay: String) async throws -> ProgrammeOverview {
        let s = try await activeSnapshot()
        guard calendar(s).isDay(lastDay) else { throw PluginError.invalid("the last day is a date YYYY-MM-DD", field: "$.lastDay") }
        try await storage.write { $0.put("progress", id: "deadline", ["value": .text(lastDay)]) }
        try await reschedule()
        return try await overview()
    }
}
