import Foundation
import Synchronization
import TesseraSDK

/// The plugin's own database: settings (university, student number; never the ticket), the cache
/// of everything read from IS/STAG, and what the refresh job has already seen.
struct Store: Sendable {
    let storage: any PluginStorage
    let clock: any HostClock
    /// Whether the host syncs this plugin's notes and seen marks (the sync grant).
    var syncs = false
    let adoption = SyncAdoption()

    static let migrations = [
        StorageMigration(version: 1, sql: """
            CREATE TABLE settings (id TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE cache (id TEXT PRIMARY KEY, body TEXT NOT NULL, fetched_at TEXT NOT NULL);
            CREATE TABLE seen (id TEXT PRIMARY KEY, kind TEXT NOT NULL, seen_at TEXT NOT NULL);
            """),
        // Notes survive logout (spec §5.4); reminder switches are settings rows `notify:<kind>`.
        StorageMigration(version: 2, sql: """
            CREATE TABLE notes (id TEXT PRIMARY KEY, subject TEXT, title TEXT NOT NULL, body TEXT NOT NULL DEFAULT '', day TEXT,
                user_name TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
            """),
        // Notes belong to one IS/STAG person: the university (its base URL) and login name (spec §5.1.6, §7.1).
        StorageMigration(version: 3, sql: """
            ALTER TABLE notes ADD COLUMN base_url TEXT;
            UPDATE notes SET base_url = (SELECT value FROM settings WHERE id = 'baseURL') WHERE user_name IS NOT NULL;
            """),
        // Notes and what the refresh has seen sync across a student's devices (issue 38): a synced
        // table's NOT NULL columns need defaults (docs/sync.md), which SQLite adds only by a
        // rebuild; and `seen` becomes the person's (`owner`, "BASE|USER", before each id), kept
        // across logout like notes, so a term seen on one device is not announced on another.
        // Rows seen by nobody logged in now were cleared at logout before: none are lost.
        StorageMigration(version: 4, sql: """
            CREATE TABLE notes_v4 (id TEXT PRIMARY KEY, subject TEXT, title TEXT NOT NULL DEFAULT '', body TEXT NOT NULL DEFAULT '',
                day TEXT, user_name TEXT, created_at TEXT NOT NULL DEFAULT '', updated_at TEXT NOT NULL DEFAULT '', base_url TEXT);
            INSERT INTO notes_v4(id, subject, title, body, day, user_name, created_at, updated_at, base_url)
                SELECT id, subject, title, body, day, user_name, created_at, updated_at, base_url FROM notes;
            DROP TABLE notes;
            ALTER TABLE notes_v4 RENAME TO notes;
            CREATE TABLE seen_v4 (id TEXT PRIMARY KEY, owner TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT '',
                seen_at TEXT NOT NULL DEFAULT '');
            INSERT INTO seen_v4(id, owner, kind, seen_at)
                SELECT o.owner || '|' || seen.id, o.owner, seen.kind, seen.seen_at FROM seen,
                    (SELECT (SELECT value FROM settings WHERE id = 'baseURL') || '|' || (SELECT value FROM settings WHERE id = 'userName') AS owner) o
                WHERE o.owner IS NOT NULL;
            DROP TABLE seen;
            ALTER TABLE seen_v4 RENAME TO seen;
            """),
    ]

    /// Notes and seen marks written before this device synced them (before migration 4, or before
    /// the operator granted sync) are in no sync log: written once more, each is adopted whole and
    /// goes to the person's other devices. Rows sync already holds are rewritten with their own
    /// values, which the host stamps as no change. Once per generation, on the first call that
    /// reads them (writes in `start` are not stamped); a settings mark keeps it from repeating.
    func adoptForSync() async throws {
        guard syncs, adoption.claim(), try await setting("syncAdopted") == nil else { return }
        let notes = try await storage.query("SELECT * FROM notes")
        let seen = try await storage.query("SELECT * FROM seen")
        try await storage.write { batch in
            for row in notes { batch.put("notes", id: row["id"].text ?? "", Self.values(of: row)) }
            for row in seen { batch.put("seen", id: row["id"].text ?? "", Self.values(of: row)) }
            batch.put("settings", id: "syncAdopted", ["value": .text(ISO.utc(clock.now()))])
        }
    }

    private static func values(of row: Row) -> [String: SQLValue] {
        var values: [String: SQLValue] = [:]
        for (column, value) in zip(row.columns, row.values) where column != "id" { values[column] = value }
        return values
    }

    /// Whose `seen` rows are the logged-in person's: "BASE|USER", or nil when nobody is logged in.
    func owner() async throws -> String? {
        guard let base = try await setting("baseURL"), let user = try await setting("userName") else { return nil }
        return base + "|" + user
    }

    func setting(_ name: String) async throws -> String? {
        try await storage.query("SELECT value FROM settings WHERE id = ?", [.text(name)]).first?["value"].text
    }

    /// The cached copy of `key` (without fetching), or `nil`.
    func cached(_ key: String) async throws -> JSONValue? {
        try await storage.query("SELECT body FROM cache WHERE id = ?", [.text(key)]).first?["body"].text.flatMap { try? JSONValue(parsing: $0) }
    }

    /// Runs `fetch`; on success caches its answer, on failure answers the cache marked stale (with
    /// its age and the reason), or throws when nothing is cached.
    func cachedRead(_ key: String, _ fetch: () async throws(STAGFailure) -> JSONValue) async throws -> JSONValue {
        let now = clock.now()
        let fetched: Result<JSONValue, STAGFailure>
        do throws(STAGFailure) { fetched = .success(try await fetch()) } catch { fetched = .failure(error) }
        switch fetched {
        case .success(let fresh):
            try await storage.write { $0.put("cache", id: key, ["body": .text(fresh.serialized()), "fetched_at": .text(ISO.utc(now))]) }
            return ["data": fresh, "stale": false, "fetchedAt": .string(ISO.utc(now)), "ageSeconds": 0]
        case .failure(let error):
            let rows = try await storage.query("SELECT body, fetched_at FROM cache WHERE id = ?", [.text(key)])
            guard let row = rows.first, let body = row["body"].text, let at = row["fetched_at"].text,
                  let data = try? JSONValue(parsing: body) else { throw error.pluginError }
            let age = ISO.parseUTC(at).map { Int64(max(0, now.timeIntervalSince($0))) } ?? 0
            return ["data": data, "stale": true, "fetchedAt": .string(at), "ageSeconds": .integer(age),
                    "reason": .string(error.code), "message": .string(error.message)]
        }
    }

    /// One answer made of several reads: `data`, stale if any read was (with the first stale read's
    /// reason and message), `fetchedAt` and `ageSeconds` of the oldest.
    static func combined(_ reads: [JSONValue], data: JSONValue) -> JSONValue {
        var answer: [String: JSONValue] = ["data": data, "stale": false, "ageSeconds": 0, "fetchedAt": reads.first?["fetchedAt"] ?? .null]
        for read in reads {
            if (read["ageSeconds"]?.integerValue ?? 0) >= (answer["ageSeconds"]?.integerValue ?? 0) {
                answer["ageSeconds"] = read["ageSeconds"] ?? 0
                answer["fetchedAt"] = read["fetchedAt"] ?? .null
            }
            if read["stale"]?.boolValue == true, answer["stale"] == false {
                answer["stale"] = true
                answer["reason"] = read["reason"] ?? .null
                answer["message"] = read["message"] ?? .null
            }
        }
        return .object(answer)
    }

    /// Forgets the cache (logout). Notes and what the refresh has seen stay: they are the
    /// person's, kept per person and synced to their other devices, and another person logging
    /// in here sees neither. Settings other than the login's stay too.
    func clearCache() async throws {
        let cached = try await storage.query("SELECT id FROM cache").compactMap { $0["id"].text }
        try await storage.write { batch in
            for id in cached { batch.delete("cache", id: id) }
            for id in ["osCislo", "ucitIdno", "userName", "name", "ticketExpires", "ticketExpiredAt"] { batch.delete("settings", id: id) }
        }
    }
}

/// ISO-8601 helpers; STAG's own dates are Europe/Prague wall-clock times.
enum ISO {
    static let prague = TimeZone(identifier: "Europe/Prague") ?? .gmt

    static func utc(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: date)
    }

    /// With Prague's offset, e.g. `2026-01-20T09:00:00+01:00`.
    static func prague(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = prague
        return f.string(from: date)
    }

    static func parseUTC(_ text: String) -> Date? { ISO8601DateFormatter().date(from: text) }

    static func day(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = prague
        f.dateFormat = "yyyy-MM-dd"
        return f.string(from: date)
    }

    /// Midnight in Prague of `yyyy-MM-dd`, or `nil` for anything else.
    static func parseDay(_ text: String) -> Date? {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = prague
        f.dateFormat = "yyyy-MM-dd"
        return f.date(from: text)
    }

    /// A STAG date: `{"value": "d.M.yyyy[ H:mm]"}` or the bare string.
    static func stag(_ value: JSONValue?) -> Date? {
        guard let text = value?["value"]?.stringValue ?? value?.stringValue else { return nil }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = prague
        for format in ["d.M.yyyy H:mm:ss", "d.M.yyyy H:mm", "d.M.yyyy"] {
            f.dateFormat = format
            if let date = f.date(from: text) { return date }
        }
        return nil
    }
}

/// Claimed once per generation: the first call adopts, the others go straight on.
final class SyncAdoption: Sendable {
    private let claimed = Mutex(false)

    func claim() -> Bool {
        claimed.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
