import TesseraSDK

/// A value as SQLite stores it: one of its five storage classes. The same type as the SDK's
/// `SQLValue`, which plugins use, so values pass between plugin code and the database unconverted.
public typealias SQLiteValue = SQLValue

/// The storage class of a column value in the current row, as `sqlite3_column_type` reports it.
public enum SQLiteColumnType: Sendable, Hashable {
    /// `SQLITE_INTEGER`.
    case integer
    /// `SQLITE_FLOAT`.
    case real
    /// `SQLITE_TEXT`.
    case text
    /// `SQLITE_BLOB`.
    case blob
    /// `SQLITE_NULL`.
    case null
}
