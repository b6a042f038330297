import Foundation

/// A table as CSV (RFC 4180): a header row, then one record per row, CRLF after every record; a
/// field holding a comma, a double quote, CR or LF is quoted, with its quotes doubled.
///
/// ```swift
/// try CSVTable(header: ["date", "kind", "value"], rows: [["2026-01-05", "weight", "4.2"]]).text
/// // "date,kind,value\r\n2026-01-05,weight,4.2\r\n"
/// ```
public struct CSVTable: Sendable, Equatable {
    /// The header row's names.
    public let header: [String]
    /// The records, each as wide as the header.
    public let rows: [[String]]

    /// A table; every row must have as many fields as the header (a ragged file would shift columns).
    /// - Throws: `CSVTableError.rowWidth` naming the first row at fault.
    public init(header: [String], rows: [[String]]) throws {
        if let index = rows.firstIndex(where: { $0.count != header.count }) {
            throw CSVTableError.rowWidth(row: index + 1, fields: rows[index].count, expected: header.count)
        }
        self.header = header
        self.rows = rows
    }

    /// A table of `records`, one column per `columns` entry (its name heads the column).
    public init<Record>(records: [Record], columns: [CSVColumn<Record>]) {
        header = columns.map(\.name)
        rows = records.map { record in columns.map { $0.value(record) } }
    }

    /// The CSV text (write it out as UTF-8, `text/csv; charset=utf-8; header=present`).
    public var text: String {
        ([header] + rows).map(Self.record).joined()
    }

    static func record(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }

    /// RFC 4180 §2.6–2.7: quote a field that holds a comma, quote, CR or LF; double its quotes.
    static func field(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// One column of a CSV export: its header name and how a record gives its field.
public struct CSVColumn<Record>: Sendable {
    /// The header name.
    public let name: String
    /// The field of a record.
    public let value: @Sendable (Record) -> String

    /// A column named `name` whose field is `value(record)`.
    public init(_ name: String, _ value: @escaping @Sendable (Record) -> String) {
        self.name = name
        self.value = value
    }
}

/// Why a CSV table was refused.
public enum CSVTableError: Error, Equatable, CustomStringConvertible {
    /// A row (1 = the first after the header) whose field count differs from the header's.
    case rowWidth(row: Int, fields: Int, expected: Int)

    /// A sentence naming the row.
    public var description: String {
        switch self {
        case .rowWidth(let row, let fields, let expected): "rows[\(row - 1)] has \(fields) fields, the header has \(expected)"
        }
    }
}
