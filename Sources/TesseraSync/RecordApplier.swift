import TesseraSDK
import TesseraSQLite

/// Applies record-API changes to synced tables, with the record API's semantics (put replaces the
/// whole row, patch needs an existing row, delete of a missing row is fine).
///
/// For ``SyncStore/write(_:in:)``: tests, benchmarks and tools that write a synced table without the
/// storage capability. The host writes through `SQLitePluginStorage` and stamps with
/// ``SyncStore/localChanges(from:in:on:)`` in the same transaction instead.
enum RecordApplier {
    /// Applies `changes` in order (in the caller's transaction).
    ///
    /// - Throws: ``SyncError/unknownTable(_:)`` for a table that is not synced,
    ///   ``SyncError/unknownColumn(table:column:)``, ``SyncError/rowNotFound(table:row:)`` for a
    ///   patch of a missing row, ``SyncError/malformedChange(table:row:reason:)`` for an empty id;
    ///   SQLite's error for a constraint.
    static func apply(_ changes: [RecordChange], shapes: (String) -> SyncTableShape?,
                      on connection: SQLiteConnection) throws {
        for change in changes {
            switch change {
            case .put(let table, let id, let values):
                let shape = try resolve(table, id: id, shapes)
                try TableWriter.put(shape, id: id, cells: try cells(values, id: id, shape), on: connection)
            case .patch(let table, let id, let values):
                let shape = try resolve(table, id: id, shapes)
                guard try TableWriter.patch(shape, id: id, cells: try cells(values, id: id, shape), on: connection) else {
                    throw SyncError.rowNotFound(table: shape.name, row: id)
                }
            case .delete(let table, let id):
                try TableWriter.delete(try resolve(table, id: id, shapes), id: id, on: connection)
            @unknown default:
                throw SyncError.malformedChange(table: "?", row: "?", reason: "this host does not know the record change \(change)")
            }
        }
    }

    private static func resolve(_ table: String, id: String, _ shapes: (String) -> SyncTableShape?) throws -> SyncTableShape {
        guard let shape = shapes(table) else { throw SyncError.unknownTable(table) }
        guard !id.isEmpty else { throw SyncError.malformedChange(table: table, row: id, reason: "its row id is empty") }
        return shape
    }

    /// The values as columns of the shape; an `id` value must be the row's own.
    private static func cells(_ values: [String: SQLValue], id: String, _ shape: SyncTableShape) throws
        -> [TableWriter.Cell]
    {
        try values.compactMap { name, value in
            if name.lowercased() == "id" {
                guard value == .text(id) else {
                    throw SyncError.malformedChange(table: shape.name, row: id, reason: "the id of a row cannot change")
                }
                return nil
            }
            guard let column = shape.column(named: name) else { throw SyncError.unknownColumn(table: shape.name, column: name) }
            return TableWriter.Cell(column: column, value: value)
        }
    }
}
