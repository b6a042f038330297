import Foundation
import TesseraSDK
import TesseraSQLite

/// The host's persisted event outbox (`<data>/events.sqlite`): every published event, and per
/// subscriber and publisher how far delivery got, with the state of a failing delivery.
///
/// Sequences are per publisher and start at 1. An event taken from a plugin's own outbox (emitted
/// in a write batch) carries that outbox's row number as its `origin`, so moving it here twice —
/// after a crash between the two commits — stores it once.
public final class EventLog: Sendable {
    let database: SQLiteDatabase

    /// Opens (creating) the log at `path`.
    public init(path: String) throws {
        database = try SQLiteDatabase(path: path)
        try database.migrate(EventLogSchema.schema)
    }

    /// Appends events of `publisher` in order, in one transaction; returns them as stored (an event
    /// whose `origin` is already stored is skipped).
    @discardableResult
    public func append(publisher: String, _ events: [(name: String, payload: JSONValue, origin: Int64?)], at time: Date) throws -> [PublishedEvent] {
        try database.withConnection { db in
            try db.transaction(.immediate) {
                var seq = try db.cachedStatement("SELECT COALESCE(MAX(seq), 0) FROM events WHERE publisher = ?")
                    .fetchOne([.text(publisher)])?.first?.integer ?? 0
                var stored: [PublishedEvent] = []
                let insert = try db.cachedStatement(
                    "INSERT OR IGNORE INTO events (publisher, seq, name, payload, published_at, origin) VALUES (?, ?, ?, ?, ?, ?)")
                for event in events {
                    try insert.execute([.text(publisher), .integer(seq + 1), .text(event.name), .text(event.payload.serialized()),
                                        .real(time.timeIntervalSinceReferenceDate), event.origin.map(SQLValue.integer) ?? .null])
                    guard db.changes > 0 else { continue }
                    seq += 1
                    stored.append(PublishedEvent(publisher: publisher, name: event.name, payload: event.payload, sequence: seq, publishedAt: time))
                }
                return stored
            }
        }
    }

    /// The first event of `publisher` after `sequence` whose name is in `names`, and the last
    /// sequence skipped on the way (events the subscriber does not consume).
    func next(from publisher: String, after sequence: Int64, names: Set<String>) throws -> (event: PublishedEvent?, skippedTo: Int64) {
        try database.withConnection { db in
            let rows = try db.cachedStatement(
                "SELECT seq, name, payload, published_at FROM events WHERE publisher = ? AND seq > ? ORDER BY seq LIMIT 64")
                .fetchAll([.text(publisher), .integer(sequence)])
            var skipped = sequence
            for row in rows {
                let seq = row[0].integer ?? 0
                let name = row[1].text ?? ""
                if names.contains(name) {
                    let payload = (try? JSONValue(parsing: row[2].text ?? "null")) ?? .null
                    let event = PublishedEvent(publisher: publisher, name: name, payload: payload, sequence: seq,
                                               publishedAt: Date(timeIntervalSinceReferenceDate: row[3].real ?? 0))
                    return (event, skipped)
                }
                skipped = seq
            }
            return (nil, skipped)
        }
    }

    /// Events of `publisher` after `sequence`, oldest first.
    public func events(of publisher: String, after sequence: Int64 = 0, limit: Int = 10_000) throws -> [PublishedEvent] {
        try database.withConnection { db in
            try db.cachedStatement(
                "SELECT seq, name, payload, published_at FROM events WHERE publisher = ? AND seq > ? ORDER BY seq LIMIT ?")
                .fetchAll([.text(publisher), .integer(sequence), .integer(Int64(limit))]).map { row in
                    PublishedEvent(publisher: publisher, name: row[1].text ?? "", payload: (try? JSONValue(parsing: row[2].text ?? "null")) ?? .null,
                                   sequence: row[0].integer ?? 0, publishedAt: Date(timeIntervalSinceReferenceDate: row[3].real ?? 0))
                }
        }
    }

    /// Events of every publisher stored after `position`, in the order they were stored, each with
    /// its position: the host-wide number the SSE stream resumes from (`e-<position>`).
    ///
    /// The position is the table's rowid. It only grows because the log is append-only: nothing
    /// deletes events or vacuums the file (a future pruning must keep the newest row, or the next
    /// insert could reuse its number).
    public func events(afterPosition position: Int64, limit: Int = 1000) throws -> [(position: Int64, event: PublishedEvent)] {
        try database.withConnection { db in
            try db.cachedStatement(
                "SELECT rowid, publisher, seq, name, payload, published_at FROM events WHERE rowid > ? ORDER BY rowid LIMIT ?")
                .fetchAll([.integer(position), .integer(Int64(limit))]).map { row in
                    (row[0].integer ?? 0,
                     PublishedEvent(publisher: row[1].text ?? "", name: row[3].text ?? "",
                                    payload: (try? JSONValue(parsing: row[4].text ?? "null")) ?? .null, sequence: row[2].integer ?? 0,
                                    publishedAt: Date(timeIntervalSinceReferenceDate: row[5].real ?? 0)))
                }
        }
    }

    /// The position of the newest event (0 before the first): where a stream that starts now begins.
    public func lastPosition() throws -> Int64 {
        try database.withConnection { db in try db.fetchOne("SELECT COALESCE(MAX(rowid), 0) FROM events")?.first?.integer ?? 0 }
    }

    /// The newest sequence of `publisher` (0 before its first event).
    public func lastSequence(of publisher: String) throws -> Int64 {
        try database.withConnection { db in
            try db.cachedStatement("SELECT COALESCE(MAX(seq), 0) FROM events WHERE publisher = ?")
                .fetchOne([.text(publisher)])?.first?.integer ?? 0
        }
    }

    /// How far delivery from `publisher` to `subscriber` got, and its failure state.
    public func cursor(subscriber: String, publisher: String) throws -> DeliveryCursor {
        try database.withConnection { db in
            let row = try db.cachedStatement(
                "SELECT delivered, attempts, retry_at, last_error FROM cursors WHERE subscriber = ? AND publisher = ?")
                .fetchOne([.text(subscriber), .text(publisher)])
            return DeliveryCursor(subscriber: subscriber, publisher: publisher, delivered: row?[0].integer ?? 0,
                                  attempts: Int(row?[1].integer ?? 0),
                                  retryAt: row?[2].real.map(Date.init(timeIntervalSinceReferenceDate:)), lastError: row?[3].text)
        }
    }

    /// Records a cursor.
    func save(_ cursor: DeliveryCursor) throws {
        try database.withConnection { db in
            try db.cachedStatement("""
                INSERT OR REPLACE INTO cursors (subscriber, publisher, delivered, attempts, retry_at, last_error)
                VALUES (?, ?, ?, ?, ?, ?)
                """).execute([.text(cursor.subscriber), .text(cursor.publisher), .integer(cursor.delivered),
                              .integer(Int64(cursor.attempts)),
                              cursor.retryAt.map { .real($0.timeIntervalSinceReferenceDate) } ?? .null,
                              cursor.lastError.map(SQLValue.text) ?? .null])
        }
    }

    /// The earliest retry time of a failing delivery, if any.
    func earliestRetry() throws -> Date? {
        try database.withConnection { db in
            try db.fetchOne("SELECT MIN(retry_at) FROM cursors WHERE retry_at IS NOT NULL")?.first?.real
                .map(Date.init(timeIntervalSinceReferenceDate:))
        }
    }
}

/// How far the events of one publisher reached one subscriber.
public struct DeliveryCursor: Sendable, Hashable {
    /// The subscribing plugin.
    public var subscriber: String
    /// The publishing plugin.
    public var publisher: String
    /// The last sequence handed over (or skipped as not consumed).
    public var delivered: Int64
    /// Failed attempts at the next event, in a row.
    public var attempts: Int
    /// When the failing event is tried again.
    public var retryAt: Date?
    /// What the subscriber threw last.
    public var lastError: String?
}
