import TesseraSQLite

/// The tables of `<data>/notifications.sqlite` — schedules, inbox, outbound deliveries, counters —
/// as versioned migrations (docs/storage.md, "The host's own stores"). Never edit a shipped step: add one.
enum NotificationStoreSchema {
    static let schema = StoreSchema(store: "notifications", migrations: [
        StoreMigration(version: 1, sql: """
            CREATE TABLE IF NOT EXISTS schedules (
                plugin TEXT NOT NULL, key TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL,
                payload TEXT NOT NULL, recipient TEXT NOT NULL,
                at REAL, rule TEXT, start REAL, tz TEXT, next_due REAL,
                PRIMARY KEY (plugin, key));
            CREATE INDEX IF NOT EXISTS schedules_by_due ON schedules (next_due) WHERE next_due IS NOT NULL;
            CREATE TABLE IF NOT EXISTS inbox (
                id INTEGER PRIMARY KEY AUTOINCREMENT, plugin TEXT NOT NULL, key TEXT NOT NULL,
                recipient TEXT NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, payload TEXT NOT NULL,
                due_at REAL NOT NULL, delivered_at REAL NOT NULL, late INTEGER NOT NULL, read_at REAL,
                UNIQUE (plugin, key, due_at, recipient));
            CREATE TABLE IF NOT EXISTS outbound (
                id INTEGER PRIMARY KEY AUTOINCREMENT, sink TEXT NOT NULL, idempotency_key TEXT NOT NULL,
                body TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, next_attempt REAL NOT NULL,
                state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'dropped')),
                last_error TEXT, UNIQUE (sink, idempotency_key));
            CREATE INDEX IF NOT EXISTS outbound_pending ON outbound (next_attempt) WHERE state = 'pending';
            CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
            """),
        // Notifications to a space's members: queued for the hub (relay, one row per occurrence by
        // its idempotency key), and the hub's cursor of what this host has fetched.
        StoreMigration(version: 2, sql: """
            CREATE TABLE IF NOT EXISTS relay (
                id INTEGER PRIMARY KEY AUTOINCREMENT, idempotency_key TEXT NOT NULL UNIQUE, plugin TEXT NOT NULL,
                key TEXT NOT NULL, space TEXT NOT NULL, others INTEGER NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL,
                payload TEXT NOT NULL, due_at REAL NOT NULL, late INTEGER NOT NULL, created_at REAL NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0, next_attempt REAL NOT NULL,
                state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'dropped')), last_error TEXT);
            CREATE INDEX IF NOT EXISTS relay_pending ON relay (next_attempt) WHERE state = 'pending';
            CREATE TABLE IF NOT EXISTS relay_cursor (hub TEXT PRIMARY KEY, cursor INTEGER NOT NULL);
            """),
        // SDK 1.8: a notification's priority and its catalogue message (JSON), carried from the
        // schedule to the inbox and the hub.
        StoreMigration(version: 3, sql: """
            ALTER TABLE schedules ADD COLUMN priority TEXT NOT NULL DEFAULT 'normal';
            ALTER TABLE schedules ADD COLUMN message TEXT;
            ALTER TABLE inbox ADD COLUMN priority TEXT NOT NULL DEFAULT 'normal';
            ALTER TABLE inbox ADD COLUMN message TEXT;
            ALTER TABLE relay ADD COLUMN priority TEXT NOT NULL DEFAULT 'normal';
            ALTER TABLE relay ADD COLUMN message TEXT;
            """),
    ])
}
