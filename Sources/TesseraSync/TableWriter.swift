import TesseraSDK
import TesseraSQLite

/// Writes rows of a synced table: the record API's three operations, with its semantics.
///
/// Used by the store to show merged state in the plugin's table (a new life of a row is a put, new
/// cell values a patch, a death a delete), and by ``SyncStore/write(_:in:)`` for callers that have
/// no storage capability at hand (tests, benchmarks, conflict resolution). The host's own record
/// writes go through `SQLitePluginStorage`, whose statements these mirror.
enum TableWriter {
    /// Inserts the row, or replaces it whole: the given cells are set, every other column takes its
    /// declared default (or NULL), as a record-API put does. An upsert, not `INSERT OR REPLACE`, so
    /// no delete triggers fire for a replaced row.
    static func put(_ shape: SyncTableShape, id: String, cells: [(column: SyncTableShape.Column, value: SQLValue)],
                    on connection: SQLiteConnection) throws {
        let sorted = cells.sorted { $0.column.name < $1.column.name }
        let statement = try connection.cachedStatement(putSQL(shape, columns: sorted.map(\.column)))
        try statement.execute([.text(id)] + sorted.map(\.value))
    }

    /// Sets some cells of an existing row; returns whether the row exists.
    @discardableResult
    static func patch(_ shape: SyncTableShape, id: String, cells: [(column: SyncTableShape.Column, value: SQLValue)],
                      on connection: SQLiteConnection) throws -> Bool {
        guard !cells.isEmpty else { return try exists(shape, id: id, on: connection) }
        let sorted = cells.sorted { $0.column.name < $1.column.name }
        let assignments = sorted.map { "\($0.column.quoted) = ?" }.joined(separator: ", ")
        try connection.execute("UPDATE \(shape.quoted) SET \(assignments) WHERE \(shape.quotedID) = ?",
                               sorted.map(\.value) + [.text(id)])
        return connection.changes > 0
    }

    /// Deletes the row if it exists.
    static func delete(_ shape: SyncTableShape, id: String, on connection: SQLiteConnection) throws {
        try connection.execute("DELETE FROM \(shape.quoted) WHERE \(shape.quotedID) = ?", [.text(id)])
    }

    /// Whether the row exists.
    static func exists(_ shape: SyncTableShape, id: String, on connection: SQLiteConnection) throws -> Bool {
        try connection.fetchOne("SELECT 1 FROM \(shape.quoted) WHERE \(shape.quotedID) = ?", [.text(id)]) != nil
    }

    /// Every writable column's value of the row, in the shape's column order, or nil if there is
    /// no such row.
    static func read(_ shape: SyncTableShape, id: String, on connection: SQLiteConnection) throws -> [SQLValue]? {
        let columns = shape.columns.isEmpty ? "1" : shape.columns.map(\.quoted).joined(separator: ", ")
        guard let row = try connection.fetchOne(
            "SELECT \(columns) FROM \(shape.quoted) WHERE \(shape.quotedID) = ?", [.text(id)])
        else { return nil }
        return shape.columns.isEmpty ? [] : row
    }

    /// The upsert of a put setting `columns` (in name order); parameters: id, then the values.
    private static func putSQL(_ shape: SyncTableShape, columns: [SyncTableShape.Column]) -> String {
        let names = ([shape.quotedID] + columns.map(\.quoted)).joined(separator: ", ")
        let marks = Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
        let given = Set(columns.map(\.name))
        let assignments = shape.columns.map { column in
            given.contains(column.name)
                ? "\(column.quoted) = excluded.\(column.quoted)"
                : "\(column.quoted) = \(column.defaultSQL.map { "(\($0))" } ?? "NULL")"
        }
        let update = assignments.isEmpty ? "NOTHING" : "UPDATE SET " + assignments.joined(separator: ", ")
        return "INSERT INTO \(shape.quoted) (\(names)) VALUES (\(marks)) ON CONFLICT (\(shape.quotedID)) DO \(update)"
    }
}
