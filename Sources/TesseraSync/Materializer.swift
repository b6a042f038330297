import TesseraSDK
import TesseraSQLite

/// Brings a row of the plugin's table in line with its merged metadata after a remote batch.
///
/// The table shows, for an alive row, each column's winning value if it was written in the row's
/// current life, and the column's default otherwise; a dead row is absent. Only what the batch
/// changed needs writing:
/// - the row died (its causal length became even): delete it;
/// - the row began a new life: put it, with the cells of that life (all of them arrived in this
///   batch: a cell of a life raises the row's causal length to that life when it arrives), every
///   other column taking its default;
/// - the same life, some winners changed: patch those cells.
enum Materializer {
    /// Writes the row; returns how it changed, or nil if the table is unchanged.
    static func apply(_ meta: MergeSession.RowMeta, key: MergeSession.RowKey, shape: SyncTableShape,
                      on connection: SQLiteConnection) throws -> ChangedRow.Change? {
        let alive = CausalLength.isAlive(meta.causalLength)
        guard alive else {
            guard CausalLength.isAlive(meta.causalLengthBefore) else { return nil }
            try TableWriter.delete(shape, id: key.row, on: connection)
            return .deleted
        }
        // Winners of an older life (a cell the new life has not written yet) are not shown.
        var cells: [TableWriter.Cell] = []
        cells.reserveCapacity(meta.changed.count)
        for (column, change) in meta.changed {
            guard meta.cells[column]?.causalLength == meta.causalLength, let shaped = shape.byName[column] else { continue }
            cells.append(TableWriter.Cell(column: shaped, value: change.value))
        }
        if meta.causalLength != meta.causalLengthBefore {
            try TableWriter.put(shape, id: key.row, cells: cells, on: connection)
            return .upserted
        }
        guard !cells.isEmpty else { return nil }
        try TableWriter.patch(shape, id: key.row, cells: cells, on: connection)
        return .upserted
    }
}
