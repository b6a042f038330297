import Foundation
import TesseraSDK

/// The two notifications of the thesis (F12), each switchable, through the notifications
/// capability: the weekly budget status every Friday at 08:00 local time, and the reminder to
/// record transactions every three days at the time of day it was turned on (first one three days
/// later). Plus the over-budget alert (Budget.swift). Texts follow the language setting.
///
/// The host delivers notifications without the plugin, so the weekly text is the status as of the
/// last change to this month's transactions or budget — rescheduling under the same key after every
/// change keeps it current — and "this month" is the month of that change: after a quiet month
/// boundary the first Friday's text still speaks of the old month until something changes.
extension Ledger {
    struct NotificationSettings: Decodable, Sendable { var weeklyBudget: Bool?; var logReminder: Bool? }

    struct NotificationStatus: Codable, Sendable, Equatable {
        var weeklyBudget: Bool
        var logReminder: Bool
        var next: [String: String]
    }

    static let weeklyKey = "weekly-budget", reminderKey = "log-reminder"

    func configureNotifications(_ input: NotificationSettings) async throws -> NotificationStatus {
        guard notifications != nil else {
            throw PluginError(.notGranted, "the operator has not granted notifications to this module (code notifications_unavailable)")
        }
        let now = clock.now()
        try await storage.write { batch in
            if let on = input.weeklyBudget { batch.put("settings", id: "weeklyBudget", ["value": .text(on ? "1" : "0")]) }
            if let on = input.logReminder {
                batch.put("settings", id: "logReminder", ["value": .text(on ? "1" : "0")])
                if on { batch.put("settings", id: "logReminderAnchor", ["value": .text(iso(now))]) }
            }
        }
        try await rescheduleReminders()
        return try await notificationStatus()
    }

    func notificationStatus() async throws -> NotificationStatus {
        let settings = try await settings()
        let pending = try await notifications?.pending() ?? []
        var next: [String: String] = [:]
        for item in pending { next[item.request.key] = iso(item.nextAt) }
        return NotificationStatus(weeklyBudget: settings.weeklyBudget, logReminder: settings.logReminder, next: next)
    }

    /// Brings the schedules in line with the settings and the current budget (idempotent: the same
    /// keys are replaced, never doubled).
    func rescheduleReminders() async throws {
        guard let notifications else { return }
        let settings = try await settings()
        if settings.weeklyBudget {
            let (title, body) = try await weeklyText(settings)
            try await notifications.schedule(NotificationRequest(
                key: Self.weeklyKey, title: title, body: body,
                schedule: .recurring(rule: "FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0", startingAt: clock.now(), timeZone: settings.timeZone)))
        } else {
            try await notifications.cancel(key: Self.weeklyKey)
        }
        if settings.logReminder, let anchor = try await reminderAnchor() {
            try await notifications.schedule(NotificationRequest(
                key: Self.reminderKey, title: Strings.text("reminder.title", settings.language),
                body: Strings.text("reminder.body", settings.language),
                schedule: .recurring(rule: "FREQ=DAILY;INTERVAL=3", startingAt: anchor.addingTimeInterval(3 * 86_400), timeZone: settings.timeZone)))
        } else {
            try await notifications.cancel(key: Self.reminderKey)
        }
    }

    private func reminderAnchor() async throws -> Date? {
        let text = try await storage.query("SELECT value FROM settings WHERE id = 'logReminderAnchor'").first?["value"].text
        return text.flatMap { try? Date($0, strategy: .iso8601) }
    }

    private func weeklyText(_ settings: Settings) async throws -> (String, String) {
        let dates = LocalDates(timeZone: settings.timeZone)
        let month = dates.month(clock.now())
        guard let (first, last) = dates.bounds(ofMonth: month) else { return ("", "") }
        let (budget, spent) = try await figures(first: first, last: last, month: month)
        let title = Strings.text("weekly.title", settings.language)
        guard let budget else { return (title, Strings.text("weekly.noBudget", settings.language, ["month": month])) }
        return (title, Strings.text("weekly.body", settings.language, [
            "remaining": Money.format(budget - spent, currency: settings.currency, language: settings.language),
            "budget": Money.format(budget, currency: settings.currency, language: settings.language), "month": month,
        ]))
    }
}
