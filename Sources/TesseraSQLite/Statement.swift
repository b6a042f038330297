import CSQLite

/// A prepared SQL statement (`sqlite3_stmt`), finalized when the last reference goes away.
///
/// Like its ``SQLiteConnection``, a statement is not thread-safe: use it only while you hold the
/// connection (inside ``SQLiteDatabase/withConnection(_:)`` for a shared one). Parameters are numbered
/// from 1 and result columns from 0, as in SQLite's C API.
///
/// Typical use binds, steps and resets:
/// ```swift
/// let statement = try connection.cachedStatement("SELECT name FROM t WHERE id = ?")
/// try statement.bind(.text("a"), at: 1)
/// while try statement.step() { print(statement.text(at: 0)) }
/// statement.reset()
/// ```
/// or uses ``execute(_:)`` and ``fetchAll(_:)``, which bind, run to completion and reset.
public final class Statement {
    /// The SQL text this statement was compiled from (only the first statement of a longer text).
    public let sql: String
    /// The `sqlite3_stmt` handle, for calling the C API directly. Do not finalize it.
    public let handle: OpaquePointer
    private var cachedColumnNames: [String]?

    /// Whether this object finalizes the handle when it goes away.
    private let ownsHandle: Bool

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
        self.ownsHandle = true
    }

    /// Wraps a handle its caller keeps and finalizes (to bind it with the methods here).
    init(unownedHandle handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
        self.ownsHandle = false
    }

    deinit { if ownsHandle { sqlite3_finalize(handle) } }

    private var db: OpaquePointer? { sqlite3_db_handle(handle) }

    private func check(_ rc: Int32) throws {
        guard rc == SQLITE_OK else { throw SQLiteError(connection: db, resultCode: rc, sql: sql) }
    }

    // MARK: Facts

    /// Whether the statement makes no direct change to the database file (`sqlite3_stmt_readonly`).
    ///
    /// Note that SQLite counts `BEGIN`, `COMMIT`, `SAVEPOINT` and most `PRAGMA` reads as read-only.
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    /// The number of `?` parameters (the largest parameter index).
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// The number of result columns (0 for a statement that returns no rows).
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The result column names, in order.
    public var columnNames: [String] {
        if let cachedColumnNames { return cachedColumnNames }
        let names = (0..<sqlite3_column_count(handle)).map { i -> String in
            sqlite3_column_name(handle, i).map { String(cString: $0) } ?? ""
        }
        cachedColumnNames = names
        return names
    }

    // MARK: Binding

    /// Binds SQL `NULL` to parameter `index` (from 1).
    public func bindNull(at index: Int) throws {
        try check(sqlite3_bind_null(handle, Int32(index)))
    }

    /// Binds an integer to parameter `index` (from 1).
    public func bind(_ value: Int64, at index: Int) throws {
        try check(sqlite3_bind_int64(handle, Int32(index), value))
    }

    /// Binds a double to parameter `index` (from 1). SQLite stores NaN as `NULL`.
    public func bind(_ value: Double, at index: Int) throws {
        try check(sqlite3_bind_double(handle, Int32(index), value))
    }

    /// Binds UTF-8 text to parameter `index` (from 1). The text is copied; it may hold NUL characters.
    public func bind(_ value: String, at index: Int) throws {
        // A native string's bytes are read where they are; a copy to call `withUTF8` on (which
        // mutates) retained and released it.
        if let rc = value.utf8.withContiguousStorageIfAvailable({ bindText($0, at: index) }) { return try check(rc) }
        var text = value
        try check(text.withUTF8 { bindText($0, at: index) })
    }

    /// Binds text given as UTF-8 bytes to parameter `index` (from 1), without making a `String` of
    /// them. The bytes are copied; they must be valid UTF-8.
    public func bind(utf8Text bytes: [UInt8], at index: Int) throws {
        try check(bytes.withUnsafeBufferPointer { bindText($0, at: index) })
    }

    /// Binds UTF-8 bytes as text; a nil pointer would bind NULL, so the empty string gets a real buffer.
    private func bindText(_ utf8: UnsafeBufferPointer<UInt8>, at index: Int) -> Int32 {
        guard let base = utf8.baseAddress, utf8.count > 0 else {
            return sqlite3_bind_text(handle, Int32(index), "", 0, sqliteTransient)
        }
        return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
            sqlite3_bind_text64(handle, Int32(index), $0, sqlite3_uint64(utf8.count), sqliteTransient, UInt8(SQLITE_UTF8))
        }
    }

    /// Binds bytes to parameter `index` (from 1). The bytes are copied.
    public func bind(_ value: [UInt8], at index: Int) throws {
        let rc = value.withUnsafeBytes { bytes -> Int32 in
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                return sqlite3_bind_zeroblob(handle, Int32(index), 0)
            }
            return sqlite3_bind_blob64(handle, Int32(index), base, sqlite3_uint64(bytes.count), sqliteTransient)
        }
        try check(rc)
    }

    /// Binds a value of any storage class to parameter `index` (from 1).
    public func bind(_ value: SQLiteValue, at index: Int) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let i): try bind(i, at: index)
        case .real(let d): try bind(d, at: index)
        case .text(let s): try bind(s, at: index)
        case .blob(let b): try bind(b, at: index)
        }
    }

    /// Binds `values` to parameters 1…n. The count must equal ``parameterCount``.
    public func bind(_ values: [SQLiteValue]) throws {
        guard values.count == parameterCount else {
            throw SQLiteError(extendedCode: SQLITE_RANGE,
                              message: "the statement has \(parameterCount) parameter(s), \(values.count) value(s) given",
                              sql: sql)
        }
        // An index loop: `enumerated()` looks up generic metadata per element in unoptimised builds.
        var index = 0
        while index < values.count {
            try bind(values[index], at: index + 1)
            index += 1
        }
    }

    /// Sets every parameter back to `NULL` (`sqlite3_clear_bindings`).
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: Running

    /// Runs the statement to its next row. Returns `true` when a row is available (read it with the
    /// column accessors) and `false` when the statement has finished.
    ///
    /// After an error, or when done with a statement that still has rows, call ``reset()`` (which
    /// also ends the read transaction a `SELECT` holds open).
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw SQLiteError(connection: db, resultCode: rc, sql: sql)
        }
    }

    /// Rewinds the statement so it can run again (`sqlite3_reset`). Bindings are kept.
    public func reset() {
        sqlite3_reset(handle)
    }

    /// Binds `values`, runs the statement to completion, and resets it.
    public func execute(_ values: [SQLiteValue] = []) throws {
        defer { reset() }
        try bind(values)
        while try step() {}
    }

    /// Binds `values`, returns every row as an array of values, and resets the statement.
    public func fetchAll(_ values: [SQLiteValue] = []) throws -> [[SQLiteValue]] {
        defer { reset() }
        try bind(values)
        var rows: [[SQLiteValue]] = []
        let n = columnCount
        while try step() {
            rows.append((0..<n).map { value(at: $0) })
        }
        return rows
    }

    /// Binds `values`, returns the first row (or `nil`), and resets the statement.
    public func fetchOne(_ values: [SQLiteValue] = []) throws -> [SQLiteValue]? {
        defer { reset() }
        try bind(values)
        guard try step() else { return nil }
        return (0..<columnCount).map { value(at: $0) }
    }

    // MARK: Reading the current row

    /// The storage class of column `index` (from 0) of the current row.
    public func columnType(at index: Int) -> SQLiteColumnType {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: return .integer
        case SQLITE_FLOAT: return .real
        case SQLITE_TEXT: return .text
        case SQLITE_BLOB: return .blob
        default: return .null
        }
    }

    /// Whether column `index` (from 0) of the current row is `NULL`.
    public func isNull(at index: Int) -> Bool {
        sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL
    }

    /// Column `index` (from 0) as an integer, converted by SQLite's rules (`NULL` gives 0).
    public func int64(at index: Int) -> Int64 {
        sqlite3_column_int64(handle, Int32(index))
    }

    /// Column `index` (from 0) as a double, converted by SQLite's rules (`NULL` gives 0).
    public func double(at index: Int) -> Double {
        sqlite3_column_double(handle, Int32(index))
    }

    /// Column `index` (from 0) as text, converted by SQLite's rules (`NULL` gives "").
    public func text(at index: Int) -> String {
        guard let bytes = sqlite3_column_text(handle, Int32(index)) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Column `index` (from 0) as bytes, converted by SQLite's rules (`NULL` gives []).
    public func blob(at index: Int) -> [UInt8] {
        guard let bytes = sqlite3_column_blob(handle, Int32(index)) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, Int32(index)))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    /// Column `index` (from 0) of the current row, in its own storage class.
    public func value(at index: Int) -> SQLiteValue {
        switch columnType(at: index) {
        case .integer: return .integer(int64(at: index))
        case .real: return .real(double(at: index))
        case .text: return .text(text(at: index))
        case .blob: return .blob(blob(at: index))
        case .null: return .null
        }
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the bind call returns.
var sqliteTransient: sqlite3_destructor_type {
    unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
