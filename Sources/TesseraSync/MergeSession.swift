import TesseraSDK
import TesseraSQLite

/// One transaction's worth of merging: changes go in one by one (``absorb(_:)``), local or remote
/// alike, and ``finish(materialize:)`` writes what they decided.
///
/// Every change goes through the same steps, so a replica that made a change and one that received
/// it hold the same metadata:
/// 1. the message log stores it, or recognises it as delivered before (then nothing else happens);
/// 2. its leaf hash goes into the space's merkle trie;
/// 3. the row's causal length becomes the greater of its own and the change's;
/// 4. a cell write replaces the cell's winner if its ``CellVersion`` is greater;
/// 5. a write to a keep-conflicts column updates that cell's leaves (``ConflictVersions``).
/// Each step is a max or a set union, so the outcome does not depend on the order, or the number
/// of times, changes arrive.
///
/// Rows touched are loaded once and kept in memory until ``finish(materialize:)``, which writes
/// their metadata and (for remote batches) the plugin's table: a row's new life becomes a put, new
/// winners in the same life a patch, a death a delete.
final class MergeSession {
    struct RowKey: Hashable, Comparable {
        let table: String
        let row: String
        // Not a tuple comparison: tuples' generic metadata made sorting a page's rows a tenth of
        // applying it in the debug build.
        static func < (a: RowKey, b: RowKey) -> Bool { a.table != b.table ? a.table < b.table : a.row < b.row }
    }

    /// A touched row: its metadata as loaded, and as merged so far. A class, so that merging a
    /// change updates it in place (a struct in the session's dictionary would be copied, with its
    /// dictionaries, on every change).
    final class RowMeta {
        let key: RowKey
        let space: String
        var causalLength: Int64
        let causalLengthBefore: Int64
        /// Whether `_tessera_sync_rows` had the row before this session.
        let stored: Bool
        /// The winners of the cells looked at so far (loaded one column at a time, on demand).
        var cells: [String: CellVersion] = [:]
        /// Columns looked up in `_tessera_sync_cells` and found to have no winner.
        var unwritten: Set<String> = []
        /// The cells whose winner changed in this session: the winning value and timestamp text.
        var changed: [String: (value: SQLValue, timestamp: String)] = [:]

        init(key: RowKey, space: String, causalLength: Int64, stored: Bool) {
            self.key = key
            self.space = space
            self.causalLength = causalLength
            self.causalLengthBefore = causalLength
            self.stored = stored
        }
    }

    let connection: SQLiteConnection
    let shapes: [String: SyncTableShape]
    private let statements: SessionStatements
    /// The replica's clock, taken from the store for the session and handed back after it.
    var clock: HybridLogicalClock
    private let clockBefore: HLCTimestamp
    private(set) var rows: [RowKey: RowMeta] = [:]
    private var merkle = MerkleDelta()
    private var keepConflictCells: Set<CellAddress> = []
    private var lastTimestamp: (timestamp: HLCTimestamp, text: String)?
    private(set) var stored = 0
    private(set) var duplicates = 0
    /// The clock reading up to which own changes may come back (``SyncStore/dropSpace(_:)``); read once, when needed.
    private var forgottenUntil: String??

    init(connection: SQLiteConnection, shapes: [String: SyncTableShape], clock: HybridLogicalClock) throws {
        self.connection = connection
        self.statements = try SessionStatements(connection)
        self.shapes = shapes
        self.clock = clock
        self.clockBefore = clock.lastTimestamp
    }

    /// The synced table named `name` (as declared, or in another case, as the record API allows).
    func shape(named name: String) -> SyncTableShape? {
        shapes[name] ?? shapes.values.first { $0.name.lowercased() == name.lowercased() }
    }

    /// Whether an own-node change stamped `text` was made before this replica dropped a space.
    private func isForgottenOwn(_ text: String) throws -> Bool {
        if forgottenUntil == nil {
            forgottenUntil = .some(try connection.fetchOne("SELECT forgotten_until FROM _tessera_sync_clock WHERE id = 1")?.first?.text)
        }
        guard let until = forgottenUntil ?? nil else { return false }
        return text <= until
    }

    // MARK: Absorbing changes

    /// Merges one change; returns whether it was new (not delivered before).
    ///
    /// - Throws: ``SyncError`` for a change that names an unknown table or column, is malformed,
    ///   or moves a row to another space; the caller's transaction then rolls back.
    ///   With `remote`, also ``SyncError/sharedNode(node:timestamp:)`` when two replicas share a node.
    @discardableResult
    func absorb(_ change: SyncChange, remote: Bool = false) throws -> Bool {
        let shape = try validate(change)
        let text = timestampText(change.timestamp)
        guard try MessageLog.insert(change, timestampText: text, using: statements.logInsert, on: connection) else {
            // Delivered before, unless a replica sharing the stamp's node made a different change.
            guard try MessageLog.holds(change, timestampText: text, on: connection) else {
                throw SyncError.sharedNode(node: change.timestamp.node.description, timestamp: text)
            }
            duplicates += 1
            return false
        }
        // Every change this replica made is in its log (which is never compacted yet), so one of
        // its own node that is new here was made by a replica sharing the node — unless it was
        // made in a space this replica dropped since (a departure, a logout) and comes back.
        if remote, change.timestamp.node == clock.node, try !isForgottenOwn(text) {
            throw SyncError.sharedNode(node: clock.node.description, timestamp: text)
        }
        stored += 1
        merkle.add(change, hash: change.merkleHash(timestampText: text))
        let key = RowKey(table: change.table, row: change.row)
        let meta = try row(key, space: change.space)
        meta.causalLength = max(meta.causalLength, change.causalLength)
        if case .cell(let column, let value, let supersedes) = change.kind {
            let version = CellVersion(causalLength: change.causalLength, timestampText: text)
            if try winner(of: column, in: meta, key: key).map({ $0 < version }) ?? true {
                meta.cells[column] = version
                meta.changed[column] = (value, text)
            }
            // A write of an older life can never be a conflict again: keep no version of it.
            if shape.keepConflicts.contains(column), change.causalLength == meta.causalLength {
                try ConflictVersions.record(change, value: value, supersedes: supersedes, timestampText: text, on: connection)
                keepConflictCells.insert(CellAddress(table: change.table, row: change.row, column: column))
            }
        }
        return true
    }

    /// The write that holds `column` of the row, if any (looked up once per session).
    func winner(of column: String, in meta: RowMeta, key: RowKey) throws -> CellVersion? {
        if let version = meta.cells[column] { return version }
        guard meta.stored, !meta.unwritten.contains(column) else { return nil }
        let select = statements.cellSelect
        defer { select.reset() }
        try select.bind(key.table, at: 1)
        try select.bind(key.row, at: 2)
        try select.bind(column, at: 3)
        guard try select.step() else {
            meta.unwritten.insert(column)
            return nil
        }
        let version = CellVersion(causalLength: select.int64(at: 0), timestampText: select.text(at: 1))
        meta.cells[column] = version
        return version
    }

    /// The value the cell holds in the row's current life, or nil where no write of this life
    /// holds it (a new life, a column added later). The winner's value is its message in the log,
    /// which keeps every change's value (it is never compacted); a winner of this session is in
    /// ``RowMeta/changed``.
    func currentValue(of column: String, in meta: RowMeta, key: RowKey) throws -> SQLValue? {
        guard let winner = try winner(of: column, in: meta, key: key), winner.causalLength == meta.causalLength else { return nil }
        if let changed = meta.changed[column] { return changed.value }
        let select = statements.valueSelect
        defer { select.reset() }
        try select.bind(meta.space, at: 1)
        try select.bind(winner.timestampText, at: 2)
        try select.bind(column, at: 3)
        guard try select.step() else { return nil }
        return select.value(at: 0)
    }

    /// The row's metadata (loaded on first touch; a row never seen starts at causal length 0 in
    /// `space`).
    ///
    /// - Throws: ``SyncError/spaceMismatch(table:row:belongsTo:given:)`` if the row is in another space.
    func row(_ key: RowKey, space: String) throws -> RowMeta {
        let meta: RowMeta
        if let existing = try existingRow(key) {
            meta = existing
        } else {
            meta = RowMeta(key: key, space: space, causalLength: 0, stored: false)
            rows[key] = meta
        }
        guard meta.space == space else {
            throw SyncError.spaceMismatch(table: key.table, row: key.row, belongsTo: meta.space, given: space)
        }
        return meta
    }

    /// The row's metadata if sync has seen the row (in this session or before).
    func existingRow(_ key: RowKey) throws -> RowMeta? {
        if let cached = rows[key] { return cached }
        let select = statements.rowSelect
        defer { select.reset() }
        try select.bind(key.table, at: 1)
        try select.bind(key.row, at: 2)
        guard try select.step() else { return nil }
        let meta = RowMeta(key: key, space: select.text(at: 0), causalLength: select.int64(at: 1), stored: true)
        rows[key] = meta
        return meta
    }

    /// The shape of the change's table, once the change is known to be well formed.
    private func validate(_ change: SyncChange) throws -> SyncTableShape {
        guard let shape = shapes[change.table] else { throw SyncError.unknownTable(change.table) }
        func malformed(_ reason: String) -> SyncError {
            .malformedChange(table: change.table, row: change.row, reason: reason)
        }
        guard !change.space.isEmpty else { throw malformed("its space is empty") }
        guard !change.row.isEmpty else { throw malformed("its row id is empty") }
        guard change.causalLength >= 1 else { throw malformed("causal length \(change.causalLength) is not positive") }
        if case .cell(let column, _, _) = change.kind {
            guard shape.byName[column] != nil else { throw SyncError.unknownColumn(table: change.table, column: column) }
            guard CausalLength.isAlive(change.causalLength) else {
                throw malformed("cell \(column) is written in causal length \(change.causalLength), an even one (a deleted row)")
            }
        }
        return shape
    }

    /// The text of a timestamp; the changes of one record change share theirs, so the last is kept.
    func timestampText(_ timestamp: HLCTimestamp) -> String {
        if let last = lastTimestamp, last.timestamp == timestamp { return last.text }
        let text = timestamp.text
        lastTimestamp = (timestamp, text)
        return text
    }

    // MARK: Finishing

    /// Writes the touched rows' metadata, the merkle nodes and the clock; with `materialize`, also
    /// brings the plugin's table in line with the merged state and reports what changed.
    func finish(materialize: Bool) throws -> AppliedReport {
        var report = AppliedReport()
        report.stored = stored
        report.duplicates = duplicates
        // In key order, so that each table's B-tree is written front to back.
        for meta in rows.values.sorted(by: { $0.key < $1.key }) {
            let key = meta.key
            guard let shape = shapes[key.table] else { continue }
            try writeMetadata(key, meta, shape)
            if materialize, let change = try Materializer.apply(meta, key: key, shape: shape, on: connection) {
                report.rows.append(ChangedRow(table: key.table, row: key.row, change: change))
            }
        }
        try MerkleStore.apply(merkle, on: connection)
        if clock.lastTimestamp != clockBefore {
            try connection.execute("UPDATE _tessera_sync_clock SET last = ? WHERE id = 1", [.text(clock.lastTimestamp.text)])
        }
        report.conflictedCells = try conflictedCells()
        return report
    }

    private func writeMetadata(_ key: RowKey, _ meta: RowMeta, _ shape: SyncTableShape) throws {
        let lifeChanged = meta.causalLength != meta.causalLengthBefore
        if !meta.stored || lifeChanged {
            try statements.rowUpsert.execute([.text(key.table), .text(key.row), .text(meta.space), .integer(meta.causalLength)])
        }
        let upsert = statements.cellUpsert
        for (column, change) in meta.changed {
            guard let version = meta.cells[column] else { continue }
            defer { upsert.reset() }
            try upsert.bind(key.table, at: 1)
            try upsert.bind(key.row, at: 2)
            try upsert.bind(column, at: 3)
            try upsert.bind(version.causalLength, at: 4)
            try upsert.bind(change.timestamp, at: 5)
            _ = try upsert.step()
        }
        if lifeChanged, !shape.keepConflicts.isEmpty {
            try ConflictVersions.dropOlderLives(table: key.table, row: key.row, causalLength: meta.causalLength, on: connection)
        }
    }

    /// The keep-conflicts cells touched in this session that now show a conflict.
    private func conflictedCells() throws -> [CellAddress] {
        try keepConflictCells.sorted().filter { cell in
            let key = RowKey(table: cell.table, row: cell.row)
            guard let meta = rows[key], CausalLength.isAlive(meta.causalLength),
                  try winner(of: cell.column, in: meta, key: key)?.causalLength == meta.causalLength
            else { return false }
            return try ConflictVersions.leaves(table: cell.table, row: cell.row, column: cell.column,
                                               causalLength: meta.causalLength, on: connection).count > 1
        }
    }
}

extension SyncChange {
    /// ``merkleHash`` with the timestamp's text already at hand.
    func merkleHash(timestampText: String) -> UInt32 {
        Murmur3.hash32(concatenating: timestampText, column)
    }
}
