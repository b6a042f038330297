import TesseraSDK

/// Resolving a kept conflict: a new write of the cell that supersedes every value in conflict.
///
/// Resolution is an ordinary change, so it replicates like any other and every replica drops the
/// conflict when it receives it. If someone wrote the cell concurrently with the resolution, that
/// value was not superseded and shows as a new conflict, as it should: nobody has seen it yet.
enum ConflictResolution {
    /// Writes `value` to the conflicting cell (plugin table and metadata) in the session's
    /// transaction and returns the change.
    static func write(_ conflict: SyncConflict, value: SQLValue, session: MergeSession) throws -> SyncChange {
        guard let shape = session.shapes[conflict.table], let column = shape.byName[conflict.column] else {
            throw SyncError.unknownColumn(table: conflict.table, column: conflict.column)
        }
        let key = MergeSession.RowKey(table: conflict.table, row: conflict.row)
        guard let meta = try session.existingRow(key) else { throw SyncError.rowNotFound(table: conflict.table, row: conflict.row) }
        let space = meta.space
        try TableWriter.patch(shape, id: conflict.row, cells: [TableWriter.Cell(column: column, value: value)], on: session.connection)
        let superseded = [conflict.current.timestamp] + conflict.others.map(\.timestamp)
        let change = SyncChange(space: space, table: conflict.table, row: conflict.row, causalLength: meta.causalLength,
                                timestamp: try session.clock.send(),
                                kind: .cell(column: conflict.column, value: value, supersedes: superseded.sorted()))
        try session.absorb(change)
        _ = try session.finish(materialize: false)
        return change
    }
}
