import TesseraSQLite

/// The hub's tables in `<data>/hub.sqlite` (the PostgreSQL store's are in `TesseraHubPostgres`,
/// the same tables in PostgreSQL's types). Secrets appear only as hashes: passwords as yescrypt
/// text, device tokens and invitation codes as their SHA-256.
enum HubSchema {
    /// 2 added `hub_devices.last_used_ms` (tokens expire after a long time unused).
    static let version: Int64 = 2

    static let script = """
        CREATE TABLE IF NOT EXISTS hub_people(
            id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL, created_ms INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS hub_devices(
            id TEXT PRIMARY KEY, person TEXT NOT NULL REFERENCES hub_people(id), name TEXT NOT NULL,
            token_sha256 BLOB NOT NULL UNIQUE, created_ms INTEGER NOT NULL, last_used_ms INTEGER);
        CREATE TABLE IF NOT EXISTS hub_spaces(
            id TEXT PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('personal', 'shared')),
            deleted INTEGER NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS hub_members(
            space TEXT NOT NULL REFERENCES hub_spaces(id), person TEXT NOT NULL REFERENCES hub_people(id),
            role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), PRIMARY KEY (space, person));
        CREATE INDEX IF NOT EXISTS hub_members_person ON hub_members(person);
        CREATE TABLE IF NOT EXISTS hub_departures(
            space TEXT NOT NULL, person TEXT NOT NULL, reason TEXT NOT NULL, at_ms INTEGER NOT NULL, PRIMARY KEY (space, person));
        CREATE TABLE IF NOT EXISTS hub_invitations(
            code_sha256 BLOB PRIMARY KEY, space TEXT NOT NULL REFERENCES hub_spaces(id),
            role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), inviter TEXT NOT NULL,
            expires_ms INTEGER NOT NULL, accepted_by TEXT);
        -- Every change once per (plugin, space, timestamp, column); seq is the arrival order
        -- (AUTOINCREMENT: a sequence number is never reused, so a cursor never skips a change).
        CREATE TABLE IF NOT EXISTS hub_changes(
            seq INTEGER PRIMARY KEY AUTOINCREMENT, plugin TEXT NOT NULL, space TEXT NOT NULL,
            ts TEXT NOT NULL, col TEXT NOT NULL, record BLOB NOT NULL, UNIQUE (plugin, space, ts, col));
        CREATE INDEX IF NOT EXISTS hub_changes_pull ON hub_changes(plugin, seq);
        CREATE TABLE IF NOT EXISTS hub_merkle(
            plugin TEXT NOT NULL, space TEXT NOT NULL, prefix TEXT NOT NULL, hash INTEGER NOT NULL,
            PRIMARY KEY (plugin, space, prefix)) WITHOUT ROWID;
        """

    /// Creates the tables, or brings an older hub's up to this version; `nowMillis` is the hub's clock.
    static func createSQLite(on connection: SQLiteConnection, nowMillis: Int64) throws {
        let existing = try connection.fetchOne("PRAGMA user_version")?.first?.integer ?? 0
        let hasTables = try connection.fetchOne("SELECT 1 FROM sqlite_schema WHERE name = 'hub_devices'") != nil
        try connection.execute(script)
        if hasTables && existing < 2 {
            // A hub made before version 2: its devices count as used when the upgrade runs.
            try connection.execute("ALTER TABLE hub_devices ADD COLUMN last_used_ms INTEGER")
            try connection.execute("UPDATE hub_devices SET last_used_ms = ?", [.integer(nowMillis)])
        }
        try connection.execute("PRAGMA user_version = \(version)")
    }
}
