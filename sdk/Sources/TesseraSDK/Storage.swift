import Foundation

/// A value in a plugin's database: SQLite's five storage classes.
///
/// Frozen: SQLite has exactly these storage classes.
@frozen
public enum SQLValue: Sendable, Hashable {
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

extension SQLValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
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
    /// A Boolean, stored as the integer 0 or 1 (SQLite has no Boolean type).
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

extension SQLValue {
    /// The text, if this is text.
    public var text: String? { if case .text(let s) = self { return s }; return nil }
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
    /// The bytes, if this is a blob.
    public var blob: [UInt8]? { if case .blob(let b) = self { return b }; return nil }
    /// Whether this is `NULL`.
    public var isNull: Bool { self == .null }

    /// The JSON value of this SQL value (a blob becomes a base64 string).
    public var jsonValue: JSONValue {
        switch self {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return .number(d)
        case .text(let s): return .string(s)
        case .blob(let b): return .string(Data(b).base64EncodedString())
        }
    }
}

/// One row of a query result: column names and values, in the order of the query.
public struct Row: Sendable, Hashable {
    /// The column names, in order.
    public let columns: [String]
    /// The values, in the order of ``columns``.
    public let values: [SQLValue]

    /// Creates a row.
    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of the first column named `column`, or `NULL` if there is none.
    public subscript(column: String) -> SQLValue {
        guard let i = columns.firstIndex(of: column) else { return .null }
        return values[i]
    }

    /// The row as a JSON object keyed by column name.
    public var jsonObject: JSONValue {
        var members: [String: JSONValue] = [:]
        for (c, v) in zip(columns, values) { members[c] = v.jsonValue }
        return .object(members)
    }
}

/// One change to a record: a row of a table, found by its `id`.
public enum RecordChange: Sendable, Hashable {
    /// Insert the row, or replace it whole if a row with this id exists.
    case put(table: String, id: String, values: [String: SQLValue])
    /// Set only the given columns of an existing row.
    case patch(table: String, id: String, values: [String: SQLValue])
    /// Delete the row. Deleting a row that does not exist is not an error.
    case delete(table: String, id: String)
}

/// Changes applied together: all of them, in order, in one transaction, or none.
public struct WriteBatch: Sendable, Hashable {
    /// The changes, in the order they are applied.
    public private(set) var changes: [RecordChange] = []

    /// An empty batch.
    public init() {}

    /// Adds an insert-or-replace of a whole row.
    public mutating func put(_ table: String, id: String, _ values: [String: SQLValue]) {
        changes.append(.put(table: table, id: id, values: values))
    }

    /// Adds an update of some columns of an existing row.
    public mutating func patch(_ table: String, id: String, _ values: [String: SQLValue]) {
        changes.append(.patch(table: table, id: id, values: values))
    }

    /// Adds a delete of a row.
    public mutating func delete(_ table: String, id: String) {
        changes.append(.delete(table: table, id: id))
    }

    /// The events emitted with this batch, in order.
    public private(set) var events: [EmittedEvent] = []

    /// Publishes an event when, and only if, this batch commits: the event is stored in the same
    /// transaction as the changes (needs the `events` capability, and the event in the manifest's
    /// `emits`).
    public mutating func emit(_ name: String, _ payload: JSONValue) {
        events.append(EmittedEvent(name: name, payload: payload))
    }

    /// The space the batch's rows of synced tables belong to; `nil` means the person's own,
    /// `personal`. Rows of tables the manifest does not sync ignore it.
    public private(set) var space: String?

    /// Puts the batch's rows of synced tables in `space`: `personal` (the person's own data, synced
    /// across their devices) or a shared space's id (a lowercase UUID the plugin chose, e.g. one
    /// child's diary shared by two parents). A row stays in the space it was first written in.
    public mutating func inSpace(_ space: String) {
        self.space = space
    }
}

/// One step of a plugin's database schema, applied once by the host, in version order.
///
/// Versions start at 1 and have no gaps. A migration never changes once shipped: a later change is
/// a new migration. The host records the versions applied in the plugin's own database.
public struct StorageMigration: Sendable, Hashable {
    /// The schema version this step brings the database to.
    public let version: Int
    /// SQL statements (DDL) run in one transaction.
    public let sql: String

    /// Creates a migration step.
    public init(version: Int, sql: String) {
        self.version = version
        self.sql = sql
    }
}

/// A plugin's own database, granted as the `storage` capability.
///
/// Writes go through the record API (``write(_:)``), so that the host captures every change for
/// sync and audit. Reads are read-only SQL on the plugin's own database, so reports can use all of
/// SQL. A plugin cannot see another plugin's database.
///
/// Every table written through the record API has a text primary key column named `id`.
public protocol PluginStorage: Sendable {
    /// Applies the batch in one transaction and returns once it is durable.
    ///
    /// - Throws: ``PluginError`` with code `invalidInput` naming the table or column at fault;
    ///   nothing of the batch is applied then.
    func write(_ batch: WriteBatch) async throws

    /// Runs one read-only SQL statement with `?` parameters and returns its rows.
    ///
    /// - Throws: ``PluginError`` with code `forbidden` for a statement that would write, attach
    ///   another database, or change a setting; `invalidInput` for SQL that does not compile.
    func query(_ sql: String, _ parameters: [SQLValue]) async throws -> [Row]
}

extension PluginStorage {
    /// Applies a batch built by `build`.
    public func write(_ build: (inout WriteBatch) throws -> Void) async throws {
        var batch = WriteBatch()
        try build(&batch)
        try await write(batch)
    }

    /// Runs a read-only query with no parameters.
    public func query(_ sql: String) async throws -> [Row] {
        try await query(sql, [])
    }
}
