import Synchronization
import TesseraSQLite

/// A synced table as the store needs it: its columns, read from the schema and checked against the
/// rules that make a table safe to merge into.
///
/// The rules, and why (cr-sqlite's `crsql_as_crr` refuses the same things):
/// - the primary key is one TEXT column `id` (the record API's rule; rows are addressed by it);
/// - every NOT NULL column has a DEFAULT: cells arrive one by one, in any order, so a row may have
///   to be inserted before all its cells are known, and its other columns then take their default;
/// - no UNIQUE constraint or unique index besides the key: two replicas may each write a value that
///   is unique locally, and the merged state would then break the constraint on every replica;
/// - no foreign keys: a child row may arrive before its parent, or outlive a deleted parent;
/// - a column that keeps conflicts exists, is not generated, and has TEXT affinity;
/// - no column is named `""` (it would clash with the existence changes' column).
final class SyncTableShape: Sendable {
    /// One writable column (never `id`, never a generated column).
    struct Column: Sendable, Hashable {
        /// The name as declared.
        let name: String
        /// The name quoted for SQL.
        let quoted: String
        /// The declared default as SQL text, if any.
        let defaultSQL: String?
    }

    /// The name as declared.
    let name: String
    /// The name quoted for SQL.
    let quoted: String
    /// The `id` column's name quoted for SQL.
    let quotedID: String
    /// The writable columns other than `id`, in name order.
    let columns: [Column]
    /// The columns by their name as declared.
    let byName: [String: Column]
    /// The names of the columns that keep conflicts.
    let keepConflicts: Set<String>

    // The table's statements, made once: they run once or more per change, and building and
    // hashing their text each time cost more than running them.
    /// Every writable column of a row, in ``columns`` order; parameter: id.
    let readSQL: String
    /// 1 if the row exists; parameter: id.
    let existsSQL: String
    /// Deletes the row; parameter: id.
    let deleteSQL: String
    /// Per column, an update of that cell; parameters: value, id.
    let updateSQL: [String: String]
    /// The upserts of a put, by the columns they set (see ``putSQL(columns:)``).
    private let puts = Mutex<[[String]: String]>([:])

    private init(name: String, quotedID: String, columns: [Column], keepConflicts: Set<String>) {
        self.name = name
        let quoted = Self.quote(name)
        self.quoted = quoted
        self.quotedID = quotedID
        self.columns = columns
        self.byName = Dictionary(uniqueKeysWithValues: columns.map { ($0.name, $0) })
        self.keepConflicts = keepConflicts
        let selected = columns.isEmpty ? "1" : columns.map(\.quoted).joined(separator: ", ")
        readSQL = "SELECT \(selected) FROM \(quoted) WHERE \(quotedID) = ?"
        existsSQL = "SELECT 1 FROM \(quoted) WHERE \(quotedID) = ?"
        deleteSQL = "DELETE FROM \(quoted) WHERE \(quotedID) = ?"
        updateSQL = Dictionary(uniqueKeysWithValues: columns.map {
            ($0.name, "UPDATE \(quoted) SET \($0.quoted) = ? WHERE \(quotedID) = ?")
        })
    }

    /// The upsert of a put setting `columns` (in name order), every other column taking its
    /// declared default (or NULL); parameters: id, then the values. An upsert rather than
    /// `INSERT OR REPLACE`, so no delete triggers fire for a replaced row.
    func putSQL(columns given: [Column]) -> String {
        let key = given.map(\.name)
        if let sql = puts.withLock({ $0[key] }) { return sql }
        let names = ([quotedID] + given.map(\.quoted)).joined(separator: ", ")
        let marks = Array(repeating: "?", count: given.count + 1).joined(separator: ", ")
        let set = Set(key)
        let assignments = columns.map { column in
            set.contains(column.name)
                ? "\(column.quoted) = excluded.\(column.quoted)"
                : "\(column.quoted) = \(column.defaultSQL.map { "(\($0))" } ?? "NULL")"
        }
        let update = assignments.isEmpty ? "NOTHING" : "UPDATE SET " + assignments.joined(separator: ", ")
        let sql = "INSERT INTO \(quoted) (\(names)) VALUES (\(marks)) ON CONFLICT (\(quotedID)) DO \(update)"
        puts.withLock { $0[key] = sql }
        return sql
    }

    /// The column named `name`: as declared, or failing that in another case (SQLite's names are
    /// case-insensitive, and so is the record API).
    func column(named name: String) -> Column? {
        byName[name] ?? columns.first { $0.name.lowercased() == name.lowercased() }
    }

    /// Reads and checks the shape of `table` through `connection`.
    ///
    /// - Throws: ``SyncError/tableNotSyncable(table:reason:)`` naming the rule broken.
    static func load(_ table: SyncedTable, from connection: SQLiteConnection) throws -> SyncTableShape {
        func refuse(_ reason: String) -> SyncError { .tableNotSyncable(table: table.name, reason: reason) }
        let lower = table.name.lowercased()
        guard !lower.hasPrefix("_tessera_"), !lower.hasPrefix("sqlite_") else {
            throw refuse("it is internal to the host")
        }
        guard let object = try connection.fetchOne(
            "SELECT type, name FROM main.sqlite_schema WHERE name = ? COLLATE NOCASE AND type IN ('table', 'view')",
            [.text(table.name)])
        else { throw refuse("there is no such table") }
        guard object[0].text == "table", let name = object[1].text else { throw refuse("it is a view") }

        let rows = try connection.fetchAll(
            "SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?, 'main') ORDER BY cid",
            [.text(name)])
        var columns: [Column] = []
        var generated: Set<String> = []
        var textColumns: Set<String> = []
        var idColumn: String?
        var keyColumns = 0
        for row in rows {
            guard let column = row[0].text else { continue }
            let type = row[1].text ?? ""
            let notNull = (row[2].integer ?? 0) != 0
            let hidden = row[5].integer ?? 0
            if (row[4].integer ?? 0) > 0 { keyColumns += 1 }
            if column.lowercased() == "id" {
                guard (row[4].integer ?? 0) > 0, hasTextAffinity(type) else {
                    throw refuse("its primary key must be one TEXT column named id")
                }
                idColumn = column
                continue
            }
            if column.isEmpty { throw refuse("a column named \"\" clashes with the existence changes' column") }
            if hidden == 1 { continue }  // a virtual table's hidden column
            if hidden != 0 { generated.insert(column); continue }
            if notNull, row[3].text == nil {
                throw refuse("column \(column) is NOT NULL without a DEFAULT; a row can arrive before all its cells, so give it a default")
            }
            if hasTextAffinity(type) { textColumns.insert(column) }
            columns.append(Column(name: column, quoted: quote(column), defaultSQL: row[3].text))
        }
        guard let idColumn, keyColumns == 1 else { throw refuse("its primary key must be one TEXT column named id") }
        try checkConstraints(name, connection: connection, refuse: refuse)
        for column in table.keepConflicts.sorted() {
            guard !generated.contains(column), columns.contains(where: { $0.name == column }) else {
                throw refuse("it has no writable column \(column) to keep conflicts of")
            }
            guard textColumns.contains(column) else {
                throw refuse("column \(column) keeps conflicts but is not a TEXT column")
            }
        }
        return SyncTableShape(name: name, quotedID: quote(idColumn), columns: columns.sorted { $0.name < $1.name },
                              keepConflicts: table.keepConflicts)
    }

    /// Refuses unique indexes (other than the key's) and foreign keys.
    private static func checkConstraints(_ name: String, connection: SQLiteConnection,
                                         refuse: (String) -> SyncError) throws {
        let indexes = try connection.fetchAll("SELECT name, \"unique\", origin FROM pragma_index_list(?)", [.text(name)])
        if let unique = indexes.first(where: { ($0[1].integer ?? 0) != 0 && $0[2].text != "pk" }) {
            throw refuse("it has a unique index or constraint (\(unique[0].text ?? "?")); merged replicas could break it")
        }
        let foreignKeys = try connection.fetchOne("SELECT COUNT(*) FROM pragma_foreign_key_list(?)", [.text(name)])?
            .first?.integer ?? 0
        if foreignKeys > 0 {
            throw refuse("it has a foreign key; rows may arrive before the rows they refer to")
        }
    }

    /// SQLite's affinity rule for TEXT: the declared type mentions CHAR, CLOB or TEXT and not INT.
    static func hasTextAffinity(_ declared: String) -> Bool {
        let upper = declared.uppercased()
        return !upper.contains("INT") && (upper.contains("CHAR") || upper.contains("CLOB") || upper.contains("TEXT"))
    }

    /// `name` as an SQL identifier in double quotes.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
