import TesseraSQLite

/// The tables of `<data>/files.sqlite`, as versioned migrations (docs/storage.md, "The host's own
/// stores"). Never edit a shipped step: add one.
///
/// `files`: each plugin's stored files (a row exists only once the bytes are durable under their
/// address); `created_at` is when the file was last put, for the grace period of unlinked files.
/// `links`: which records refer to which file. `pending_uploads`: files a sync round could not
/// send to the hub yet.
enum FileIndexSchema {
    static let schema = StoreSchema(store: "files", migrations: [
        StoreMigration(version: 1, sql: """
            CREATE TABLE IF NOT EXISTS files (
                plugin TEXT NOT NULL, address TEXT NOT NULL, size INTEGER NOT NULL, media_type TEXT NOT NULL,
                created_at REAL NOT NULL, PRIMARY KEY (plugin, address)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS links (
                plugin TEXT NOT NULL, address TEXT NOT NULL, table_name TEXT NOT NULL, record_id TEXT NOT NULL,
                PRIMARY KEY (plugin, address, table_name, record_id)) WITHOUT ROWID;
            """),
        // Files whose upload to the hub failed (a quota, the network): retried at each round.
        StoreMigration(version: 2, sql: """
            CREATE TABLE IF NOT EXISTS pending_uploads (
                plugin TEXT NOT NULL, address TEXT NOT NULL, PRIMARY KEY (plugin, address)) WITHOUT ROWID;
            """),
    ])
}
