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
        // One row per batch instead of one per change (issue 25: a second B-tree insert for every
        // row set the record API's ceiling). What was logged before stays in `_tessera_changes`;
        // sequence numbers run on from it. (No view joins the two: a view calling the JSON
        // functions is refused on connections that do not trust the schema, as the host's are.)
        StoreMigration(version: 2, sql: """
            CREATE TABLE _tessera_change_batches(
                seq INTEGER PRIMARY KEY,
                count INTEGER NOT NULL CHECK (count > 0),
                at TEXT NOT NULL,
                changes TEXT NOT NULL);
            """),
    ])
}
