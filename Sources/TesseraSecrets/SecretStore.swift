import Foundation
import Glibc
import Synchronization
import TesseraSDK
import TesseraSQLite

/// The host's secrets in `<data>/secrets.sqlite`, apart from every plugin's own database.
///
/// A plugin's records are readable by its SQL, copied by backups of its database and sent by sync;
/// its secrets (a bank token, a login ticket) must be none of these, so they live here, keyed by
/// plugin. The file is created readable by its owner only (mode 0600). Values are not encrypted:
/// a key would have to sit on the same disk; the file's mode and its separation from records are
/// what protects them, as with an SSH key. No method here logs a value.
///
/// A secret removed or replaced leaves no readable copy behind: `secure_delete` makes SQLite
/// overwrite deleted content with zeros (in the page and in freed pages), and every change ends
/// with a `TRUNCATE` checkpoint, which copies the write-ahead log into the file and cuts the log to
/// nothing, so the old value's frames are gone from `secrets.sqlite-wal` too.
public final class SecretStore: Sendable {
    /// The file.
    public let path: String
    private let opened = Mutex<SQLiteDatabase?>(nil)

    /// A store at `path`, opened (and created, owner-only) on first use: most hosts never keep a
    /// secret, and an open SQLite file is three descriptors.
    public init(path: String) throws {
        self.path = path
    }

    /// The database, opened on first use.
    private var database: SQLiteDatabase {
        get throws {
            try opened.withLock { opened in
                if let opened { return opened }
                let database = try Self.open(path)
                opened = database
                return database
            }
        }
    }

    private static func open(_ path: String) throws -> SQLiteDatabase {
        if !FileManager.default.fileExists(atPath: path) {
            // Created 0600 before SQLite opens it, so there is no moment it is readable by others.
            let fd = Glibc.open(path, O_CREAT | O_WRONLY | O_EXCL, 0o600)
            if fd >= 0 { close(fd) }
        }
        let database = try SQLiteDatabase(path: path)
        // Removed values are overwritten, not only unlinked from the b-tree (docs/http-client.md).
        try database.withConnection { db in try db.execute("PRAGMA secure_delete=ON") }
        try database.migrate(SecretStoreSchema.schema)
        return database
    }

    /// The value of a plugin's secret, or `nil`.
    public func value(plugin: String, name: String) throws -> String? {
        try database.withConnection { db in
            try db.cachedStatement("SELECT value FROM secrets WHERE plugin = ? AND name = ?")
                .fetchOne([.text(plugin), .text(name)])?.first?.text
        }
    }

    /// Stores a plugin's secret, replacing one of the same name; durable when it returns.
    public func set(plugin: String, name: String, value: String, at time: Date) throws {
        try database.withConnection { db in
            try db.cachedStatement("INSERT OR REPLACE INTO secrets (plugin, name, value, updated_at) VALUES (?, ?, ?, ?)")
                .execute([.text(plugin), .text(name), .text(value), .real(time.timeIntervalSince1970)])
            try Self.emptyTheLog(db)  // the value it replaced
        }
    }

    /// Forgets a plugin's secret; whether there was one.
    @discardableResult
    public func remove(plugin: String, name: String) throws -> Bool {
        try database.withConnection { db in
            try db.cachedStatement("DELETE FROM secrets WHERE plugin = ? AND name = ?").execute([.text(plugin), .text(name)])
            let removed = db.changes > 0
            try Self.emptyTheLog(db)
            return removed
        }
    }

    /// Copies the write-ahead log into the database and truncates it to zero bytes, so no frame
    /// holding an old value stays in `secrets.sqlite-wal`. The checkpoint waits (the busy timeout)
    /// for a reader in another process, e.g. `tessera secrets list`; if one still holds it, the
    /// change stands and the next change's checkpoint empties the log.
    private static func emptyTheLog(_ db: SQLiteConnection) throws {
        _ = try db.fetchOne("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// A plugin's secret names with when each was last set, sorted by name.
    public func names(plugin: String) throws -> [(name: String, updatedAt: Date)] {
        try database.withConnection { db in
            try db.cachedStatement("SELECT name, updated_at FROM secrets WHERE plugin = ? ORDER BY name")
                .fetchAll([.text(plugin)])
                .map { ($0[0].text ?? "", Date(timeIntervalSince1970: $0[1].real ?? 0)) }
        }
    }

    /// Every plugin's secret names (never values): for `tessera secrets list`.
    public func allNames() throws -> [(plugin: String, name: String, updatedAt: Date)] {
        try database.withConnection { db in
            try db.fetchAll("SELECT plugin, name, updated_at FROM secrets ORDER BY plugin, name")
                .map { ($0[0].text ?? "", $0[1].text ?? "", Date(timeIntervalSince1970: $0[2].real ?? 0)) }
        }
    }
}
