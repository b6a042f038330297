import Foundation
import TesseraSDK
import TesseraSQLite

/// Timers and the virtual clock's time in the host's own database (`<data>/host.sqlite`).
///
/// Times are stored as `timeIntervalSinceReferenceDate` reals, so a `Date` comes back exactly.
public final class SQLiteTimerStore: TimerStore {
    let database: SQLiteDatabase

    public init(path: String) throws {
        database = try SQLiteDatabase(path: path)
        try database.migrate(TimerStoreSchema.schema)
    }

    public func put(_ timer: StoredTimer) throws {
        try database.withConnection { db in
            try db.cachedStatement("""
                INSERT OR REPLACE INTO timers (plugin, key, name, fire_at, payload, every_seconds, attempts)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """).execute(Self.row(timer))
        }
    }

    public func putIfAbsent(_ timer: StoredTimer) throws -> Bool {
        try database.withConnection { db in
            try db.cachedStatement("""
                INSERT OR IGNORE INTO timers (plugin, key, name, fire_at, payload, every_seconds, attempts)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """).execute(Self.row(timer))
            return db.changes > 0
        }
    }

    public func remove(plugin: String, key: String) throws {
        try database.withConnection { db in
            try db.cachedStatement("DELETE FROM timers WHERE plugin = ? AND key = ?").execute([.text(plugin), .text(key)])
        }
    }

    public func settle(_ fired: StoredTimer, next: StoredTimer?) throws {
        try database.withConnection { db in
            try db.transaction(.immediate) {
                let kept = try db.cachedStatement("\(Self.select) WHERE plugin = ? AND key = ?")
                    .fetchAll([.text(fired.plugin), .text(fired.key)]).first.map(Self.timer)
                // Rescheduled meanwhile by its own handler (or removed): that decision stands.
                guard let kept, kept.fireAt == fired.fireAt, kept.name == fired.name, kept.payload == fired.payload else { return }
                if let next {
                    try db.cachedStatement("""
                        INSERT OR REPLACE INTO timers (plugin, key, name, fire_at, payload, every_seconds, attempts)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """).execute(Self.row(next))
                } else {
                    try db.cachedStatement("DELETE FROM timers WHERE plugin = ? AND key = ?").execute([.text(fired.plugin), .text(fired.key)])
                }
            }
        }
    }

    public func pending(plugin: String) throws -> [StoredTimer] {
        try database.withConnection { db in
            try db.cachedStatement("\(Self.select) WHERE plugin = ? ORDER BY fire_at, key")
                .fetchAll([.text(plugin)]).map(Self.timer)
        }
    }

    public func due(by time: Date, limit: Int) throws -> [StoredTimer] {
        try database.withConnection { db in
            try db.cachedStatement("\(Self.select) WHERE fire_at <= ? ORDER BY fire_at, plugin, key LIMIT ?")
                .fetchAll([.real(time.timeIntervalSinceReferenceDate), .integer(Int64(limit))]).map(Self.timer)
        }
    }

    public func loadVirtualNow() throws -> Date? {
        try database.withConnection { db in
            try db.fetchOne("SELECT now FROM virtual_clock WHERE id = 1")?.first?.real.map(Date.init(timeIntervalSinceReferenceDate:))
        }
    }

    public func saveVirtualNow(_ time: Date) throws {
        try database.withConnection { db in
            try db.cachedStatement("INSERT OR REPLACE INTO virtual_clock (id, now) VALUES (1, ?)")
                .execute([.real(time.timeIntervalSinceReferenceDate)])
        }
    }

    static let select = "SELECT plugin, key, name, fire_at, payload, every_seconds, attempts FROM timers"

    static func row(_ t: StoredTimer) -> [SQLiteValue] {
        [.text(t.plugin), .text(t.key), .text(t.name), .real(t.fireAt.timeIntervalSinceReferenceDate),
         .text(t.payload.serialized()), t.everySeconds.map(SQLiteValue.integer) ?? .null, .integer(Int64(t.attempts))]
    }

    static func timer(_ r: [SQLiteValue]) -> StoredTimer {
        StoredTimer(plugin: r[0].text ?? "", key: r[1].text ?? "", name: r[2].text ?? "",
                    fireAt: Date(timeIntervalSinceReferenceDate: r[3].real ?? 0),
                    payload: (try? JSONValue(parsing: r[4].text ?? "null")) ?? .null,
                    everySeconds: r[5].integer, attempts: Int(r[6].integer ?? 0))
    }
}
