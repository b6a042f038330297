import Foundation
import Synchronization
import TesseraSDK

/// The `notifications` capability as one plugin sees it.
///
/// Permissions (from the grant): `maxPending` (default 10 000) bounds how many notifications the
/// plugin may have pending; `spaces` (default false) lets it address members of a space. Both
/// are checked on every call.
public final class PluginNotificationChannel: PluginNotifications {
    let plugin: String
    let center: NotificationScheduler
    let maxPending: Int
    let spaces: Bool
    /// Whether the plugin syncs now: a space's members are those of a synced space.
    let syncs: @Sendable () -> Bool
    let knownCount = Mutex<Int?>(nil)

    init(plugin: String, center: NotificationScheduler, maxPending: Int, spaces: Bool, syncs: @escaping @Sendable () -> Bool) {
        self.plugin = plugin
        self.center = center
        self.maxPending = maxPending
        self.spaces = spaces
        self.syncs = syncs
    }

    public func schedule(_ notification: NotificationRequest) async throws {
        try check(notification)
        let now = center.clock.now()
        let first = try ScheduledNotification.firstDue(of: notification.schedule, now: now)
        try checkRoom(for: notification.key)
        try center.store.put([ScheduledNotification(plugin: plugin, request: notification, nextDue: first)])
        center.scheduled()
    }

    public func cancel(key: String) async throws {
        try center.store.remove(plugin: plugin, key: key)
    }

    public func pending() async throws -> [PendingNotification] {
        try center.store.pending(plugin: plugin).compactMap { n in
            n.nextDue.map { PendingNotification(request: n.request, nextAt: $0) }
        }
    }

    /// Refuses a new key past `maxPending`. The count is kept here and only ever over-estimates
    /// (deliveries and cancels lower the true count); it is recounted when it reaches the limit,
    /// so the common case costs one key lookup rather than a count of every pending row.
    private func checkRoom(for key: String) throws {
        if try center.store.exists(plugin: plugin, key: key) { return }
        let count = try knownCount.withLock { count -> Int in
            if count == nil || count! >= maxPending { count = try center.store.pendingCount(plugin: plugin) }
            return count!
        }
        guard count < maxPending else {
            throw PluginError(.forbidden, "plugin '\(plugin)' already has \(maxPending) notifications pending, its granted maximum")
        }
        knownCount.withLock { $0 = ($0 ?? 0) + 1 }
    }

    private func check(_ n: NotificationRequest) throws {
        guard !n.key.isEmpty else { throw PluginError(.invalidInput, "a notification needs a non-empty key", field: "key") }
        guard !n.title.isEmpty else { throw PluginError(.invalidInput, "a notification needs a title", field: "title") }
        if let space = n.recipient.spaceID {
            guard spaces else {
                throw PluginError(.notGranted, "plugin '\(plugin)' may not notify members of a space (notifications permission 'spaces' is false)",
                                  field: "recipient")
            }
            guard syncs() else {
                throw PluginError(.notGranted, "plugin '\(plugin)' does not sync, so it has no space whose members it could notify (it needs the sync grant and sync.tables)",
                                  field: "recipient")
            }
            guard space.utf8.count == 36, space == space.lowercased(), UUID(uuidString: space) != nil else {
                throw PluginError(.invalidInput, "a space to notify is a shared space's id, a lowercase UUID; found '\(space.prefix(60))'",
                                  field: "recipient")
            }
        }
    }
}
