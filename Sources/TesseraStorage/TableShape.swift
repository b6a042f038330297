import Foundation
import Synchronization
import TesseraSDK
import TesseraSQLite

/// What the record API needs to know about one of the plugin's tables, read from the schema.
///
/// Immutable, and a class so that each planned change holds one reference rather than a copy.
final class TableShape: Sendable {
    /// One column. Identity matters: two plans use the same statement if they name the same
    /// `Column` objects.
    final class Column: Sendable {
        /// The name as declared.
        let name: String
        /// The name quoted for SQL.
        let quoted: String
        /// The declared default, as SQL text, if any.
        let defaultSQL: String?
        /// A generated column: computed, never written.
        let isGenerated: Bool
        /// The name as the change log's JSON key, with its colon (`"name":`): written once per cell
        /// logged, so escaped once here.
        let logKey: [UInt8]
        /// The column's place among the table's columns in name order: a change's cells are sorted
        /// by it, an integer compared where names were (the same order, and far cheaper per row).
        let order: Int

        init(name: String, quoted: String, defaultSQL: String?, isGenerated: Bool, order: Int) {
            self.name = name
            self.quoted = quoted
            self.defaultSQL = defaultSQL
            self.isGenerated = isGenerated
            self.logKey = ChangeLogCoding.jsonString(name) + [UInt8(ascii: ":")]
            self.order = order
        }
    }

    /// The table's name as declared.
    let name: String
    let quoted: String
    /// The name as a JSON string (`"name"`), for the change log's entries.
    let logName: [UInt8]
    /// The `id` primary key column.
    let id: Column
    /// Every column but `id`, keyed by lowercased name (SQLite names are case-insensitive).
    let columns: [String: Column]
    /// Every column but `id`, keyed by its name as declared: the usual spelling, found without
    /// lowercasing.
    let declaredColumns: [String: Column]
    /// The writable columns other than `id`, in name order: a put sets each one.
    let writableColumns: [Column]
    /// The SQL of each write statement made so far, by operation and columns set: made once per
    /// shape of change rather than once per batch (the connection's statement cache then finds the
    /// prepared statement by this text).
    private let statementSQL = Mutex<[StatementKey: String]>([:])

    /// What a write statement's SQL depends on.
    struct StatementKey: Hashable {
        let operation: SQLitePluginStorage.Operation
        let columns: [String]
    }

    /// The SQL for `key`, made by `make` the first time.
    func sql(for key: StatementKey, make: () -> String) -> String {
        if let sql = statementSQL.withLock({ $0[key] }) { return sql }
        let sql = make()
        statementSQL.withLock { $0[key] = sql }
        return sql
    }

    init(name: String, quoted: String, id: Column, columns: [String: Column], writableColumns: [Column]) {
        self.name = name
        self.quoted = quoted
        self.logName = ChangeLogCoding.jsonString(name)
        self.id = id
        self.columns = columns
        self.declaredColumns = Dictionary(uniqueKeysWithValues: columns.values.map { ($0.name, $0) })
        self.writableColumns = writableColumns
    }

    /// Reads the shape of `table` through `connection`, or explains why the record API cannot write it.
    static func load(_ table: String, from connection: SQLiteConnection) throws -> TableShape {
        if AccessPolicy.isInternal(table) {
            throw PluginError(.invalidInput, "table \(table) is internal to the host and cannot be written",
                              field: table)
        }
        guard let object = try connection.fetchOne(
            "SELECT type, name FROM main.sqlite_schema WHERE name = ? COLLATE NOCASE AND type IN ('table', 'view')",
            [.text(table)])
        else {
            throw PluginError(.invalidInput, "there is no table named \(table)", field: table)
        }
        let name = object[1].text ?? table
        if object[0].text == "view" {
            throw PluginError(.invalidInput, "\(name) is a view; write to its tables instead", field: table)
        }
        // table_xinfo also lists generated columns (hidden 2 or 3); hidden 1 is a virtual table's.
        let rows = try connection.fetchAll(
            "SELECT name, type, pk, dflt_value, hidden FROM pragma_table_xinfo(?, 'main') ORDER BY cid",
            [.text(name)])
        var columns: [String: Column] = [:]
        var idColumn: Column?
        var idType = ""
        var primaryKeyColumns = 0
        let listed = rows.filter { $0[0].text != nil && ($0[4].integer ?? 0) != 1 }
        let order = Dictionary(uniqueKeysWithValues: listed.compactMap { $0[0].text }.sorted().enumerated().map { ($1, $0) })
        for row in listed {
            guard let columnName = row[0].text else { continue }
            let hidden = row[4].integer ?? 0
            let column = Column(name: columnName, quoted: quote(columnName), defaultSQL: row[3].text,
                                isGenerated: hidden != 0, order: order[columnName] ?? 0)
            if (row[2].integer ?? 0) > 0 { primaryKeyColumns += 1 }
            if columnName.lowercased() == "id" {
                idColumn = column
                idType = row[1].text ?? ""
                if (row[2].integer ?? 0) == 0 { primaryKeyColumns = -1000 }  // id exists but is not the key
            } else {
                columns[columnName.lowercased()] = column
            }
        }
        let rule = "the record API writes tables whose primary key is one TEXT column named id"
        guard let idColumn else {
            throw PluginError(.invalidInput, "table \(name) has no id column; \(rule)", field: table)
        }
        guard primaryKeyColumns == 1 else {
            throw PluginError(.invalidInput, "the primary key of table \(name) is not its id column alone; \(rule)",
                              field: "\(table).id")
        }
        guard hasTextAffinity(idType) else {
            throw PluginError(.invalidInput, "the id column of table \(name) is \(idType.isEmpty ? "untyped" : idType), not TEXT; \(rule)",
                              field: "\(table).id")
        }
        return TableShape(name: name, quoted: quote(name), id: idColumn, columns: columns,
                          writableColumns: columns.values.filter { !$0.isGenerated }.sorted { $0.name < $1.name })
    }

    /// SQLite's affinity rules (§3.1 of "Datatypes In SQLite"): TEXT affinity for a declared type that
    /// mentions CHAR, CLOB or TEXT and not INT.
    static func hasTextAffinity(_ declared: String) -> Bool {
        let upper = declared.uppercased()
        if upper.contains("INT") { return false }
        return upper.contains("CHAR") || upper.contains("CLOB") || upper.contains("TEXT")
    }

    /// `name` as an SQL identifier in double quotes.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
