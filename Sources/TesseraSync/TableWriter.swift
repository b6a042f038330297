import TesseraSDK
import TesseraSQLite

/// Writes rows of a synced table: the record API's three operations, with its semantics.
///
/// Used by the store to show merged state in the plugin's table (a new life of a row is a put, new
/// cell values a patch, a death a delete), and by ``SyncStore/write(_:in:)`` for callers that have
/// no storage capability at hand (tests, benchmarks, conflict resolution). The host's own record
/// writes go through `SQLitePluginStorage`, whose statements these mirror.
enum TableWriter {
    /// A column of the table and the value written to it. A struct rather than a tuple: arrays of
    /// tuples look up their generic metadata at run time, once per row written.
    struct Cell {
        let column: SyncTableShape.Column
        let value: SQLValue
    }

    /// Inserts the row, or replaces it whole: the given cells are set, every other column takes its
    /// declared default (or NULL), as a record-API put does.
    static func put(_ shape: SyncTableShape, id: String, cells: [Cell],
                    on connection: SQLiteConnection) throws {
        let sorted = cells.count > 1 ? cells.sorted { $0.column.name < $1.column.name } : cells
        let statement = try connection.cachedStatement(shape.putSQL(columns: sorted.map(\.column)))
        defer { statement.reset() }
        try statement.bind(id, at: 1)
        for index in sorted.indices { try statement.bind(sorted[index].value, at: index + 2) }
        _ = try statement.step()
    }

    /// Sets some cells of an existing row; returns whether the row exists. One UPDATE per cell:
    /// their statements are made once per column, and most patches set one or two cells.
    @discardableResult
    static func patch(_ shape: SyncTableShape, id: String, cells: [Cell],
                      on connection: SQLiteConnection) throws -> Bool {
        guard !cells.isEmpty else { return try exists(shape, id: id, on: connection) }
        for cell in cells {
            guard let sql = shape.updateSQL[cell.column.name] else { continue }
            let update = try connection.cachedStatement(sql)
            defer { update.reset() }
            try update.bind(cell.value, at: 1)
            try update.bind(id, at: 2)
            _ = try update.step()
            if connection.changes == 0 { return false }
        }
        return true
    }

    /// Deletes the row if it exists.
    static func delete(_ shape: SyncTableShape, id: String, on connection: SQLiteConnection) throws {
        try connection.execute(shape.deleteSQL, [.text(id)])
    }

    /// Whether the row exists.
    static func exists(_ shape: SyncTableShape, id: String, on connection: SQLiteConnection) throws -> Bool {
        try connection.fetchOne(shape.existsSQL, [.text(id)]) != nil
    }

    /// Every writable column's value of the row, in the shape's column order, or nil if there is
    /// no such row.
    static func read(_ shape: SyncTableShape, id: String, on connection: SQLiteConnection) throws -> [SQLValue]? {
        guard let row = try connection.fetchOne(shape.readSQL, [.text(id)]) else { return nil }
        return shape.columns.isEmpty ? [] : row
    }
}
