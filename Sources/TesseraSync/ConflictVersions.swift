import TesseraSDK
import TesseraSQLite

/// The values kept for cells of columns that keep conflicts (`_tessera_sync_versions`).
///
/// CouchDB keeps a document's conflicting revisions as the non-winning **leaves** of its revision
/// tree; this is the same idea per cell. Every write to such a cell names the writes it supersedes
/// (the value its writer saw, or for a resolution every value in conflict). A write that no known
/// write supersedes is a leaf. In the row's current life, the leaf that wins the cell is its value,
/// and every other leaf is a conflict: a value someone wrote without having seen the winner.
///
/// Which writes are leaves depends only on the set of writes received, never on their order: a
/// write that names one not yet received leaves a **marker** (`known = 0`), and when the named
/// write arrives it is recognised as superseded. A write that is both received and superseded is
/// deleted: the message log already keeps it from being merged twice. So the table holds only
/// leaves (`known = 1`) and markers.
enum ConflictVersions {
    /// Records a write to a keep-conflicts cell: a leaf unless a marker says a write received
    /// earlier superseded it; and the writes it supersedes stop being leaves.
    static func record(_ change: SyncChange, value: SQLValue, supersedes: [HLCTimestamp], timestampText: String,
                       on connection: SQLiteConnection) throws {
        let key: [SQLValue] = [.text(change.table), .text(change.row), .text(change.column)]
        let delete = try connection.cachedStatement(
            "DELETE FROM _tessera_sync_versions WHERE tbl = ? AND row_id = ? AND col = ? AND ts = ? AND known = ?")
        try delete.execute(key + [.text(timestampText), .integer(0)])
        if connection.changes == 0 {
            try connection.execute(
                "INSERT INTO _tessera_sync_versions(tbl, row_id, col, ts, known, cl, value) VALUES (?, ?, ?, ?, 1, ?, ?)",
                key + [.text(timestampText), .integer(change.causalLength), value])
        }
        for replaced in supersedes where replaced != change.timestamp {
            let text = replaced.text
            try delete.execute(key + [.text(text), .integer(1)])
            if connection.changes == 0 {
                try connection.execute(
                    "INSERT OR IGNORE INTO _tessera_sync_versions(tbl, row_id, col, ts, known) VALUES (?, ?, ?, ?, 0)",
                    key + [.text(text)])
            }
        }
    }

    /// The leaves of a cell written in life `causalLength`, oldest first: the cell's value and its
    /// conflicts.
    static func leaves(table: String, row: String, column: String, causalLength: Int64,
                       on connection: SQLiteConnection) throws -> [(timestamp: HLCTimestamp, value: SQLValue)] {
        try connection.fetchAll("""
            SELECT ts, value FROM _tessera_sync_versions
            WHERE tbl = ? AND row_id = ? AND col = ? AND known = 1 AND cl = ? ORDER BY ts
            """, [.text(table), .text(row), .text(column), .integer(causalLength)])
            .map { (try HLCTimestamp(parsing: $0[0].text ?? ""), $0[1]) }
    }

    /// Forgets the leaves of a row's older lives (they can never be conflicts again: a life, once
    /// passed, never comes back).
    static func dropOlderLives(table: String, row: String, causalLength: Int64, on connection: SQLiteConnection) throws {
        try connection.execute(
            "DELETE FROM _tessera_sync_versions WHERE tbl = ? AND row_id = ? AND known = 1 AND cl < ?",
            [.text(table), .text(row), .integer(causalLength)])
    }

    /// Every cell in conflict: alive rows, leaves of the current life, more than one of them.
    static func conflicts(on connection: SQLiteConnection) throws -> [SyncConflict] {
        let rows = try connection.fetchAll("""
            SELECT v.tbl, v.row_id, v.col, v.ts, v.value, c.ts FROM _tessera_sync_versions v
            JOIN _tessera_sync_rows r ON r.tbl = v.tbl AND r.row_id = v.row_id
            JOIN _tessera_sync_cells c ON c.tbl = v.tbl AND c.row_id = v.row_id AND c.col = v.col
            WHERE v.known = 1 AND v.cl = r.cl AND c.cl = r.cl AND r.cl % 2 = 1
            ORDER BY v.tbl, v.row_id, v.col, v.ts
            """)
        var conflicts: [SyncConflict] = []
        var index = 0
        while index < rows.count {
            var end = index + 1
            while end < rows.count, rows[end][0] == rows[index][0], rows[end][1] == rows[index][1],
                  rows[end][2] == rows[index][2] { end += 1 }
            if end - index > 1, let conflict = try conflict(Array(rows[index..<end])) { conflicts.append(conflict) }
            index = end
        }
        return conflicts
    }

    /// One cell's conflict from its leaves (rows of ``conflicts(on:)``), or nil if the winner is not
    /// among them.
    private static func conflict(_ leaves: [[SQLValue]]) throws -> SyncConflict? {
        let winner = leaves[0][5].text ?? ""
        var current: VersionedValue?
        var others: [VersionedValue] = []
        for leaf in leaves {
            let version = VersionedValue(value: leaf[4], timestamp: try HLCTimestamp(parsing: leaf[3].text ?? ""))
            if leaf[3].text == winner { current = version } else { others.append(version) }
        }
        guard let current else { return nil }
        return SyncConflict(table: leaves[0][0].text ?? "", row: leaves[0][1].text ?? "", column: leaves[0][2].text ?? "",
                            current: current, others: others)
    }
}
