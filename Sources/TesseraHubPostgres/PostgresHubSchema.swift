import TesseraHub

/// The hub's tables in PostgreSQL: the same tables, columns and keys as the embedded store's
/// (`HubSchema` in TesseraHub), in PostgreSQL's types, so one body of SQL serves both.
///
/// The version is kept in `hub_schema` (PostgreSQL has no `user_version`). Version 1 holds what
/// the SQLite store's version 2 holds.
enum PostgresHubSchema {
    static let version: Int64 = 1

    static let script = [
        "CREATE TABLE IF NOT EXISTS hub_schema(version BIGINT NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS hub_people(
            id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL, created_ms BIGINT NOT NULL)
        """,
        // `rowid` is named as SQLite's implicit one: devices are listed in the order they logged in.
        """
        CREATE TABLE IF NOT EXISTS hub_devices(
            rowid BIGINT GENERATED ALWAYS AS IDENTITY, id TEXT PRIMARY KEY, person TEXT NOT NULL REFERENCES hub_people(id),
            name TEXT NOT NULL, token_sha256 BYTEA NOT NULL UNIQUE, created_ms BIGINT NOT NULL, last_used_ms BIGINT)
        """,
        """
        CREATE TABLE IF NOT EXISTS hub_spaces(
            id TEXT PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('personal', 'shared')),
            deleted INTEGER NOT NULL DEFAULT 0, created_ms BIGINT NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS hub_members(
            space TEXT NOT NULL REFERENCES hub_spaces(id), person TEXT NOT NULL REFERENCES hub_people(id),
            role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), PRIMARY KEY (space, person))
        """,
        "CREATE INDEX IF NOT EXISTS hub_members_person ON hub_members(person)",
        """
        CREATE TABLE IF NOT EXISTS hub_departures(
            space TEXT NOT NULL, person TEXT NOT NULL, reason TEXT NOT NULL, at_ms BIGINT NOT NULL, PRIMARY KEY (space, person))
        """,
        """
        CREATE TABLE IF NOT EXISTS hub_invitations(
            code_sha256 BYTEA PRIMARY KEY, space TEXT NOT NULL REFERENCES hub_spaces(id),
            role TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer')), inviter TEXT NOT NULL,
            expires_ms BIGINT NOT NULL, accepted_by TEXT)
        """,
        // seq is the arrival order. A sequence never hands a number out twice; pushes of one plugin
        // hold its advisory lock until they commit, so numbers also commit in order.
        """
        CREATE TABLE IF NOT EXISTS hub_changes(
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, plugin TEXT NOT NULL, space TEXT NOT NULL,
            ts TEXT NOT NULL, col TEXT NOT NULL, record BYTEA NOT NULL, UNIQUE (plugin, space, ts, col))
        """,
        "CREATE INDEX IF NOT EXISTS hub_changes_pull ON hub_changes(plugin, seq)",
        """
        CREATE TABLE IF NOT EXISTS hub_merkle(
            plugin TEXT NOT NULL, space TEXT NOT NULL, prefix TEXT NOT NULL, hash BIGINT NOT NULL,
            PRIMARY KEY (plugin, space, prefix))
        """,
    ]

    /// Creates the tables and records the version; refuses a database a newer hub made.
    static func prepare(on sql: any HubSQL, nowMillis: Int64) async throws {
        for statement in script { try await sql.execute(statement, []) }
        let stored = try await sql.fetchAll("SELECT version FROM hub_schema", []).first?.first?.integer
        switch stored {
        case nil:
            try await sql.execute("INSERT INTO hub_schema(version) VALUES (?)", [.integer(version)])
        case let found? where found > version:
            throw SchemaTooNew(found: found, known: version)
        default:
            break  // upgrades from older versions go here as they come
        }
    }

    struct SchemaTooNew: Error, CustomStringConvertible {
        let found: Int64
        let known: Int64
        var description: String {
            "the hub's PostgreSQL database is at schema version \(found), newer than this tessera's \(known): run a newer tessera"
        }
    }
}
