import Foundation
import TesseraSDK

/// What follows when IS/STAG answers 401 to the logged-in person's call: the ticket is dead. The
/// person is told once ("login expired", unless switched off), the pending "ticket expires soon"
/// reminder is cancelled, and the refresh job stops calling IS/STAG until the next login
/// (`ticketExpiredAt` in the settings, cleared by a login and a logout).
struct LoginExpiry: Sendable {
    let store: Store
    let notifications: (any PluginNotifications)?
    let log: PluginLog

    func noticed() async {
        // The call that met the 401 reports ticket_expired whatever happens here; a failure to
        // record it only means the refresh job asks IS/STAG once more, and is logged.
        do { try await record() } catch {
            log.warning("the expired IS/STAG login could not be recorded (the next refresh meets it again): \(error)")
        }
    }

    private func record() async throws {
        guard try await store.setting("ticketExpiredAt") == nil, try await store.setting("userName") != nil else { return }
        let now = store.clock.now()
        try await store.storage.write { $0.put("settings", id: "ticketExpiredAt", ["value": .text(ISO.utc(now))]) }
        guard let notifications else { return }
        try await notifications.cancel(key: Reminders.Kind.ticketExpiring.key + "ticket")
        let switches = try await Reminders.settings(in: store)
        guard switches[.loginExpired]?.enabled != false else { return }
        // One key per login (its counted expiry), so two 401s racing each other still make one notification.
        let login = try await store.setting("ticketExpires") ?? "ticket"
        try await notifications.schedule(NotificationRequest(
            key: Reminders.Kind.loginExpired.key + login, title: "IS/STAG login expired",
            body: "IS/STAG no longer accepts this login. Log in again to see new exam terms and grades; until then you see what was last read.",
            message: NotificationMessage("notify.loginExpired"), priority: Reminders.Kind.loginExpired.priority, schedule: .at(now)))
    }
}
