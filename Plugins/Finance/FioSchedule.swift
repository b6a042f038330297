import Foundation
import TesseraSDK

/// The spec's two optional bank jobs (§7.6), both per device, since the token is:
///
/// - the **daily import** (`fio-auto-import {"enabled": true}`, off by default): a timer the host
///   keeps falls due every day at 07:00 local time and runs `fio-import` under the same 30-second
///   rule; a failure (a refused token, a currency mismatch waiting for the person's choice…) is
///   told as a notification with the error's text, and the next day's timer is set either way;
/// - the **token-expiry reminder**: Fio tokens last at most 180 days (thesis L554), so setting a
///   token schedules a notification 170 days later; clearing or replacing the token replaces it.
extension Ledger {
    struct AutoImportInput: Decodable, Sendable { var enabled: Bool }

    static let autoImportKey = "fioAutoImport", tokenSetKey = "fioTokenSetAt"
    static let dailyImportTimer = "fio-daily-import", tokenReminderKey = "fio-token-expiry"
    /// 170 days: ten days before a 180-day token runs out.
    static let tokenReminderAfter: TimeInterval = 170 * 86_400

    func setAutoImport(_ input: AutoImportInput, secrets: (any PluginSecrets)?) async throws -> FioStatus {
        if input.enabled {
            guard try await secrets?.secret(named: Self.fioTokenSecret) != nil else {
                throw PluginError(.conflict, "no Fio token: set one with fio-token-set before turning on the daily import", reason: "no_token")
            }
        }
        try await setLocal([Self.autoImportKey: input.enabled ? "1" : "0"])
        try await scheduleDailyImport()
        return try await fioStatus(secrets: secrets)
    }

    /// Sets (or cancels) the timer for the next 07:00 local time.
    func scheduleDailyImport() async throws {
        guard try await local(Self.autoImportKey) == "1", let next = try await dates().nextHour(7, after: clock.now()) else {
            try await cancelTimers(Self.dailyImportTimer)
            return
        }
        try await scheduleOnly(Self.dailyImportTimer, at: next)
    }

    /// The daily timer fell due: import, tell the person if it failed, and set tomorrow's timer.
    func dailyImportDue(http: (any PluginHTTPClient)?, secrets: (any PluginSecrets)?) async throws {
        guard try await local(Self.autoImportKey) == "1" else { return }
        do {
            _ = try await importFromFio(http: http, secrets: secrets, resolveMismatch: nil)
        } catch let error as PluginError {
            let settings = try await settings()
            try await notifications?.schedule(NotificationRequest(
                key: "fio-import-failed-\(try await today().day)", title: Strings.text("import.failed.title", settings.language),
                body: error.message, message: NotificationMessage("notify.importFailed", ["error": .text(error.message)]),
                // The import stays undone until the person acts (a new token, a currency choice).
                priority: .timeSensitive, schedule: .at(clock.now())))
        }
        try await scheduleDailyImport()
    }

    func scheduleTokenReminder() async throws {
        let now = clock.now()
        try await setLocal([Self.tokenSetKey: iso(now)])
        guard let notifications else { return }
        let language = try await settings().language
        try await notifications.schedule(NotificationRequest(
            key: Self.tokenReminderKey, title: Strings.text("token.title", language), body: Strings.text("token.body", language),
            message: NotificationMessage("notify.tokenExpiry"), priority: .normal,
            schedule: .at(now.addingTimeInterval(Self.tokenReminderAfter))))
    }

    func cancelTokenReminder() async throws {
        try await setLocal([Self.tokenSetKey: nil, Self.autoImportKey: "0"])
        try await notifications?.cancel(key: Self.tokenReminderKey)
        try await scheduleDailyImport()
    }
}
