import Foundation
@_spi(TesseraHost) import TesseraSDK
import TesseraSQLite
import TesseraSystem

/// One change applied through the record API, as kept in the plugin's change log (one row per
/// batch in `_tessera_change_batches`; before the storage schema's version 2, one row per change in
/// `_tessera_changes`), in the order it was applied.
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

    /// `date` as ``timestamp`` writes it, digit for digit (its milliseconds cut, not rounded, from
    /// the second's fraction), written by hand for the years 1970–9999: every write batch logs its
    /// time, and the formatter took about 8 µs of a batch of a hundred rows.
    static func text(of date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds >= 0, seconds < 253_402_300_800 else { return timestamp.format(date) }
        let millis = Int64(seconds) * 1000 + Int64(((date.timeIntervalSince1970 - seconds) * 1000).rounded(.down))
        return TimestampText.iso(millis: millis)
    }

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

    /// The JSON object text of a row's cells, keys in the order given; see ``appendCells(_:_:to:)``.
    static func cellsText(_ columns: [TableShape.Column], _ values: [SQLValue]) -> String {
        var buffer: [UInt8] = []
        let cells = zip(columns, values).map { SQLitePluginStorage.Cell(column: $0, value: $1) }
        appendCells(cells, cells.indices, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Writes a batch's changes as the change log keeps them (one row per batch): a JSON array with
    /// one `[table, id, operation, cells]` array per change, in order, replacing `out`'s contents.
    /// `cells` is the object ``appendCells(_:_:to:)`` writes.
    static func writeBatch(_ plan: SQLitePluginStorage.WritePlan, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.append(UInt8(ascii: "["))
        // By index, each field read where it lies: a copy of each change and cell retained and
        // released their references, a dozen per row.
        for i in plan.changes.indices {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            out.append(contentsOf: plan.changes[i].table.logName)
            out.append(UInt8(ascii: ","))
            appendString(plan.changes[i].id, to: &out)
            let operation: StaticString = switch plan.changes[i].operation {
            case .put: #","put","#
            case .patch: #","patch","#
            case .delete: #","delete","#
            }
            operation.withUTF8Buffer { out.append(contentsOf: $0) }
            appendCells(plan.cells, plan.changes[i].cells, to: &out)
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "]"))
    }

    /// The entries of one logged batch (the inverse of ``writeBatch(_:into:)``), those after `after`
    /// only, at most `limit`. A change that does not read back (a log edited by hand) is skipped, not
    /// guessed at; its sequence number stays unused.
    static func entries(ofBatch first: Int64, changes text: String, at: Date, after: Int64, limit: Int) -> [ChangeLogEntry] {
        guard limit > 0, case .array(let changes)? = try? JSONValue(parsing: text) else { return [] }
        var entries: [ChangeLogEntry] = []
        for (offset, change) in changes.enumerated() where first + Int64(offset) > after {
            guard case .array(let parts) = change, parts.count == 4,
                  case .string(let table) = parts[0], case .string(let id) = parts[1],
                  case .string(let op) = parts[2], let operation = ChangeLogEntry.Operation(rawValue: op),
                  case .object(let cells) = parts[3] else { continue }
            entries.append(ChangeLogEntry(seq: first + Int64(offset), batch: first, table: table, rowID: id,
                                          operation: operation, cells: cells.mapValues(value), at: at))
            if entries.count == limit { break }
        }
        return entries
    }

    /// Appends the JSON object of a row's cells to `out` as UTF-8, keys in the order given (the plan
    /// sorts columns by name, so equal cells give equal text). The same text as
    /// `JSONValue.serialized()` of ``json(_:)``'s values, written straight into bytes: this runs once
    /// per change.
    private static func appendCells(_ cells: [SQLitePluginStorage.Cell], _ range: Range<Int>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        for i in range {
            if i > range.lowerBound { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: cells[i].column.logKey)
            switch cells[i].value {
            case .null:
                out.append(contentsOf: "null".utf8)
            case .integer(let n):
                JSONValue.appendInteger(n, to: &out)
            case .real(let d):
                if d.isNaN {
                    out.append(contentsOf: "null".utf8)
                } else if d.isInfinite {
                    out.append(contentsOf: (d > 0 ? #"{"$real":"Infinity"}"# : #"{"$real":"-Infinity"}"#).utf8)
                } else {
                    JSONValue.appendNumber(d, to: &out)
                }
            case .text(let text):
                appendString(text, to: &out)
            case .blob(let bytes):
                out.append(contentsOf: #"{"$blob":""#.utf8)
                out.append(contentsOf: Data(bytes).base64EncodedString().utf8)
                out.append(contentsOf: #""}"#.utf8)
            @unknown default:
                out.append(contentsOf: "null".utf8)
            }
        }
        out.append(UInt8(ascii: "}"))
    }

    /// `text` as a JSON string in bytes (a table's or column's name, escaped once per shape).
    static func jsonString(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        appendString(text, to: &out)
        return out
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped, the rest as is;
    /// the SDK's writer, eight bytes at a time (`JSONValue.appendString`), so the log's text is the
    /// same JSON the host writes everywhere else.
    static func appendString(_ text: String, to out: inout [UInt8]) {
        JSONValue.appendString(text, to: &out)
    }

    static func cells(_ text: String) -> [String: SQLValue] {
        guard case .object(let members)? = try? JSONValue(parsing: text) else { return [:] }
        return members.mapValues(value)
    }
}

