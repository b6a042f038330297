import TesseraSQLite

/// The sync metadata tables, kept **inside the plugin's own database** beside its tables.
///
/// Inside rather than beside it, so that a record write and its stamped changes, or a remote batch
/// and the rows it changes, commit in one SQLite transaction: there is no moment, even across a
/// crash, when the plugin's rows and the sync metadata disagree. The `_tessera_` prefix is the
/// host's: the storage capability lets a plugin read these tables but never change them.
///
/// | table | one row per | holds |
/// |---|---|---|
/// | `_tessera_sync_clock` | database | this replica's node and its clock's last reading |
/// | `_tessera_sync_rows` | synced row ever seen | its space and causal length (an even length is the row's tombstone) |
/// | `_tessera_sync_cells` | written cell | the causal length and timestamp of the write that won it |
/// | `_tessera_sync_versions` | kept conflict value | values of keep-conflicts cells no write superseded, and markers of superseded writes not yet received |
/// | `_tessera_sync_messages` | change | the message log, per space: every change made here or received, to send on and to dedupe |
/// | `_tessera_sync_merkle` | trie node, per space | the merkle trie of the space's message log |
enum SyncSchema {
    /// The tables' names: their presence tells whether the schema must be created.
    static let tables = [
        "_tessera_sync_clock", "_tessera_sync_rows", "_tessera_sync_cells", "_tessera_sync_versions",
        "_tessera_sync_messages", "_tessera_sync_merkle",
    ]

    /// Creates the tables that are missing (in the caller's transaction).
    static func create(on connection: SQLiteConnection) throws {
        // Timestamps are the 46-character collatable texts: their byte order is time order, so the
        // log is read in time order straight from its key. `value` has no declared type, so SQLite
        // keeps each value in the storage class it was given.
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS _tessera_sync_clock(
                id INTEGER PRIMARY KEY CHECK (id = 1),
                node TEXT NOT NULL,
                last TEXT);
            CREATE TABLE IF NOT EXISTS _tessera_sync_rows(
                tbl TEXT NOT NULL,
                row_id TEXT NOT NULL,
                space TEXT NOT NULL,
                cl INTEGER NOT NULL,
                PRIMARY KEY (tbl, row_id)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS _tessera_sync_cells(
                tbl TEXT NOT NULL,
                row_id TEXT NOT NULL,
                col TEXT NOT NULL,
                cl INTEGER NOT NULL,
                ts TEXT NOT NULL,
                PRIMARY KEY (tbl, row_id, col)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS _tessera_sync_versions(
                tbl TEXT NOT NULL,
                row_id TEXT NOT NULL,
                col TEXT NOT NULL,
                ts TEXT NOT NULL,
                known INTEGER NOT NULL,
                cl INTEGER,
                value,
                PRIMARY KEY (tbl, row_id, col, ts)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS _tessera_sync_messages(
                space TEXT NOT NULL,
                ts TEXT NOT NULL,
                col TEXT NOT NULL,
                tbl TEXT NOT NULL,
                row_id TEXT NOT NULL,
                cl INTEGER NOT NULL,
                value,
                supersedes TEXT,
                PRIMARY KEY (space, ts, col)) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS _tessera_sync_merkle(
                space TEXT NOT NULL,
                prefix TEXT NOT NULL,
                hash INTEGER NOT NULL,
                PRIMARY KEY (space, prefix)) WITHOUT ROWID;
            """)
    }

    /// Whether every table exists.
    static func exists(on connection: SQLiteConnection) throws -> Bool {
        let marks = tables.map { _ in "?" }.joined(separator: ", ")
        let count = try connection.fetchOne(
            "SELECT COUNT(*) FROM main.sqlite_schema WHERE type = 'table' AND name IN (\(marks))",
            tables.map { .text($0) })?.first?.integer ?? 0
        return count == tables.count
    }
}
