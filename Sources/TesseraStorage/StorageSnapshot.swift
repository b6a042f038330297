import Foundation
import TesseraSDK
import TesseraSQLite

/// A copy of a plugin's database taken before the host changes its schema, so that the change can
/// be taken back whole: a hot swap whose new generation fails after its migrations ran puts the
/// database back as the serving generation knew it (docs/hot-swap.md).
///
/// The copy is a file beside the database (`storage.sqlite.before-swap`), removed by
/// ``discard()`` or after ``SQLitePluginStorage/restore(_:)``.
public struct StorageSnapshot: Sendable {
    /// The copy's file.
    public let path: String
    /// The schema version the database had when the copy was taken.
    public let schemaVersion: Int

    /// Removes the copy.
    public func discard() { Self.remove(path) }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

extension SQLitePluginStorage {
    /// Copies the database to ``StorageSnapshot/path`` (online: writers wait for the copy's length).
    public func snapshot() throws -> StorageSnapshot {
        let copy = path + ".before-swap"
        StorageSnapshot.remove(copy)  // a copy a crash left behind
        let version = schemaVersion
        try writer.withConnection { connection in
            let target = try SQLiteConnection(path: copy, mode: .readWriteCreate)
            try connection.copyDatabase(to: target)
        }
        return StorageSnapshot(path: copy, schemaVersion: version)
    }

    /// Puts the database back as it was when `snapshot` was taken, and removes the copy.
    public func restore(_ snapshot: StorageSnapshot) throws {
        try writer.withConnection { connection in
            let source = try SQLiteConnection(path: snapshot.path, mode: .readOnly)
            try source.copyDatabase(to: connection)
            connection.clearStatementCache()
        }
        state.withLock {
            $0.tables.removeAll()
            $0.schemaVersion = snapshot.schemaVersion
            $0.appliedMigrations = nil
            // Set again by the next ``limitSize(toMegabytes:)``, whatever the copy did to the connection.
            $0.quotaMegabytes = nil
        }
        snapshot.discard()
    }

    /// How many of `migrations` the database has not applied yet, after the same checks as
    /// ``migrate(_:)`` (versions 1...n in order; applied ones unchanged; the database not ahead).
    /// Reads only: nothing is applied.
    public func pendingMigrations(_ migrations: [StorageMigration]) throws -> Int {
        let plan = try MigrationPlan(migrations.map(StoreMigration.init), of: migrationSubject)
        // Read when the database opened, unless migrations ran or a copy was put back since.
        let applied = try state.withLock { $0.appliedMigrations } ?? writer.withConnection { connection in
            let applied = try Self.appliedMigrations(connection)
            state.withLock { $0.appliedMigrations = applied }
            return applied
        }
        return try plan.pending(applied: applied).count
    }

    /// The events batches may emit and what is told after a commit that stored some: the rules
    /// ``allowEvents(_:committed:)`` set, to put back if a new generation's are taken back.
    public var eventRules: (names: Set<String>?, committed: (@Sendable () -> Void)?) {
        state.withLock { ($0.emittable, $0.eventsCommitted) }
    }

    /// Puts back rules read from ``eventRules``.
    public func restoreEventRules(_ rules: (names: Set<String>?, committed: (@Sendable () -> Void)?)) {
        state.withLock {
            $0.emittable = rules.names
            $0.eventsCommitted = rules.committed
        }
    }
}
