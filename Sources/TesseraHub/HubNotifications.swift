import Foundation
import TesseraSDK

/// Notifications addressed to the members of a space (DESIGN.md §5), relayed by the hub: a device
/// whose plugin's notification to a space fell due hands it here once per occurrence (an
/// idempotency key names it), the hub files one copy per member (the sender's own person too,
/// unless asked to leave them out), and each member's devices fetch theirs after a per-person
/// cursor and file them in their inbox, at most once by the same key. A person's copies stay until
/// every one of their devices has fetched past them.
extension HubStore {
    /// How long an idempotency key is remembered: a sender retrying longer than this could be
    /// filed twice (its outbox retries for at most a day; see docs/notifications.md).
    public static let relayKeyMillis: Int64 = 30 * 86_400_000
    /// The most notifications one fetch returns.
    public static let maxNotificationPage = 500

    /// Files `notification` for the members of its space; whether it was new (a repeat of a key
    /// already filed changes nothing) and for how many people.
    ///
    /// - Throws: `invalid_space` (400: not a shared space's id), `space_not_found` (404: not a
    ///   member, or another plugin's space), `space_deleted` (410), `invalid_input` (400).
    public func relay(_ notification: RelayedNotification, excludingSender: Bool, from device: HubDevice) async throws(HubError) -> (stored: Bool, recipients: Int) {
        try Self.checkPlugin(notification.plugin)
        try Self.checkRelayed(notification)
        let now = nowMillis
        let result = try await transaction { connection -> (stored: Bool, recipients: Int) in
            let space = try Self.sharedSpaceID(notification.space, person: device.person)
            // One writer at a time, so inbox numbers commit in order and a cursor skips nothing.
            try await connection.lock("notifications")
            try await Self.requirePluginSpace(space, plugin: notification.plugin, on: connection)
            try await Self.requireMember(space, person: device.person, on: connection)
            try await connection.execute("DELETE FROM hub_notification_keys WHERE created_ms < ?", [.integer(now - Self.relayKeyMillis)])
            let added = try await connection.execute("""
                INSERT INTO hub_notification_keys(key, plugin, space, sender, created_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING
                """, [.text(notification.key), .text(notification.plugin), .text(space), .text(device.person), .integer(now)])
            guard added == 1 else { return (false, 0) }
            var people = try await connection.fetchAll("SELECT person FROM hub_members WHERE space = ? ORDER BY person", [.text(space)])
                .compactMap { $0[0].text }
            if excludingSender { people.removeAll { $0 == device.person } }
            for person in people {
                try await connection.execute("""
                    INSERT INTO hub_inbox(person, key, notification_key, plugin, space, sender, title, body, payload, due_ms, late, created_ms,
                                          priority, message)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [.text(person), .text(notification.key), .text(notification.notificationKey), .text(notification.plugin), .text(space), .text(device.person),
                          .text(notification.title), .text(notification.body), .text(notification.payload),
                          .integer(notification.dueAtMillis), .integer(notification.late ? 1 : 0), .integer(now),
                          .text(notification.priority), notification.message.map(SQLValue.text) ?? .null])
            }
            // The members' own channels (webhook, e-mail) get it from the hub itself, whether or
            // not any device of theirs is online: queued here, so it commits with the copies.
            try await HubChannelStore.queueChannelDeliveries(notification, space: space, sender: device.person, people: people, now: now, on: connection)
            return (true, people.count)
        }
        if result.stored {
            changeSignal.fire()
            channels.channelSignal.fire()
        }
        return result
    }

    /// The notifications filed for `device`'s person after `cursor`, oldest first, and the cursor
    /// to fetch after next. Fetching after `cursor` also says the device holds everything up to
    /// it: copies every device of the person holds are removed.
    public func notifications(for device: HubDevice, after cursor: Int64, limit: Int) async throws(HubError) -> (notifications: [FiledNotification], cursor: Int64, more: Bool) {
        guard cursor >= 0 else { throw HubError(.invalidInput, "invalid_cursor", "a cursor is 0 or a number a fetch returned", field: "after") }
        let limit = min(max(limit, 1), Self.maxNotificationPage)
        return try await transaction { connection in
            try await acknowledge(cursor, by: device, on: connection)
            let rows = try await connection.fetchAll("""
                SELECT i.seq, i.key, i.plugin, i.space, i.sender, p.name, i.title, i.body, i.payload, i.due_ms, i.late, i.notification_key,
                       i.priority, i.message
                FROM hub_inbox i LEFT JOIN hub_people p ON p.id = i.sender
                WHERE i.person = ? AND i.seq > ? ORDER BY i.seq LIMIT ?
                """, [.text(device.person), .integer(cursor), .integer(Int64(limit + 1))])
            let page = rows.prefix(limit).map { row in
                FiledNotification(id: row[0].integer ?? 0, notification: RelayedNotification(
                    key: row[1].text ?? "", notificationKey: row[11].text ?? "", plugin: row[2].text ?? "", space: row[3].text ?? "", title: row[6].text ?? "",
                    body: row[7].text ?? "", payload: row[8].text ?? "null", dueAtMillis: row[9].integer ?? 0, late: row[10].integer == 1,
                    priority: row[12].text ?? "normal", message: row[13].text),
                    sender: HubPerson(id: row[4].text ?? "", name: row[5].text ?? ""))
            }
            return (Array(page), page.last?.id ?? cursor, rows.count > limit)
        }
    }

    /// Whether `person` has notifications after `cursor` (the long poll's second question).
    func hasNotifications(person: String, after cursor: Int64) async throws(HubError) -> Bool {
        try await transaction { connection in
            try await connection.fetchOne("SELECT 1 FROM hub_inbox WHERE person = ? AND seq > ? LIMIT 1",
                                          [.text(person), .integer(cursor)]) != nil
        }
    }

    /// Records that `device` holds its person's notifications up to `cursor`, and removes the
    /// copies every device of the person holds (a device that never fetched holds none).
    private func acknowledge(_ cursor: Int64, by device: HubDevice, on connection: any HubSQL) async throws {
        guard cursor > 0 else { return }
        try await connection.execute("""
            INSERT INTO hub_inbox_acks(device, seq) VALUES (?, ?)
            ON CONFLICT (device) DO UPDATE SET seq = CASE WHEN excluded.seq > hub_inbox_acks.seq THEN excluded.seq ELSE hub_inbox_acks.seq END
            """, [.text(device.id), .integer(cursor)])
        let held = try await connection.fetchOne("""
            SELECT MIN(COALESCE(a.seq, 0)) FROM hub_devices d LEFT JOIN hub_inbox_acks a ON a.device = d.id WHERE d.person = ?
            """, [.text(device.person)])?[0].integer ?? 0
        if held > 0 { try await connection.execute("DELETE FROM hub_inbox WHERE person = ? AND seq <= ?", [.text(device.person), .integer(held)]) }
    }

    static func checkRelayed(_ n: RelayedNotification) throws(HubError) {
        guard !n.key.isEmpty, n.key.utf8.count <= 1000 else {
            throw HubError(.invalidInput, "invalid_input", "a notification's key is 1 to 1000 bytes", field: "$.key")
        }
        guard !n.notificationKey.isEmpty, n.notificationKey.utf8.count <= 1000 else {
            throw HubError(.invalidInput, "invalid_input", "a notification's own key is 1 to 1000 bytes", field: "$.notificationKey")
        }
        guard !n.title.isEmpty, n.title.utf8.count <= 1000 else {
            throw HubError(.invalidInput, "invalid_input", "a notification's title is 1 to 1000 bytes", field: "$.title")
        }
        guard NotificationPriority(rawValue: n.priority) != nil else {
            throw HubError(.invalidInput, "invalid_input", "a notification's priority is normal, time-sensitive or critical", field: "$.priority")
        }
        guard (n.message?.utf8.count ?? 0) <= 16_000 else {
            throw HubError(.invalidInput, "invalid_input", "a notification's message is at most 16 000 bytes of JSON", field: "$.message")
        }
    }
}

/// A notification to the members of a space, as its sender's device hands it to the hub.
public struct RelayedNotification: Sendable, Hashable {
    /// The idempotency key: the same on every attempt at one occurrence (docs/notifications.md).
    public let key: String
    /// The plugin's own key of the notification (what it scheduled it under).
    public let notificationKey: String
    /// The plugin that scheduled it.
    public let plugin: String
    /// The shared space whose members receive it.
    public let space: String
    public let title: String
    public let body: String
    /// The plugin's payload, as JSON text.
    public let payload: String
    /// The occurrence it belongs to, in milliseconds since 1970.
    public let dueAtMillis: Int64
    /// Whether the sender delivered it late.
    public let late: Bool
    /// `normal`, `time-sensitive` or `critical` (``NotificationPriority``).
    public let priority: String
    /// The plugin's catalogue message, as JSON text (`NotificationMessage`'s JSON form), if it gave one.
    public let message: String?

    public init(key: String, notificationKey: String, plugin: String, space: String, title: String, body: String, payload: String,
                dueAtMillis: Int64, late: Bool, priority: String = "normal", message: String? = nil) {
        self.priority = priority
        self.message = message
        self.key = key
        self.notificationKey = notificationKey
        self.plugin = plugin
        self.space = space
        self.title = title
        self.body = body
        self.payload = payload
        self.dueAtMillis = dueAtMillis
        self.late = late
    }
}

/// A relayed notification filed for one person: its number in their list (the fetch cursor).
public struct FiledNotification: Sendable, Hashable {
    public let id: Int64
    public let notification: RelayedNotification
    /// Who sent it.
    public let sender: HubPerson
}
