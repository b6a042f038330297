import TesseraSQLite

/// The host's tables inside each plugin's database — the plugin's applied migrations, the change
/// log, the event outbox — as versioned migrations of the `storage` store (docs/storage.md, "The
/// host's own stores"). Never edit a shipped step: add one.
enum PluginStorageSchema {
    static let schema = StoreSchema(store: "storage", migrations: [
        StoreMigration(version: 1, sql: """
            CREATE TABLE IF NOT EXISTS _tessera_migrations(
                version INTEGER PRIMARY KEY,
                sql TEXT NOT NULL,
                applied_at TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS _tessera_changes(
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                batch INTEGER NOT NULL,
                tbl TEXT NOT NULL,
                row_id TEXT NOT NULL,
                op TEXT NOT NULL CHECK (op IN ('put', 'patch', 'delete')),
                cells TEXT NOT NULL,
                at TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS _tessera_outbox(
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                name TEXT NOT NULL,
                payload TEXT NOT NULL,
                at TEXT NOT NULL);
            """),
    ])
}
