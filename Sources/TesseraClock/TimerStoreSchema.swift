import TesseraSQLite

/// The tables of `<data>/host.sqlite`: the persisted timers and the virtual clock's time, as
/// versioned migrations (docs/storage.md, "The host's own stores"). Never edit a shipped step: add one.
enum TimerStoreSchema {
    static let schema = StoreSchema(store: "clock", migrations: [
        StoreMigration(version: 1, sql: """
            CREATE TABLE IF NOT EXISTS timers (
                plugin TEXT NOT NULL, key TEXT NOT NULL, name TEXT NOT NULL, fire_at REAL NOT NULL,
                payload TEXT NOT NULL, every_seconds INTEGER, attempts INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (plugin, key));
            CREATE INDEX IF NOT EXISTS timers_by_time ON timers (fire_at, plugin, key);
            CREATE TABLE IF NOT EXISTS virtual_clock (id INTEGER PRIMARY KEY CHECK (id = 1), now REAL NOT NULL);
            """),
    ])
}
