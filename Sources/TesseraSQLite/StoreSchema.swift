/// One step of a host store's schema: a version and the SQL that brings the store from the
/// version before it to this one.
///
/// A step is applied once, in its own transaction together with its record in `_tessera_schema`,
/// and never edited after it shipped: a change to a store's tables is a new step. The SQL may name
/// parameters (`:now_ms`) that the store binds when it opens (``StoreSchema/parameters``).
public struct StoreMigration: Sendable, Hashable {
    /// 1, 2, 3, … in the order the steps run.
    public let version: Int
    /// One or more statements separated by semicolons.
    public let sql: String

    public init(version: Int, sql: String) {
        self.version = version
        self.sql = sql
    }
}

/// The ordered migrations of one of the host's own stores (the clock's timers, the notifications,
/// the event log, the secrets, a plugin database's sync tables, the sync peers' state, the hub),
/// and how to recognise a database written before the stores were versioned.
///
/// ``SQLiteConnection/migrate(_:parameters:nowMillis:)`` brings an SQLite file up to date; the
/// hub runs the same rules on its `HubDatabase` (SQLite or PostgreSQL). See docs/storage.md,
/// "The host's own stores".
public struct StoreSchema: Sendable {
    /// The store's name: its key in `_tessera_schema`, and how errors name it.
    public let store: String
    /// Versions 1…n, in order, each once. Version 1 is the schema the store had before it was
    /// versioned, written so that it is safe to run on a database that already holds it
    /// (`CREATE … IF NOT EXISTS`).
    public let migrations: [StoreMigration]
    /// For a store whose database written before versioning may be past version 1 (the hub kept
    /// its own `user_version`): the version such a database is at, read from it, or 0. Those steps
    /// are recorded without running. Asked only while `_tessera_schema` holds nothing of the store.
    public let legacyVersion: (@Sendable (SQLiteConnection) throws -> Int)?

    public init(store: String, migrations: [StoreMigration],
                legacyVersion: (@Sendable (SQLiteConnection) throws -> Int)? = nil) {
        self.store = store
        self.migrations = migrations
        self.legacyVersion = legacyVersion
    }

    /// The version this code brings the store to.
    public var latestVersion: Int { migrations.count }
}
