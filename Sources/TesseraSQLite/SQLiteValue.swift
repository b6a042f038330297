/// A value as SQLite stores it: one of its five storage classes.
///
/// This module does not depend on the SDK; modules that do (storage) convert between this and the
/// SDK's `SQLValue`, or bind and read through ``Statement``'s typed accessors directly.
public enum SQLiteValue: Sendable, Hashable {
    /// SQL `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])
}

extension SQLiteValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    /// `NULL`.
    public init(nilLiteral: ()) { self = .null }
    /// An integer.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A real.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// Text.
    public init(stringLiteral value: String) { self = .text(value) }
    /// A Boolean, stored as the integer 0 or 1.
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

extension SQLiteValue {
    /// The integer, if this is an integer.
    public var integer: Int64? { if case .integer(let i) = self { return i }; return nil }
    /// The value as a double, if this is a number.
    public var real: Double? {
        switch self {
        case .real(let d): return d
        case .integer(let i): return Double(i)
        default: return nil
        }
    }
    /// The text, if this is text.
    public var text: String? { if case .text(let s) = self { return s }; return nil }
    /// The bytes, if this is a blob.
    public var blob: [UInt8]? { if case .blob(let b) = self { return b }; return nil }
    /// Whether this is `NULL`.
    public var isNull: Bool { self == .null }
}

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
