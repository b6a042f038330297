import Foundation
import TesseraSDK

/// The two notifications of the thesis (F12), each switchable, through the notifications
/// capability: the weekly budget status every Friday at 08:00 local time, and the reminder to
/// record transactions every three days at the time of day it was turned on (first one three days
/// later). Plus the over-budget alert (Budget.swift). Texts follow the language setting.
///
/// The weekly status must speak of the month it is delivered in, with that moment's figures (spec
/// §7.6: "computed at delivery time"), but the host delivers notifications without the plugin.
/// So it is not one recurring notification with a text fixed when it was scheduled: a timer the
/// host keeps (`weekly-budget`) falls due every Friday at 08:00 local time, and its handler reads
/// the current month's status and hands the host a notification due that same instant, then sets
/// the timer for the next Friday. If the module is not active at 08:00, the host fires the timer
/// when it next is, and the text is that moment's. The record reminder's text never changes, so
/// it stays one recurring notification the host delivers alone.
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
            throw PluginError(.notGranted, "the operator has not granted notifications to this module", reason: "notifications_unavailable")
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
        for timer in try await clock.pendingTimers() where timer.name == Self.weeklyKey { next[Self.weeklyKey] = iso(timer.fireAt) }
        return NotificationStatus(weeklyBudget: settings.weeklyBudget, logReminder: settings.logReminder, next: next)
    }

    /// Brings the schedules in line with the settings (idempotent: the same keys are replaced,
    /// never doubled). Called after every change, local or synced from another device.
    func rescheduleReminders() async throws {
        guard let notifications else { return }
        let settings = try await settings()
        // A schedule made by an earlier version: one recurring notification with a fixed text.
        try await notifications.cancel(key: Self.weeklyKey)
        if settings.weeklyBudget, let friday = LocalDates(timeZone: settings.timeZone).nextFridayEight(after: clock.now()) {
            try await scheduleOnly(Self.weeklyKey, at: friday)
        } else {
            try await cancelTimers(Self.weeklyKey)
        }
        if settings.logReminder, let anchor = try await reminderAnchor() {
            try await notifications.schedule(NotificationRequest(
                key: Self.reminderKey, title: Strings.text("reminder.title", settings.language),
                body: Strings.text("reminder.body", settings.language),
                message: NotificationMessage("notify.logReminder"), priority: .normal,
                schedule: .recurring(rule: "FREQ=DAILY;INTERVAL=3", startingAt: anchor.addingTimeInterval(3 * 86_400), timeZone: settings.timeZone)))
        } else {
            try await notifications.cancel(key: Self.reminderKey)
        }
    }

    /// The `weekly-budget` timer fell due: the status of the month it is now, delivered at the
    /// Friday it was due (keyed by that day, so a handler run twice delivers once), and the timer
    /// set for the next Friday.
    func weeklyBudgetDue(_ firing: TimerFiring) async throws {
        guard let notifications else { return }
        let settings = try await settings()
        guard settings.weeklyBudget else { return }
        let dates = LocalDates(timeZone: settings.timeZone)
        let (title, body, message) = try await weeklyText(settings)
        try await notifications.schedule(NotificationRequest(
            key: "\(Self.weeklyKey):\(dates.day(firing.dueAt))", title: title, body: body, message: message, priority: .normal,
            payload: ["month": .string(dates.month(clock.now()))], schedule: .at(firing.dueAt)))
        try await rescheduleReminders()
    }

    private func reminderAnchor() async throws -> Date? {
        let text = try await storage.query("SELECT value FROM settings WHERE id = 'logReminderAnchor'").first?["value"].text
        return text.flatMap { try? Date($0, strategy: .iso8601) }
    }

    /// The current month's status, read now: the title, the body and the catalogue message.
    private func weeklyText(_ settings: Settings) async throws -> (String, String, NotificationMessage) {
        let status = try await budgetStatus(month: nil)
        let title = Strings.text("weekly.title", settings.language)
        guard status.isSet, let budget = status.amountMinor else {
            return (title, Strings.text("weekly.noBudget", settings.language, ["month": status.month]),
                    NotificationMessage("notify.weeklyNoBudget", ["month": .text(status.month)]))
        }
        return (title, Strings.text("weekly.body", settings.language, [
            "remaining": Money.format(budget - status.spentMinor, currency: settings.currency, language: settings.language),
            "budget": Money.format(budget, currency: settings.currency, language: settings.language), "month": status.month,
        ]), NotificationMessage("notify.weekly", ["month": .text(status.month), "remaining": Money.value(budget - status.spentMinor),
                                                  "budget": Money.value(budget), "currency": .text(settings.currency)]))
    }
}
