import CSQLite

extension SQLiteConnection {
    /// Copies this connection's `main` database, page by page, over `destination`'s `main`
    /// database with SQLite's online backup API (`sqlite3_backup_*`), in one step.
    ///
    /// The destination afterwards holds exactly the source's schema and rows; its other
    /// connections see the copy as one committed change. The host uses it to keep a plugin's
    /// database as it was before a schema change, and to put it back if the change is rolled back.
    ///
    /// - Throws: ``SQLiteError`` with SQLite's message if the copy cannot start or finish (for
    ///   example, a transaction is open on the destination).
    public func copyDatabase(to destination: SQLiteConnection) throws {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(destination.handle),
                              message: "backup: " + String(cString: sqlite3_errmsg(destination.handle)))
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE, finished == SQLITE_OK else {
            throw SQLiteError(extendedCode: stepped == SQLITE_DONE ? finished : stepped,
                              message: "backup: " + String(cString: sqlite3_errmsg(destination.handle)))
        }
    }
}
