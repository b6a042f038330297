import Foundation
@_spi(TesseraHost) import TesseraSDK
import TesseraSQLite

/// The host's notification state in `<data>/notifications.sqlite`: the schedules, the inbox, and
/// the ledger of outbound deliveries (webhooks).
///
/// Exactly once per recipient and occurrence comes from the ledger's keys: an inbox entry is
/// unique by (plugin, key, occurrence, recipient), an outbound delivery by (sink, idempotency
/// key), and the entries of one occurrence are written in the same transaction that moves its
/// schedule on. A crash before that commit delivers nothing; after it, the occurrence is done.
public final class NotificationStore: Sendable {
    let database: SQLiteDatabase

    /// Opens (creating) the store at `path`.
    public init(path: String) throws {
        database = try SQLiteDatabase(path: path)
        try database.migrate(NotificationStoreSchema.schema)
    }

    // MARK: Schedules

    /// Stores schedules, replacing any with the same plugin and key, in one transaction.
    public func put(_ notifications: [ScheduledNotification]) throws {
        try database.withConnection { db in
            try db.transaction(.immediate) {
                let insert = try db.cachedStatement("""
                    INSERT OR REPLACE INTO schedules (plugin, key, title, body, payload, recipient, at, rule, start, tz, next_due, priority, message)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                for n in notifications { try insert.execute(Self.row(n)) }
            }
        }
    }

    /// Removes a plugin's schedule by key; whether there was one.
    @discardableResult
    public func remove(plugin: String, key: String) throws -> Bool {
        try database.withConnection { db in
            try db.cachedStatement("DELETE FROM schedules WHERE plugin = ? AND key = ?").execute([.text(plugin), .text(key)])
            return db.changes > 0
        }
    }

    /// A plugin's schedules that still have an occurrence, soonest first.
    public func pending(plugin: String) throws -> [ScheduledNotification] {
        try database.withConnection { db in
            try db.cachedStatement("\(Self.select) WHERE plugin = ? AND next_due IS NOT NULL ORDER BY next_due, key")
                .fetchAll([.text(plugin)]).map(Self.notification)
        }
    }

    /// Whether a plugin has a schedule under `key`.
    public func exists(plugin: String, key: String) throws -> Bool {
        try database.withConnection { db in
            try db.cachedStatement("SELECT 1 FROM schedules WHERE plugin = ? AND key = ?").fetchOne([.text(plugin), .text(key)]) != nil
        }
    }

    /// How many schedules a plugin has pending.
    public func pendingCount(plugin: String) throws -> Int {
        try database.withConnection { db in
            Int(try db.cachedStatement("SELECT COUNT(*) FROM schedules WHERE plugin = ? AND next_due IS NOT NULL")
                .fetchOne([.text(plugin)])?.first?.integer ?? 0)
        }
    }

    /// The earliest due time of any schedule.
    public func earliestDue() throws -> Date? {
        try database.withConnection { db in
            try db.cachedStatement("SELECT MIN(next_due) FROM schedules WHERE next_due IS NOT NULL").fetchOne()?
                .first?.real.map(Date.init(timeIntervalSinceReferenceDate:))
        }
    }

    /// Schedules due by `time`, earliest first.
    public func due(by time: Date, limit: Int) throws -> [ScheduledNotification] {
        try database.withConnection { db in
            try db.cachedStatement("\(Self.select) WHERE next_due IS NOT NULL AND next_due <= ? ORDER BY next_due, plugin, key LIMIT ?")
                .fetchAll([.real(time.timeIntervalSinceReferenceDate), .integer(Int64(limit))]).map(Self.notification)
        }
    }

    // MARK: Delivering one occurrence

    /// What one occurrence produced, written in one transaction.
    public struct OccurrenceRecord: Sendable {
        /// The schedule as it goes on (next occurrence), or `nil` to remove it.
        public var continuation: ScheduledNotification?
        /// Inbox entries to add (an entry already there for the same occurrence is skipped).
        public var inbox: [InboxEntry]
        /// Outbound deliveries to add: sink, idempotency key, JSON body.
        public var outbound: [(sink: String, key: String, body: JSONValue)]
        /// Counters to add to.
        public var counts: [String: Int64]
        /// Entries for a space's members, queued for the hub instead of the inbox.
        public var relay: [InboxEntry] = []
        /// The schedule's due time before this occurrence: the record applies only if the stored
        /// schedule still has it (the plugin may have rescheduled meanwhile).
        public var expectedDue: Date
        public var plugin: String
        public var key: String
    }

    /// Applies an occurrence's record in one transaction; returns the inbox entries it added (with
    /// their ids), or `nil` if the schedule changed meanwhile and nothing was written.
    public func record(_ r: OccurrenceRecord, now: Date) throws -> [InboxEntry]? {
        try database.withConnection { db in
            try db.transaction(.immediate) {
                let current = try db.cachedStatement("SELECT next_due FROM schedules WHERE plugin = ? AND key = ?")
                    .fetchOne([.text(r.plugin), .text(r.key)])?.first?.real
                guard current == r.expectedDue.timeIntervalSinceReferenceDate else { return nil }
                let added = try Self.insertInbox(r.inbox, db)
                let outbound = try db.cachedStatement(
                    "INSERT OR IGNORE INTO outbound (sink, idempotency_key, body, next_attempt) VALUES (?, ?, ?, ?)")
                for o in r.outbound {
                    try outbound.execute([.text(o.sink), .text(o.key), .text(o.body.serialized()), .real(now.timeIntervalSinceReferenceDate)])
                }
                try Self.insertRelays(r.relay, now: now, db)
                for (name, value) in r.counts { try Self.add(value, to: name, db) }
                if let next = r.continuation {
                    try db.cachedStatement("UPDATE schedules SET next_due = ? WHERE plugin = ? AND key = ?")
                        .execute([next.nextDue.map { .real($0.timeIntervalSinceReferenceDate) } ?? .null, .text(r.plugin), .text(r.key)])
                } else {
                    try db.cachedStatement("DELETE FROM schedules WHERE plugin = ? AND key = ?").execute([.text(r.plugin), .text(r.key)])
                }
                return added
            }
        }
    }

    // MARK: Inbox

    /// Inbox entries, newest first, optionally only unread ones, or only those after an id (oldest
    /// first then, for resuming a stream).
    public func inbox(unreadOnly: Bool = false, after id: Int64? = nil, limit: Int = 100) throws -> [InboxEntry] {
        var sql = "SELECT id, plugin, key, recipient, title, body, payload, due_at, delivered_at, late, read_at, priority, message FROM inbox WHERE 1 = 1"
        var args: [SQLValue] = []
        if unreadOnly { sql += " AND read_at IS NULL" }
        if let id {
            sql += " AND id > ? ORDER BY id LIMIT ?"
            args.append(.integer(id))
        } else {
            sql += " ORDER BY id DESC LIMIT ?"
        }
        args.append(.integer(Int64(limit)))
        return try database.withConnection { db in try db.cachedStatement(sql).fetchAll(args).map(Self.entry) }
    }

    /// Marks entries read; returns how many changed.
    @discardableResult
    public func markRead(_ ids: [Int64], at time: Date) throws -> Int {
        try database.withConnection { db in
            try db.transaction(.immediate) {
                var changed = 0
                let update = try db.cachedStatement("UPDATE inbox SET read_at = ? WHERE id = ? AND read_at IS NULL")
                for id in ids {
                    try update.execute([.real(time.timeIntervalSinceReferenceDate), .integer(id)])
                    changed += db.changes
                }
                return changed
            }
        }
    }

    // MARK: Outbound

    /// An outbound delivery waiting to be sent.
    public struct Outbound: Sendable, Hashable {
        public var id: Int64
        public var sink: String
        public var idempotencyKey: String
        public var body: String
        public var attempts: Int
        public var nextAttempt: Date
    }

    /// Pending deliveries due by `time`.
    public func outboundDue(by time: Date, limit: Int) throws -> [Outbound] {
        try database.withConnection { db in
            try db.cachedStatement("""
                SELECT id, sink, idempotency_key, body, attempts, next_attempt FROM outbound
                WHERE state = 'pending' AND next_attempt <= ? ORDER BY next_attempt, id LIMIT ?
                """).fetchAll([.real(time.timeIntervalSinceReferenceDate), .integer(Int64(limit))]).map {
                Outbound(id: $0[0].integer ?? 0, sink: $0[1].text ?? "", idempotencyKey: $0[2].text ?? "", body: $0[3].text ?? "",
                         attempts: Int($0[4].integer ?? 0), nextAttempt: Date(timeIntervalSinceReferenceDate: $0[5].real ?? 0))
            }
        }
    }

    /// The earliest pending delivery's time, leaving out `excluded` ids (in flight).
    public func earliestOutbound(excluding excluded: Set<Int64>) throws -> Date? {
        try database.withConnection { db in
            let rows = try db.cachedStatement(
                "SELECT id, next_attempt FROM outbound WHERE state = 'pending' ORDER BY next_attempt LIMIT ?")
                .fetchAll([.integer(Int64(excluded.count + 1))])
            return rows.first { !excluded.contains($0[0].integer ?? 0) }?[1].real.map(Date.init(timeIntervalSinceReferenceDate:))
        }
    }

    /// Records a send's result: sent, a retry at `retryAt`, or dropped.
    public func settle(_ id: Int64, state: String, attempts: Int, retryAt: Date?, error: String?) throws {
        try database.withConnection { db in
            try db.cachedStatement("UPDATE outbound SET state = ?, attempts = ?, next_attempt = COALESCE(?, next_attempt), last_error = ? WHERE id = ?")
                .execute([.text(state), .integer(Int64(attempts)), retryAt.map { .real($0.timeIntervalSinceReferenceDate) } ?? .null,
                          error.map(SQLValue.text) ?? .null, .integer(id)])
        }
    }

    /// Outbound deliveries by sink and state, for status and tests.
    public func outboundSummary() throws -> [String: Int] {
        try database.withConnection { db in
            var summary: [String: Int] = [:]
            for row in try db.fetchAll("SELECT sink || ' ' || state, COUNT(*) FROM outbound GROUP BY sink, state") {
                summary[row[0].text ?? ""] = Int(row[1].integer ?? 0)
            }
            return summary
        }
    }

    // MARK: Counters

    /// The counters: `delivered`, `late`, `droppedLate`, `superseded`, `webhookSent`, `webhookDropped`.
    public func counters() throws -> [String: Int64] {
        try database.withConnection { db in
            var counters: [String: Int64] = [:]
            for row in try db.fetchAll("SELECT name, value FROM counters") { counters[row[0].text ?? ""] = row[1].integer ?? 0 }
            return counters
        }
    }

    /// Adds to a counter outside an occurrence.
    public func count(_ name: String, by value: Int64 = 1) throws {
        try database.withConnection { db in try Self.add(value, to: name, db) }
    }

    static func add(_ value: Int64, to name: String, _ db: SQLiteConnection) throws {
        try db.cachedStatement("INSERT INTO counters (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = value + excluded.value")
            .execute([.text(name), .integer(value)])
    }

    // MARK: Rows

    static let select = "SELECT plugin, key, title, body, payload, recipient, at, rule, start, tz, next_due, priority, message FROM schedules"

    static func row(_ n: ScheduledNotification) -> [SQLValue] {
        let r = n.request
        var at: SQLValue = .null, rule: SQLValue = .null, start: SQLValue = .null, tz: SQLValue = .null
        switch r.schedule {
        case .at(let instant):
            at = .real(instant.timeIntervalSinceReferenceDate)
        case .recurring(let text, let first, let zone):
            rule = .text(text)
            start = .real(first.timeIntervalSinceReferenceDate)
            tz = .text(zone)
        @unknown default:
            break
        }
        return [.text(n.plugin), .text(r.key), .text(r.title), .text(r.body), .text(r.payload.serialized()),
                .text(r.recipient.ledgerName), at, rule, start, tz,
                n.nextDue.map { .real($0.timeIntervalSinceReferenceDate) } ?? .null,
                .text(r.priority.rawValue), messageColumn(r.message)]
    }

    /// A message as its column holds it: JSON text, or NULL.
    static func messageColumn(_ message: NotificationMessage?) -> SQLValue {
        message.map { .text($0.json.serialized()) } ?? .null
    }

    /// A message read back from its column (`nil` for NULL or anything unreadable).
    static func message(_ column: SQLValue) -> NotificationMessage? {
        column.text.flatMap { try? JSONValue(parsing: $0) }.flatMap { NotificationMessage(json: $0) }
    }

    /// A priority read back from its column (`normal` for anything unknown).
    static func priority(_ column: SQLValue) -> NotificationPriority {
        column.text.flatMap(NotificationPriority.init(rawValue:)) ?? .normal
    }

    static func notification(_ r: [SQLValue]) -> ScheduledNotification {
        let schedule: NotificationSchedule
        if let rule = r[7].text {
            schedule = .recurring(rule: rule, startingAt: Date(timeIntervalSinceReferenceDate: r[8].real ?? 0), timeZone: r[9].text ?? "UTC")
        } else {
            schedule = .at(Date(timeIntervalSinceReferenceDate: r[6].real ?? 0))
        }
        let request = NotificationRequest(
            key: r[1].text ?? "", title: r[2].text ?? "", body: r[3].text ?? "", message: message(r[12]), priority: priority(r[11]),
            payload: (try? JSONValue(parsing: r[4].text ?? "null")) ?? .null,
            recipient: NotificationRecipient(ledgerName: r[5].text ?? "user"), schedule: schedule)
        return ScheduledNotification(plugin: r[0].text ?? "", request: request,
                                     nextDue: r[10].real.map(Date.init(timeIntervalSinceReferenceDate:)))
    }

    static func entry(_ r: [SQLValue]) -> InboxEntry {
        InboxEntry(id: r[0].integer ?? 0, plugin: r[1].text ?? "", key: r[2].text ?? "", recipient: r[3].text ?? "",
                   title: r[4].text ?? "", body: r[5].text ?? "", payload: (try? JSONValue(parsing: r[6].text ?? "null")) ?? .null,
                   dueAt: Date(timeIntervalSinceReferenceDate: r[7].real ?? 0),
                   deliveredAt: Date(timeIntervalSinceReferenceDate: r[8].real ?? 0), late: r[9].integer == 1,
                   readAt: r[10].real.map(Date.init(timeIntervalSinceReferenceDate:)), priorityName: priority(r[11]).rawValue,
                   messageJSON: r[12].text)
    }
}
