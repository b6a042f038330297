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
    /// The tables as versioned migrations of the `sync` store (docs/storage.md, "The host's own
    /// stores"). Timestamps are the 46-character collatable texts: their byte order is time order,
    /// so the log is read in time order straight from its key. `value` has no declared type, so
    /// SQLite keeps each value in the storage class it was given. Never edit a shipped step: add one.
    static let schema = StoreSchema(store: "sync", migrations: [
        StoreMigration(version: 1, sql: """
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
            """),
        // Changes this replica made in spaces it dropped (a departure, a logout) may come back
        // from the hub when the person joins again or logs in again: own-node changes up to this
        // reading are then not taken for a copied database's (``SyncError/sharedNode``).
        StoreMigration(version: 2, sql: """
            ALTER TABLE _tessera_sync_clock ADD COLUMN forgotten_until TEXT;
            """),
    ])
}
