import TesseraSDK
import TesseraSQLite

/// The message log (`_tessera_sync_messages`): every change made here or received, per space, keyed
/// by (space, timestamp, column).
///
/// It is what a replica sends (``changes(in:since:limit:on:)``, in timestamp order), and how a
/// change delivered twice is recognised: ``insert(_:timestampText:on:)`` stores a change only once,
/// and the store merges only what it stored. Like Actual's `messages_crdt`, it keeps every change;
/// compacting it (a snapshot plus a new log) is later work.
enum MessageLog {
    /// Stores `change` unless the log has it, with the session's prepared insert; returns whether
    /// it was new.
    static func insert(_ change: SyncChange, timestampText: String, using insert: Statement,
                       on connection: SQLiteConnection) throws -> Bool {
        let supersedes: SQLValue
        switch change.kind {
        case .cell(_, _, let replaced) where !replaced.isEmpty:
            supersedes = .text(replaced.map(\.text).joined(separator: " "))
        default:
            supersedes = .null
        }
        // Bound one by one rather than from an array of values: this runs once per change merged.
        defer { insert.reset() }
        try insert.bind(change.space, at: 1)
        try insert.bind(timestampText, at: 2)
        try insert.bind(change.column, at: 3)
        try insert.bind(change.table, at: 4)
        try insert.bind(change.row, at: 5)
        try insert.bind(change.causalLength, at: 6)
        try insert.bind(change.value ?? .null, at: 7)
        try insert.bind(supersedes, at: 8)
        _ = try insert.step()
        return connection.changes > 0
    }

    /// Whether the log holds exactly `change` under its key (and not a different change with the
    /// same space, timestamp and column).
    static func holds(_ change: SyncChange, timestampText: String, on connection: SQLiteConnection) throws -> Bool {
        var expected = change
        // SQLite stores a NaN as NULL: compare with the value as the log keeps it.
        if case .cell(let column, .real(let d), let supersedes) = change.kind, d.isNaN {
            expected.kind = .cell(column: column, value: .null, supersedes: supersedes)
        }
        return try changes(in: change.space, at: change.timestamp, on: connection).contains(expected)
    }

    /// The changes of `space` with a timestamp after `since` (all with `nil`), oldest first, at most
    /// `limit`. Page on with the last change's timestamp as the next `since` once a page holds every
    /// change of its last timestamp (the store's pages never split one: see ``SyncStore``).
    static func changes(in space: String, since: HLCTimestamp?, limit: Int,
                        on connection: SQLiteConnection) throws -> [SyncChange] {
        let select = try connection.cachedStatement("""
            SELECT ts, col, tbl, row_id, cl, value, supersedes FROM _tessera_sync_messages
            WHERE space = ? AND ts > ? ORDER BY ts, col LIMIT ?
            """)
        try select.bind([.text(space), .text(since?.text ?? ""), .integer(Int64(clamping: limit))])
        return try read(select, space: space)
    }

    /// How many changes of `space` after `since` carry `node` (the last 16 characters of the
    /// timestamp's text, ``HLCTimestamp/text``).
    static func count(in space: String, since: HLCTimestamp?, node: HLCNode, on connection: SQLiteConnection) throws -> Int {
        let select = try connection.cachedStatement("""
            SELECT count(*) FROM _tessera_sync_messages WHERE space = ? AND ts > ? AND substr(ts, 31) = ?
            """)
        defer { select.reset() }
        try select.bind([.text(space), .text(since?.text ?? ""), .text(node.description)])
        guard try select.step() else { return 0 }
        return Int(select.int64(at: 0))
    }

    /// The changes of `space` made at `timestamp` (those of one record change), in column order.
    static func changes(in space: String, at timestamp: HLCTimestamp, on connection: SQLiteConnection) throws -> [SyncChange] {
        let select = try connection.cachedStatement("""
            SELECT ts, col, tbl, row_id, cl, value, supersedes FROM _tessera_sync_messages
            WHERE space = ? AND ts = ? ORDER BY col
            """)
        try select.bind([.text(space), .text(timestamp.text)])
        return try read(select, space: space)
    }

    /// Steps through a bound SELECT of the log's columns and makes changes of its rows.
    private static func read(_ select: Statement, space: String) throws -> [SyncChange] {
        defer { select.reset() }
        var changes: [SyncChange] = []
        var lastText = ""
        var lastTimestamp: HLCTimestamp?
        while try select.step() {
            let text = select.text(at: 0)
            if text != lastText {
                lastTimestamp = try HLCTimestamp(parsing: text)
                lastText = text
            }
            guard let timestamp = lastTimestamp else { continue }
            let column = select.text(at: 1)
            let kind: SyncChange.Kind = column.isEmpty
                ? .existence
                : .cell(column: column, value: select.value(at: 5),
                        supersedes: try timestamps(select.isNull(at: 6) ? "" : select.text(at: 6)))
            changes.append(SyncChange(space: space, table: select.text(at: 2), row: select.text(at: 3),
                                      causalLength: select.int64(at: 4), timestamp: timestamp, kind: kind))
        }
        return changes
    }

    /// The spaces the log holds changes of, in name order.
    static func spaces(on connection: SQLiteConnection) throws -> [String] {
        // A skip-scan over the key's first column: one probe per space, not one row per change
        // (spaces are never empty, so starting after "" finds the first).
        var spaces: [String] = []
        let next = try connection.cachedStatement("SELECT MIN(space) FROM _tessera_sync_messages WHERE space > ?")
        var after = ""
        while let space = try next.fetchOne([.text(after)])?.first?.text {
            spaces.append(space)
            after = space
        }
        return spaces
    }

    /// Parses space-separated timestamp texts.
    static func timestamps(_ text: String) throws -> [HLCTimestamp] {
        guard !text.isEmpty else { return [] }
        return try text.split(separator: " ").map { try HLCTimestamp(parsing: String($0)) }
    }
}
