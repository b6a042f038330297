import Foundation
import TesseraSDK
import TesseraSQLite

/// One change applied through the record API, as kept in the plugin's change log
/// (`_tessera_changes`), in the order it was applied.
public struct ChangeLogEntry: Sendable, Hashable {
    /// What was done to the row.
    public enum Operation: String, Sendable, Hashable {
        /// The whole row was inserted or replaced; ``ChangeLogEntry/cells`` holds the values given,
        /// every other column took its default.
        case put
        /// The columns in ``ChangeLogEntry/cells`` of an existing row were set.
        case patch
        /// The row was deleted (or did not exist); ``ChangeLogEntry/cells`` is empty.
        case delete
    }

    /// The position in the log: increasing, never reused.
    public let seq: Int64
    /// The batch the change was written in: the ``seq`` of the batch's first change. The changes of a
    /// batch have consecutive sequence numbers and were committed together.
    public let batch: Int64
    /// The table, as declared in the schema.
    public let table: String
    /// The row's id.
    public let rowID: String
    /// What was done.
    public let operation: Operation
    /// The values written, by column (never the id).
    public let cells: [String: SQLValue]
    /// When the batch was written, by the host's clock (millisecond precision).
    public let at: Date

    /// Creates an entry.
    public init(seq: Int64, batch: Int64, table: String, rowID: String, operation: Operation,
                cells: [String: SQLValue], at: Date) {
        self.seq = seq
        self.batch = batch
        self.table = table
        self.rowID = rowID
        self.operation = operation
        self.cells = cells
        self.at = at
    }
}

/// The text forms kept in the change log.
enum ChangeLogCoding {
    /// ISO-8601 in UTC with milliseconds, e.g. `2025-03-01T08:30:00.000Z`.
    static let timestamp = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// The JSON of one cell. JSON has no bytes and no infinities, so a blob is written as
    /// `{"$blob": "<base64>"}` and an infinite real as `{"$real": "Infinity"}` (or `"-Infinity"`);
    /// NaN, which SQLite stores as NULL, as `null`. Integers and reals stay apart (`1` vs `1.0`).
    static func json(_ value: SQLValue) -> JSONValue {
        switch value {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .real(let d):
            if d.isNaN { return .null }
            if d.isInfinite { return .object(["$real": .string(d > 0 ? "Infinity" : "-Infinity")]) }
            return .number(d)
        case .text(let s): return .string(s)
        case .blob(let b): return .object(["$blob": .string(Data(b).base64EncodedString())])
        @unknown default: return .null
        }
    }

    /// The value of one cell's JSON (the inverse of ``json(_:)``).
    static func value(_ json: JSONValue) -> SQLValue {
        switch json {
        case .null: return .null
        case .bool(let b): return .integer(b ? 1 : 0)
        case .integer(let i): return .integer(i)
        case .number(let d): return .real(d)
        case .string(let s): return .text(s)
        case .object(let members):
            if case .string(let b64)? = members["$blob"], let data = Data(base64Encoded: b64) {
                return .blob(Array(data))
            }
            if case .string(let r)? = members["$real"] {
                return .real(r.hasPrefix("-") ? -.infinity : .infinity)
            }
            return .text(json.serialized())
        case .array: return .text(json.serialized())
        @unknown default: return .text(json.serialized())
        }
    }

    /// The JSON object text of a row's cells.
    static func cellsText(_ columns: [TableShape.Column], _ values: [SQLValue]) -> String {
        var members: [String: JSONValue] = [:]
        for (column, value) in zip(columns, values) { members[column.name] = json(value) }
        return JSONValue.object(members).serialized()
    }

    static func cells(_ text: String) -> [String: SQLValue] {
        guard case .object(let members)? = try? JSONValue(parsing: text) else { return [:] }
        return members.mapValues(value)
    }
}

extension Statement {
    /// Binds an SDK value to parameter `index` (from 1).
    func bind(_ value: SQLValue, at index: Int) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let i): try bind(i, at: index)
        case .real(let d): try bind(d, at: index)
        case .text(let s): try bind(s, at: index)
        case .blob(let b): try bind(b, at: index)
        @unknown default: try bindNull(at: index)
        }
    }

    /// Column `index` (from 0) of the current row as an SDK value.
    func sqlValue(at index: Int) -> SQLValue {
        switch columnType(at: index) {
        case .integer: return .integer(int64(at: index))
        case .real: return .real(double(at: index))
        case .text: return .text(text(at: index))
        case .blob: return .blob(blob(at: index))
        case .null: return .null
        }
    }
}
