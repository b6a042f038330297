import TesseraSQLite

/// The statements a merge session runs once or more per change, prepared once per session.
///
/// Held rather than looked up in the connection's statement cache each time: the cache is keyed by
/// the SQL text, and hashing these texts on every change cost more than running some of them.
struct SessionStatements {
    /// Stores a change unless the log has it (see ``MessageLog``).
    let logInsert: Statement
    /// A row's space and causal length.
    let rowSelect: Statement
    /// A cell's winning causal length and timestamp.
    let cellSelect: Statement
    /// The value a change wrote to a cell, by the change's space, timestamp and column.
    let valueSelect: Statement
    /// Writes a row's causal length.
    let rowUpsert: Statement
    /// Writes a cell's winner.
    let cellUpsert: Statement

    init(_ connection: SQLiteConnection) throws {
        logInsert = try connection.cachedStatement("""
            INSERT INTO _tessera_sync_messages(space, ts, col, tbl, row_id, cl, value, supersedes)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
            """)
        rowSelect = try connection.cachedStatement("SELECT space, cl FROM _tessera_sync_rows WHERE tbl = ? AND row_id = ?")
        cellSelect = try connection.cachedStatement("SELECT cl, ts FROM _tessera_sync_cells WHERE tbl = ? AND row_id = ? AND col = ?")
        valueSelect = try connection.cachedStatement("SELECT value FROM _tessera_sync_messages WHERE space = ? AND ts = ? AND col = ?")
        rowUpsert = try connection.cachedStatement("""
            INSERT INTO _tessera_sync_rows(tbl, row_id, space, cl) VALUES (?, ?, ?, ?)
            ON CONFLICT (tbl, row_id) DO UPDATE SET cl = excluded.cl
            """)
        cellUpsert = try connection.cachedStatement("""
            INSERT INTO _tessera_sync_cells(tbl, row_id, col, cl, ts) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (tbl, row_id, col) DO UPDATE SET cl = excluded.cl, ts = excluded.ts
            """)
    }
}
