import TesseraSQLite

/// The tables of `<data>/sync-peers.sqlite` — pull cursors, push marks, changes a plugin was not
/// told of — as versioned migrations (docs/storage.md, "The host's own stores"). Never edit a
/// shipped step: add one.
enum SyncPeerStateSchema {
    static let schema = StoreSchema(store: "sync-peers", migrations: [
        StoreMigration(version: 1, sql: """
            CREATE TABLE IF NOT EXISTS cursors (hub TEXT NOT NULL, plugin TEXT NOT NULL, space TEXT NOT NULL,
                cursor INTEGER NOT NULL, PRIMARY KEY (hub, plugin, space)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS pushed (hub TEXT NOT NULL, plugin TEXT NOT NULL, space TEXT NOT NULL,
                timestamp TEXT NOT NULL, PRIMARY KEY (hub, plugin, space)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS untold (plugin TEXT PRIMARY KEY, changes BLOB NOT NULL) WITHOUT ROWID;
            """),
        // Shared spaces a plugin created while the hub was out of reach: registered (with their
        // names) by the next round, then forgotten.
        StoreMigration(version: 2, sql: """
            CREATE TABLE IF NOT EXISTS unregistered_spaces (hub TEXT NOT NULL, plugin TEXT NOT NULL, space TEXT NOT NULL,
                name TEXT NOT NULL, PRIMARY KEY (hub, plugin, space)) WITHOUT ROWID;
            """),
        // Per-plugin roles (docs/sync.md): this person's plugin role in each shared space and the
        // space's rules, from the hub's last spaces answer; and the rows this person created in
        // each space (made here, or by the hub's list), which an `own` rule lets them change.
        StoreMigration(version: 3, sql: """
            CREATE TABLE IF NOT EXISTS space_roles (hub TEXT NOT NULL, plugin TEXT NOT NULL, space TEXT NOT NULL,
                plugin_role TEXT, rules TEXT, PRIMARY KEY (hub, plugin, space)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS own_rows (hub TEXT NOT NULL, plugin TEXT NOT NULL, space TEXT NOT NULL,
                tbl TEXT NOT NULL, row_id TEXT NOT NULL, PRIMARY KEY (hub, plugin, space, tbl, row_id)) WITHOUT ROWID;
            """),
    ])
}
