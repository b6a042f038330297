import Foundation
import TesseraSDK
import TesseraSQLite

extension SQLitePluginStorage {
    /// Brings the plugin's schema up to date: applies, in order, every migration not yet applied.
    ///
    /// The host calls it before it starts the plugin. It is the host stores' runner
    /// (``SQLiteConnection/migrate(_:of:in:legacyVersion:run:applied:)``) with the plugin's own
    /// records, `_tessera_migrations` (version, its SQL, time applied): versions must be 1...n,
    /// listed in order, each once, and each pending migration runs in its own transaction together
    /// with its record, so a crash leaves it either applied and recorded, or neither. Migration SQL
    /// runs under the plugin's rules: it may not attach databases, change pragmas, control
    /// transactions, or touch the host's `_tessera_*` tables.
    ///
    /// - Throws: ``StoreMigrationError`` naming the plugin and its file: for a malformed list,
    ///   before anything runs; if an applied migration's SQL changed, or the database is ahead of
    ///   the plugin, before anything runs; if a step fails, after rolling that step back (the steps
    ///   before it stay applied).
    public func migrate(_ migrations: [StorageMigration]) throws {
        let version = try writer.withConnection { connection throws -> Int in
            // Table shapes are read again after any DDL, and the applied migrations too.
            defer { state.withLock { $0.tables.removeAll(); $0.appliedMigrations = nil } }
            return try connection.migrate(migrations.map(StoreMigration.init), of: migrationSubject, in: Self.ledger(now: now),
                                          run: runAsPlugin) { version in
                state.withLock { $0.schemaVersion = version }
            }
        }
        state.withLock { $0.schemaVersion = version }
    }

    /// How errors name this database.
    var migrationSubject: StoreMigrationError.Subject { .plugin(pluginID, path: path) }

    /// The plugin's records of its applied migrations, each stamped with the host's clock when it
    /// is recorded. The table is the host's `storage` schema's (version 1), made when the database
    /// opens, before any plugin migration runs.
    static func ledger(now: @escaping @Sendable () -> Date) -> MigrationLedger {
        MigrationLedger(table: "_tessera_migrations", create: nil, selectApplied: selectApplied) { migration in
            ("INSERT INTO _tessera_migrations(version, sql, applied_at) VALUES (?, ?, ?)",
             [.integer(Int64(migration.version)), .text(migration.sql), .text(ChangeLogCoding.text(of: now()))])
        }
    }

    /// Runs a step's SQL under the plugin's rules; a statement the rules refuse fails with the
    /// rule's sentence rather than SQLite's "not authorized".
    private func runAsPlugin(_ connection: SQLiteConnection, _ migration: StoreMigration) throws {
        _ = sqlGuard.takeRefusal()
        do { try sqlGuard.asPlugin { try connection.execute(migration.sql) } } catch let error as SQLiteError {
            guard let refusal = sqlGuard.takeRefusal() else { throw error }
            throw SQLiteError(extendedCode: error.extendedCode, message: refusal, sql: error.sql)
        }
    }
}

extension StoreMigration {
    /// A plugin's migration, as the runner takes it.
    init(_ migration: StorageMigration) { self.init(version: migration.version, sql: migration.sql) }
}
