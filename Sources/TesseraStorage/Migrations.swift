import CSQLite
import Foundation
import TesseraSDK
import TesseraSQLite

/// Why ``SQLitePluginStorage/migrate(_:)`` refused a plugin's migrations or could not apply one.
public enum StorageMigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A version below 1, at this position (from 0) of the list.
    case invalidVersion(version: Int, position: Int)
    /// The same version declared more than once.
    case duplicateVersion(Int)
    /// A gap: this version is missing below the highest declared one.
    case missingVersion(Int, declaredUpTo: Int)
    /// The list is not in version order: this version is at this position (from 0).
    case outOfOrder(version: Int, position: Int)
    /// This version was applied to the database with other SQL than the plugin now declares.
    case changedAfterApplied(version: Int)
    /// The database is at a later version than the plugin declares (written by a newer plugin).
    case databaseAhead(applied: Int, declared: Int)
    /// Applying this version failed (with SQLite's message); that step was rolled back, the earlier
    /// ones stay applied.
    case failed(version: Int, message: String)

    /// The version at fault, where there is one.
    public var version: Int? {
        switch self {
        case .invalidVersion(let v, _), .duplicateVersion(let v), .missingVersion(let v, _),
             .outOfOrder(let v, _), .changedAfterApplied(let v), .failed(let v, _):
            return v
        case .databaseAhead(let applied, _):
            return applied
        }
    }

    public var description: String {
        switch self {
        case .invalidVersion(let v, let p):
            return "migration at position \(p) has version \(v); versions start at 1"
        case .duplicateVersion(let v):
            return "migration version \(v) is declared more than once"
        case .missingVersion(let v, let n):
            return "migration version \(v) is missing; versions must run 1...\(n) without gaps"
        case .outOfOrder(let v, let p):
            return "migration version \(v) is listed at position \(p); list migrations in version order 1...n"
        case .changedAfterApplied(let v):
            return "migration \(v) was already applied to this database but its SQL has changed since; "
                + "never edit a shipped migration, add a new one"
        case .databaseAhead(let applied, let declared):
            return "the database is at schema version \(applied) but the plugin declares migrations only up to "
                + "\(declared); it was written by a newer version of the plugin"
        case .failed(let v, let message):
            return "migration \(v) failed and was rolled back: \(message)"
        }
    }

    /// Checks that `migrations` are versions 1...n, in order, each once.
    static func check(_ migrations: [StorageMigration]) throws(StorageMigrationError) {
        var seen = Set<Int>()
        for (position, migration) in migrations.enumerated() {
            if migration.version < 1 { throw .invalidVersion(version: migration.version, position: position) }
            if !seen.insert(migration.version).inserted { throw .duplicateVersion(migration.version) }
        }
        let highest = seen.max() ?? 0
        if let missing = (1...max(1, highest)).first(where: { !seen.contains($0) }), highest > 0 {
            throw .missingVersion(missing, declaredUpTo: highest)
        }
        for (position, migration) in migrations.enumerated() where migration.version != position + 1 {
            throw .outOfOrder(version: migration.version, position: position)
        }
    }
}

extension SQLitePluginStorage {
    /// Brings the plugin's schema up to date: applies, in order, every migration not yet applied.
    ///
    /// The host calls it before it starts the plugin. Versions must be 1...n, listed in order, each
    /// once. Each pending migration runs in its own transaction together with its record in
    /// `_tessera_migrations` (version, its SQL, time applied), so a crash leaves it either
    /// applied and recorded, or neither. Migration SQL runs under the plugin's rules: it may not
    /// attach databases, change pragmas, control transactions, or touch the host's `_tessera_*` tables.
    ///
    /// - Throws: ``StorageMigrationError``: for a malformed list, before anything runs; if an applied
    ///   migration's SQL changed, or the database is ahead of the plugin, before anything runs; if a
    ///   step fails, after rolling that step back (the steps before it stay applied).
    public func migrate(_ migrations: [StorageMigration]) throws {
        try StorageMigrationError.check(migrations)
        let version = try writer.withConnection { connection throws -> Int in
            defer { state.withLock { $0.tables.removeAll() } }  // refresh table shapes after any DDL
            var applied: [Int: String] = [:]
            for row in try connection.fetchAll("SELECT version, sql FROM _tessera_migrations") {
                applied[Int(row[0].integer ?? 0)] = row[1].text ?? ""
            }
            let highestApplied = applied.keys.max() ?? 0
            if highestApplied > migrations.count {
                throw StorageMigrationError.databaseAhead(applied: highestApplied, declared: migrations.count)
            }
            for migration in migrations where migration.version <= highestApplied {
                guard let appliedSQL = applied[migration.version] else {
                    throw StorageMigrationError.failed(
                        version: migration.version,
                        message: "the database records version \(highestApplied) applied but not this one")
                }
                if appliedSQL != migration.sql {
                    throw StorageMigrationError.changedAfterApplied(version: migration.version)
                }
            }
            var current = highestApplied
            if migrations.count == highestApplied { return current }
            // Formatted only when something is applied, which a restart with an up-to-date
            // database never does.
            let appliedAt = ChangeLogCoding.timestamp.format(now())
            // SQLite's procedure for schema changes: foreign keys off during the change (a table
            // rebuild would otherwise cascade or fail on DROP TABLE), checked before the commit.
            // The pragma has no effect inside a transaction, so it is set around each one.
            try connection.execute("PRAGMA foreign_keys=OFF")
            // On a failed step its error is what the caller needs, and the pragma is put back as
            // well as it can be; on success a failure to put it back is an error of its own.
            var restored = false
            defer { if !restored { try? connection.execute("PRAGMA foreign_keys=ON") } }
            for migration in migrations where migration.version > highestApplied {
                do {
                    try connection.transaction(.immediate) {
                        _ = sqlGuard.takeRefusal()
                        try sqlGuard.asPlugin { try connection.execute(migration.sql) }
                        if let violation = try connection.fetchOne("PRAGMA foreign_key_check") {
                            throw StorageMigrationError.failed(
                                version: migration.version,
                                message: "it leaves a row of \(violation[0].text ?? "?") (rowid \(violation[1].integer.map(String.init) ?? "?")) "
                                    + "referring to a missing row of \(violation[2].text ?? "?")")
                        }
                        try connection.execute(
                            "INSERT INTO _tessera_migrations(version, sql, applied_at) VALUES (?, ?, ?)",
                            [.integer(Int64(migration.version)), .text(migration.sql), .text(appliedAt)])
                    }
                } catch let error as SQLiteError {
                    var message = error.message
                    if let refusal = sqlGuard.takeRefusal() { message = refusal }
                    if let sql = error.sql { message += " (in: \(SQLiteError.oneLine(sql, limit: 200)))" }
                    throw StorageMigrationError.failed(version: migration.version, message: message)
                }
                current = migration.version
                state.withLock { $0.schemaVersion = current }
            }
            try connection.execute("PRAGMA foreign_keys=ON")
            restored = true
            return current
        }
        state.withLock { $0.schemaVersion = version }
    }
}
