import TesseraSDK
import TesseraSQLite

/// Undoing what the hub would not take, and letting go of a space.
///
/// - ``revert(_:)``: the hub refused some of this replica's changes (a viewer's writes). They leave
///   the log and the merkle trie, and each row they touched is rebuilt from the changes that
///   remain, so the table shows again what the space holds and the next round finds the space in
///   sync instead of pushing the refused changes for ever.
/// - ``dropSpace(_:)``: the person left a shared space, was removed, or it was deleted: its rows,
///   their metadata, its log and its trie go, without tombstones (nothing is sent: the space is
///   simply no longer here).
extension SyncStore {
    /// A change to take back, named as the hub names it in a refusal.
    public struct RefusedChange: Sendable, Hashable {
        public let space: String
        public let table: String
        public let row: String
        /// The change's timestamp text (``HLCTimestamp/text``).
        public let timestamp: String
        /// The column, or "" for the row's existence.
        public let column: String

        public init(space: String, table: String, row: String, timestamp: String, column: String) {
            self.space = space
            self.table = table
            self.row = row
            self.timestamp = timestamp
            self.column = column
        }
    }

    /// Takes `refused` back, in one transaction; returns the rows whose table content changed.
    /// Changes not in the log are ignored (a repeat is harmless).
    @discardableResult
    public func revert(_ refused: [RefusedChange]) throws -> [ChangedRow] {
        let byRow = Dictionary(grouping: refused) { MergeSession.RowKey(table: $0.table, row: $0.row) }
        return try transaction { session in
            var changed: [ChangedRow] = []
            var remaining: [(MergeSession.RowKey, [SyncChange])] = []
            var gone = MerkleDelta()
            for (key, refusals) in byRow.sorted(by: { $0.key < $1.key }) {
                guard let shape = session.shape(named: key.table) else { continue }
                let logged = try Self.loggedChanges(of: key, on: session.connection)
                let dropped = Set(refusals.map { "\($0.timestamp)|\($0.column)" })
                guard logged.contains(where: { dropped.contains("\($0.timestamp.text)|\($0.column)") }) else { continue }
                for change in logged { gone.add(change, hash: change.merkleHash) }
                let wasAlive = try Self.forget(key, shape: shape, on: session.connection)
                let kept = logged.filter { !dropped.contains("\($0.timestamp.text)|\($0.column)") }
                remaining.append((key, kept))
                if wasAlive && !kept.contains(where: \.isAlive) { changed.append(ChangedRow(table: key.table, row: key.row, change: .deleted)) }
            }
            try MerkleStore.apply(gone, on: session.connection)  // out go all of the rows' changes...
            for (_, kept) in remaining { for change in kept { try session.absorb(change) } }  // ...and back what stays
            let report = try session.finish(materialize: true)
            return (changed + report.rows).sorted()
        }
    }

    /// Removes everything of `space` from this replica, in one transaction; returns the rows that
    /// left the plugin's tables.
    @discardableResult
    public func dropSpace(_ space: String) throws -> [ChangedRow] {
        try transaction { session in
            let connection = session.connection
            var changed: [ChangedRow] = []
            for row in try connection.fetchAll("SELECT tbl, row_id FROM _tessera_sync_rows WHERE space = ?", [.text(space)]) {
                let key = MergeSession.RowKey(table: row[0].text ?? "", row: row[1].text ?? "")
                guard let shape = session.shape(named: key.table) else { continue }
                if try Self.forget(key, shape: shape, on: connection) { changed.append(ChangedRow(table: key.table, row: key.row, change: .deleted)) }
            }
            try connection.execute("DELETE FROM _tessera_sync_messages WHERE space = ?", [.text(space)])
            try connection.execute("DELETE FROM _tessera_sync_merkle WHERE space = ?", [.text(space)])
            // Its changes may come back (the person joins again, or logs in again here).
            try connection.execute("UPDATE _tessera_sync_clock SET forgotten_until = COALESCE(last, forgotten_until) WHERE id = 1", [])
            return changed.sorted()
        }
    }

    /// The log's changes of one row, oldest first.
    private static func loggedChanges(of key: MergeSession.RowKey, on connection: SQLiteConnection) throws -> [SyncChange] {
        let rows = try connection.fetchAll("""
            SELECT space, ts, col, cl, value, supersedes FROM _tessera_sync_messages WHERE tbl = ? AND row_id = ? ORDER BY ts, col
            """, [.text(key.table), .text(key.row)])
        return try rows.map { row in
            let column = row[2].text ?? ""
            let kind: SyncChange.Kind = column.isEmpty
                ? .existence : .cell(column: column, value: row[4], supersedes: try MessageLog.timestamps(row[5].text ?? ""))
            return SyncChange(space: row[0].text ?? "", table: key.table, row: key.row, causalLength: row[3].integer ?? 0,
                              timestamp: try HLCTimestamp(parsing: row[1].text ?? ""), kind: kind)
        }
    }

    /// Deletes the row from the plugin's table and every trace of it from the metadata and the
    /// log (not the trie: callers settle that); returns whether it was alive.
    private static func forget(_ key: MergeSession.RowKey, shape: SyncTableShape, on connection: SQLiteConnection) throws -> Bool {
        let parameters: [SQLValue] = [.text(key.table), .text(key.row)]
        let length = try connection.fetchOne("SELECT cl FROM _tessera_sync_rows WHERE tbl = ? AND row_id = ?", parameters)?[0].integer ?? 0
        let alive = CausalLength.isAlive(length)
        if alive { try TableWriter.delete(shape, id: key.row, on: connection) }
        for table in ["_tessera_sync_rows", "_tessera_sync_cells", "_tessera_sync_versions", "_tessera_sync_messages"] {
            try connection.execute("DELETE FROM \(table) WHERE tbl = ? AND row_id = ?", parameters)
        }
        return alive
    }
}
