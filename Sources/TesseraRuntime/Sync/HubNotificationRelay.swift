import Foundation
import TesseraClock
import TesseraNotifications
import TesseraSDK
import TesseraSyncClient

/// Sends the notifications this host's plugins addressed to a space's members to the hub, which
/// files a copy for every member (docs/notifications.md, "To a space's members"). Due work on the
/// host's clock: each relay row is sent by its idempotency key until the hub answers; an
/// unreachable hub, a refused token or a 5xx is retried (2 s, 4 s, … up to 5 min) for up to
/// ``horizon``; a refusal (not a member, another plugin's space, a deleted space) drops it, counted
/// as `relayRefused` with the reason kept.
final class HubNotificationRelay: DueWork {
    let name = "notification-relay"
    /// How long an undeliverable relay is retried before it is dropped (`relayDropped`).
    static let horizon: TimeInterval = 7 * 86_400
    static let maxBackoff: TimeInterval = 300
    /// How long one send waits for the hub: sends run on the timer loop, which they hold meanwhile.
    static let requestTimeout: TimeInterval = 10
    let store: NotificationStore
    let clock: any ClockSource
    let access: @Sendable () throws -> HubAccess
    let log: @Sendable (String) -> Void

    init(store: NotificationStore, clock: any ClockSource, access: @escaping @Sendable () throws -> HubAccess,
         log: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.clock = clock
        self.access = access
        self.log = log
    }

    func nextDue() throws -> Date? { try store.earliestRelay() }

    /// Sends every relay due, one after another, each awaited: on the virtual clock a test sees
    /// the hub hold it once the clock has moved.
    func runDue(now: Date) async throws {
        while true {
            let due = try store.relaysDue(by: now, limit: 64)
            if due.isEmpty { return }
            for relay in due { try await send(relay) }
        }
    }

    private func send(_ relay: NotificationStore.Relay) async throws {
        let attempts = relay.attempts + 1
        let failure: (reason: String, retry: Bool)
        do {
            let hub = try access()
            _ = try await hub.connection.relayNotification(
                key: relay.idempotencyKey, notificationKey: relay.key, plugin: relay.plugin, space: relay.space,
                excludingSender: relay.excludingSender, title: relay.title, body: relay.body, payload: relay.payload,
                dueAt: relay.dueAt, late: relay.late, priority: relay.priority, message: relay.message)
            try store.settleRelay(relay.id, state: "sent", attempts: attempts, retryAt: nil, error: nil)
            try store.count("relaySent")
            return
        } catch let error as SyncClientError {
            failure = ("\(error)", error.status == 0 || error.status == 401 || error.status >= 500)
        } catch {
            failure = ("\(error)", true)  // not logged in (yet): the token may come
        }
        let now = clock.now()
        if failure.retry && now.timeIntervalSince(relay.createdAt) < Self.horizon {
            let retryAt = now.addingTimeInterval(min(pow(2, Double(attempts)), Self.maxBackoff))
            try store.settleRelay(relay.id, state: "pending", attempts: attempts, retryAt: retryAt, error: failure.reason)
        } else {
            try store.settleRelay(relay.id, state: "dropped", attempts: attempts, retryAt: nil, error: failure.reason)
            try store.count(failure.retry ? "relayDropped" : "relayRefused")
            log("notification \(relay.plugin)/\(relay.key) to the members of \(relay.space) dropped: \(failure.reason)")
        }
    }
}
