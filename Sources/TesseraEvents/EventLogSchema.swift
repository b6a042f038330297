import TesseraSQLite

/// The tables of `<data>/events.sqlite` — the published events and each subscriber's cursor — as
/// versioned migrations (docs/storage.md, "The host's own stores"). Never edit a shipped step: add one.
enum EventLogSchema {
    static let schema = StoreSchema(store: "events", migrations: [
        StoreMigration(version: 1, sql: """
            CREATE TABLE IF NOT EXISTS events (
                publisher TEXT NOT NULL, seq INTEGER NOT NULL, name TEXT NOT NULL, payload TEXT NOT NULL,
                published_at REAL NOT NULL, origin INTEGER,
                PRIMARY KEY (publisher, seq), UNIQUE (publisher, origin));
            CREATE TABLE IF NOT EXISTS cursors (
                subscriber TEXT NOT NULL, publisher TEXT NOT NULL, delivered INTEGER NOT NULL DEFAULT 0,
                attempts INTEGER NOT NULL DEFAULT 0, retry_at REAL, last_error TEXT,
                PRIMARY KEY (subscriber, publisher));
            """),
    ])
}
