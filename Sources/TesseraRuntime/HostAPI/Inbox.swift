import Foundation
import TesseraNotifications

/// The notifications the host delivered, for the HTTP edge (`/v1/notifications`, the SSE stream),
/// the CLI (`tessera notifications`) and tests: the edges read the inbox through these, never the
/// notification store itself.
extension PluginHost {
    /// Inbox entries, oldest first: after `id` (exclusive) when given, only unread ones if asked.
    public func inbox(unreadOnly: Bool = false, after id: Int64? = nil, limit: Int = 100) throws -> [InboxEntry] {
        try notifications.store.inbox(unreadOnly: unreadOnly, after: id, limit: limit)
    }

    /// Marks the entries `ids` read, or every unread one for `nil`; how many changed (an id
    /// already read, or unknown, changes nothing).
    public func markRead(_ ids: [Int64]?) throws -> Int {
        let targets = try ids ?? notifications.store.inbox(unreadOnly: true, limit: Int.max).map(\.id)
        return try notifications.store.markRead(targets, at: clock.now())
    }

    /// Delivery counters: `delivered`, `late`, `unread`, … (`tessera notifications list`, metrics).
    public func notificationCounters() throws -> [String: Int64] {
        try notifications.store.counters()
    }

    /// Webhook deliveries by state (`sent`, `pending`, `failed`).
    public func outboundNotificationSummary() throws -> [String: Int] {
        try notifications.store.outboundSummary()
    }

    /// The notifications `plugin` has scheduled and not yet delivered.
    public func pendingNotifications(plugin: String) throws -> [ScheduledNotification] {
        try notifications.store.pending(plugin: plugin)
    }

    /// Calls `observer` after each delivery to the inbox (the SSE stream wakes its readers).
    public func onNotificationDelivered(_ observer: @escaping @Sendable (InboxEntry) -> Void) {
        notifications.onDelivered(observer)
    }
}
