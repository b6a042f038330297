import Foundation
import TesseraSDK

/// The plugin's own database: settings (university, student number; never the ticket), the cache
/// of everything read from IS/STAG, and what the refresh job has already seen.
struct Store: Sendable {
    let storage: any PluginStorage
    let clock: any HostClock

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
    ]

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

    /// Forgets the cache and what was seen (logout); notes, and settings other than the login's, stay.
    func clearCache() async throws {
        let cached = try await storage.query("SELECT id FROM cache").compactMap { $0["id"].text }
        let seen = try await storage.query("SELECT id FROM seen").compactMap { $0["id"].text }
        try await storage.write { batch in
            for id in cached { batch.delete("cache", id: id) }
            for id in seen { batch.delete("seen", id: id) }
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
