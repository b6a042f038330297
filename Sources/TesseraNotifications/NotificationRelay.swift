import Foundation
@_spi(TesseraHost) import TesseraSDK
import TesseraSQLite

/// Notifications addressed to a space's members travel through the hub (docs/notifications.md,
/// "To a space's members"). On the sender's host an occurrence's relay row is written in the
/// occurrence's own transaction (``NotificationStore/record(_:now:)``), so it is queued exactly
/// once; the host's relay sends it to the hub by its idempotency key until the hub answers. On
/// each member's host, what the hub filed for the person is received into the inbox at most once
/// (the inbox is unique by plugin, key, occurrence and recipient) together with the hub's cursor.
extension NotificationStore {
    /// A notification waiting to go to the hub.
    public struct Relay: Sendable, Hashable {
        public var id: Int64
        /// The same on every attempt: the hub files it once by this.
        public var idempotencyKey: String
        public var plugin: String
        public var key: String
        /// The shared space whose members receive it.
        public var space: String
        /// Whether the sender's own person is left out (`NotificationRecipient.spaceOthers`).
        public var excludingSender: Bool
        public var title: String
        public var body: String
        public var payload: JSONValue
        public var dueAt: Date
        public var late: Bool
        public var createdAt: Date
        public var attempts: Int
        /// The priority's name and the message's JSON text, as the relay table keeps them.
        var priorityName: String
        var messageJSON: String?
        public var priority: NotificationPriority { NotificationPriority(rawValue: priorityName) ?? .normal }
        public var message: NotificationMessage? {
            messageJSON.flatMap { try? JSONValue(parsing: $0) }.flatMap { NotificationMessage(json: $0) }
        }
    }

    /// Relays due by `time`, oldest first.
    public func relaysDue(by time: Date, limit: Int) throws -> [Relay] {
        try database.withConnection { db in
            try db.cachedStatement("""
                SELECT id, idempotency_key, plugin, key, space, others, title, body, payload, due_at, late, created_at, attempts, priority, message
                FROM relay WHERE state = 'pending' AND next_attempt <= ? ORDER BY next_attempt, id LIMIT ?
                """).fetchAll([.real(time.timeIntervalSinceReferenceDate), .integer(Int64(limit))]).map { r in
                Relay(id: r[0].integer ?? 0, idempotencyKey: r[1].text ?? "", plugin: r[2].text ?? "", key: r[3].text ?? "",
                      space: r[4].text ?? "", excludingSender: r[5].integer == 1, title: r[6].text ?? "", body: r[7].text ?? "",
                      payload: (try? JSONValue(parsing: r[8].text ?? "null")) ?? .null,
                      dueAt: Date(timeIntervalSinceReferenceDate: r[9].real ?? 0), late: r[10].integer == 1,
                      createdAt: Date(timeIntervalSinceReferenceDate: r[11].real ?? 0), attempts: Int(r[12].integer ?? 0),
                      priorityName: Self.priority(r[13]).rawValue, messageJSON: r[14].text)
            }
        }
    }

    /// When the next pending relay is due.
    public func earliestRelay() throws -> Date? {
        try database.withConnection { db in
            try db.cachedStatement("SELECT MIN(next_attempt) FROM relay WHERE state = 'pending'").fetchOne()?
                .first?.real.map(Date.init(timeIntervalSinceReferenceDate:))
        }
    }

    /// Records a relay's outcome: `sent`, `dropped`, or `pending` again at `retryAt`.
    public func settleRelay(_ id: Int64, state: String, attempts: Int, retryAt: Date?, error: String?) throws {
        try database.withConnection { db in
            try db.cachedStatement("UPDATE relay SET state = ?, attempts = ?, next_attempt = COALESCE(?, next_attempt), last_error = ? WHERE id = ?")
                .execute([.text(state), .integer(Int64(attempts)), retryAt.map { .real($0.timeIntervalSinceReferenceDate) } ?? .null,
                          error.map(SQLValue.text) ?? .null, .integer(id)])
        }
    }

    /// The idempotency keys of the relays, oldest first (for tests and status).
    public func relayKeys() throws -> [String] {
        try database.withConnection { db in try db.fetchAll("SELECT idempotency_key FROM relay ORDER BY id").compactMap { $0[0].text } }
    }

    /// Relays by state (`pending`, `sent`, `dropped`), for status and tests.
    public func relaySummary() throws -> [String: Int] {
        try database.withConnection { db in
            var summary: [String: Int] = [:]
            for row in try db.fetchAll("SELECT state, COUNT(*) FROM relay GROUP BY state") { summary[row[0].text ?? ""] = Int(row[1].integer ?? 0) }
            return summary
        }
    }

    /// The hub's cursor of the notifications this host has received from it.
    public func relayCursor(hub: String) throws -> Int64 {
        try database.withConnection { db in
            try db.cachedStatement("SELECT cursor FROM relay_cursor WHERE hub = ?").fetchOne([.text(hub)])?.first?.integer ?? 0
        }
    }

    /// Files notifications the hub relayed into the inbox (an entry already there is skipped), adds
    /// their webhook deliveries, and moves the hub's cursor, in one transaction; the entries added.
    public func receive(_ entries: [InboxEntry], outbound: [(sink: String, key: String, body: JSONValue)],
                        cursor: Int64, hub: String, now: Date) throws -> [InboxEntry] {
        try database.withConnection { db in
            try db.transaction(.immediate) {
                let added = try Self.insertInbox(entries, db)
                let addedKeys = Set(added.map { NotificationScheduler.idempotencyKey($0) })
                let insert = try db.cachedStatement(
                    "INSERT OR IGNORE INTO outbound (sink, idempotency_key, body, next_attempt) VALUES (?, ?, ?, ?)")
                for o in outbound where addedKeys.contains(o.key) {
                    try insert.execute([.text(o.sink), .text(o.key), .text(o.body.serialized()), .real(now.timeIntervalSinceReferenceDate)])
                }
                try db.cachedStatement("INSERT OR REPLACE INTO relay_cursor (hub, cursor) VALUES (?, ?)").execute([.text(hub), .integer(cursor)])
                if !added.isEmpty { try Self.add(Int64(added.count), to: "received", db) }
                return added
            }
        }
    }

    /// Inserts inbox entries, skipping any already there; the ones added, with their ids.
    static func insertInbox(_ entries: [InboxEntry], _ db: SQLiteConnection) throws -> [InboxEntry] {
        var added: [InboxEntry] = []
        let insert = try db.cachedStatement("""
            INSERT OR IGNORE INTO inbox (plugin, key, recipient, title, body, payload, due_at, delivered_at, late, priority, message)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for var entry in entries {
            try insert.execute([.text(entry.plugin), .text(entry.key), .text(entry.recipient), .text(entry.title),
                                .text(entry.body), .text(entry.payload.serialized()),
                                .real(entry.dueAt.timeIntervalSinceReferenceDate),
                                .real(entry.deliveredAt.timeIntervalSinceReferenceDate), .integer(entry.late ? 1 : 0),
                                .text(entry.priorityName), entry.messageJSON.map(SQLValue.text) ?? .null])
            if db.changes > 0 {
                entry.id = db.lastInsertRowID
                added.append(entry)
            }
        }
        return added
    }

    /// Queues relays (an occurrence already queued is skipped).
    static func insertRelays(_ entries: [InboxEntry], now: Date, _ db: SQLiteConnection) throws {
        let insert = try db.cachedStatement("""
            INSERT OR IGNORE INTO relay (idempotency_key, plugin, key, space, others, title, body, payload, due_at, late, created_at, next_attempt,
                                         priority, message)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for entry in entries {
            let recipient = NotificationRecipient(ledgerName: entry.recipient)
            guard let space = recipient.spaceID else { continue }
            try insert.execute([.text(NotificationScheduler.idempotencyKey(entry)), .text(entry.plugin), .text(entry.key), .text(space),
                                .integer(recipient.excludesSender ? 1 : 0), .text(entry.title), .text(entry.body),
                                .text(entry.payload.serialized()), .real(entry.dueAt.timeIntervalSinceReferenceDate),
                                .integer(entry.late ? 1 : 0), .real(now.timeIntervalSinceReferenceDate), .real(now.timeIntervalSinceReferenceDate),
                                .text(entry.priorityName), entry.messageJSON.map(SQLValue.text) ?? .null])
        }
    }
}

extension NotificationScheduler {
    /// Files what the hub relayed for this host's person (see ``NotificationStore/receive(_:outbound:cursor:hub:now:)``),
    /// hands each new entry to the configured webhooks, and tells the observers (the SSE stream).
    public func receiveRelayed(_ entries: [InboxEntry], cursor: Int64, hub: String) throws -> [InboxEntry] {
        let now = clock.now()
        var outbound: [(sink: String, key: String, body: JSONValue)] = []
        for entry in entries {
            for url in settings.webhooks {
                let key = Self.idempotencyKey(entry)
                var body = entry.json.objectValue ?? [:]
                body["id"] = .string(key)
                outbound.append((url.absoluteString, key, .object(body)))
            }
        }
        let added = try store.receive(settings.inbox ? entries : [], outbound: outbound, cursor: cursor, hub: hub, now: now)
        let observers = self.observers.withLock { $0 }
        for entry in added { for observer in observers { observer(entry) } }
        if !outbound.isEmpty { webhooks?.kick() }
        return added
    }
}

extension NotificationRecipient {
    /// The space of a space recipient.
    public var spaceID: String? {
        switch self {
        case .space(let id), .spaceOthers(let id): id
        default: nil
        }
    }

    /// Whether the sender's own person is left out.
    var excludesSender: Bool {
        if case .spaceOthers = self { return true }
        return false
    }
}

extension InboxEntry {
    /// An entry for a notification the hub relayed from another member's plugin: recipient
    /// `space:<id>`, delivered now.
    public static func relayed(plugin: String, key: String, space: String, title: String, body: String, payload: JSONValue,
                               dueAt: Date, deliveredAt: Date, late: Bool, priority: NotificationPriority = .normal,
                               message: NotificationMessage? = nil) -> InboxEntry {
        InboxEntry(id: 0, plugin: plugin, key: key, recipient: NotificationRecipient.space(space).ledgerName, title: title, body: body,
                   payload: payload, dueAt: dueAt, deliveredAt: deliveredAt, late: late, readAt: nil, priorityName: priority.rawValue,
                   messageJSON: message.map { $0.json.serialized() })
    }
}
