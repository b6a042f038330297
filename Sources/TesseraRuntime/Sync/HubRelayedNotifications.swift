import Foundation
import TesseraNotifications
import TesseraSDK
import TesseraSyncClient

/// Notifications other members' plugins addressed to a space of this device's person, fetched from
/// the hub into the inbox (docs/notifications.md, "To a space's members"). Sending this host's own
/// to the hub is ``HubNotificationRelay``'s, on the timer loop.
extension HubLink {
    /// Fetches what the hub filed for this device's person (notifications other members' plugins
    /// addressed to a space) into the inbox, after the cursor kept with the inbox; how many were
    /// new. Each is filed at most once, whatever is fetched again (the inbox is unique by plugin,
    /// key, occurrence and recipient). `from` starts from another cursor (0: everything the hub
    /// still holds), as a device that lost its cursor would.
    @discardableResult
    func fetchHubNotifications(from start: Int64? = nil) async throws -> Int {
        let access = try hubAccess()
        var cursor = try start ?? notifications.store.relayCursor(hub: access.hub)
        var added = 0
        while true {
            let page: (notifications: [HubNotification], cursor: Int64, more: Bool)
            do { page = try await access.connection.notifications(after: cursor) } catch let error as SyncClientError {
                throw PluginSpacesChannel.pluginError(error)
            }
            let now = clock.now()
            let entries = page.notifications.map { n in
                InboxEntry.relayed(plugin: n.plugin, key: n.notificationKey, space: n.space, title: n.title, body: n.body,
                                   payload: n.payload, dueAt: n.dueAt, deliveredAt: now, late: n.late,
                                   priority: n.priority, message: n.message)
            }
            added += try notifications.receiveRelayed(entries, cursor: page.cursor, hub: access.hub).count
            cursor = page.cursor
            if !page.more { return added }
        }
    }

    /// The cursor of the notifications this host has fetched from its hub (0 without one). An
    /// unreadable cursor throws: read as 0, the hub would answer every wait at once.
    func hubNotificationCursor() throws -> Int64 {
        guard let hub = deployment.sync else { return 0 }
        return try notifications.store.relayCursor(hub: hub.hub)
    }

    /// The idempotency keys of the notifications queued for the hub, oldest first.
    func notificationRelayKeys() throws -> [String] { try notifications.store.relayKeys() }

    /// Notifications the relay sent, and those it dropped (refused, or out of time).
    func notificationRelaySummary() throws -> [String: Int] {
        try notifications.store.relaySummary()
    }
}
