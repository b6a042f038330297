import TesseraSQLite

/// The table of `<data>/secrets.sqlite`, as versioned migrations (docs/storage.md, "The host's own
/// stores"). Never edit a shipped step: add one.
enum SecretStoreSchema {
    static let schema = StoreSchema(store: "secrets", migrations: [
        StoreMigration(version: 1, sql: """
            CREATE TABLE IF NOT EXISTS secrets (
                plugin TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, updated_at REAL NOT NULL,
                PRIMARY KEY (plugin, name)) WITHOUT ROWID;
            """),
    ])
}
