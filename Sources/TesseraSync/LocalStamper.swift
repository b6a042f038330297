import TesseraSDK
import TesseraSQLite

/// Turns record-API changes, already applied to the plugin's table in the open transaction, into
/// stamped sync changes, and merges them into the session like any others.
///
/// Each record change gets one timestamp from the clock, shared by the changes it makes:
/// - a **put** of a row that is not alive (never seen, or deleted) first moves it to its next life
///   (an existence change with the next odd causal length); then every writable column becomes a
///   cell write, because a put replaces the whole row (columns not given took their defaults);
/// - a **patch** becomes a write of each column it set (of a row that sync has not seen, but that
///   exists, as a put: the row is adopted whole);
/// - a **delete** of an alive row moves it to its next (even) causal length; deleting a row that is
///   not alive here changes nothing to replicate.
///
/// Values are read back from the table after the write rather than taken from the record change,
/// so replicas receive exactly what this one stores: defaults as evaluated here, and values as
/// converted by the columns' affinity (text "5" in an INTEGER column is stored as 5). Changes to
/// tables that are not synced are skipped.
struct LocalStamper {
    let session: MergeSession

    /// Stamps and merges `changes` (all in `space`), in order; returns the stamped changes.
    func stamp(_ changes: [RecordChange], space: String) throws -> [SyncChange] {
        var stamped: [SyncChange] = []
        for change in changes {
            stamped += try stamp(change, space: space)
        }
        return stamped
    }

    private func stamp(_ change: RecordChange, space: String) throws -> [SyncChange] {
        switch change {
        case .put(let table, let id, _):
            guard let shape = session.shape(named: table) else { return [] }
            return try put(shape, id: id, space: space)
        case .patch(let table, let id, let values):
            guard let shape = session.shape(named: table) else { return [] }
            return try patch(shape, id: id, columns: values.keys.filter { $0.lowercased() != "id" }, space: space)
        case .delete(let table, let id):
            guard let shape = session.shape(named: table) else { return [] }
            return try delete(shape, id: id, space: space)
        @unknown default:
            throw SyncError.malformedChange(table: "?", row: "?", reason: "this host does not know the record change \(change)")
        }
    }

    private func put(_ shape: SyncTableShape, id: String, space: String) throws -> [SyncChange] {
        let key = MergeSession.RowKey(table: shape.name, row: id)
        let values = try TableWriter.read(shape, id: id, on: session.connection)
        var out = Batch(session: session, key: key, space: space, timestamp: try session.clock.send())
        try out.beginLifeIfNeeded()
        if let values {
            for (column, value) in zip(shape.columns, values) { try out.write(column.name, value, shape: shape) }
        }
        return out.changes
    }

    private func patch(_ shape: SyncTableShape, id: String, columns: [String], space: String) throws -> [SyncChange] {
        let key = MergeSession.RowKey(table: shape.name, row: id)
        let patched = try Set(columns.map { name in
            guard let column = shape.column(named: name) else { throw SyncError.unknownColumn(table: shape.name, column: name) }
            return column.name
        })
        let alive = CausalLength.isAlive(try session.row(key, space: space).causalLength)
        guard let values = try TableWriter.read(shape, id: id, on: session.connection) else {
            // Deleted later in the same batch: the delete is what replicates.
            guard alive else { throw SyncError.rowNotFound(table: shape.name, row: id) }
            return []
        }
        guard alive else { return try put(shape, id: id, space: space) }
        var out = Batch(session: session, key: key, space: space, timestamp: try session.clock.send())
        for (column, value) in zip(shape.columns, values) where patched.contains(column.name) {
            try out.write(column.name, value, shape: shape)
        }
        return out.changes
    }

    private func delete(_ shape: SyncTableShape, id: String, space: String) throws -> [SyncChange] {
        let key = MergeSession.RowKey(table: shape.name, row: id)
        let length = try session.row(key, space: space).causalLength
        guard CausalLength.isAlive(length) else { return [] }
        var out = Batch(session: session, key: key, space: space, timestamp: try session.clock.send())
        try out.absorb(.existence, causalLength: CausalLength.deleted(length))
        return out.changes
    }

    /// The changes of one record change: one timestamp, merged into the session as they are made.
    struct Batch {
        let session: MergeSession
        let key: MergeSession.RowKey
        let space: String
        let timestamp: HLCTimestamp
        private(set) var changes: [SyncChange] = []

        init(session: MergeSession, key: MergeSession.RowKey, space: String, timestamp: HLCTimestamp) {
            self.session = session
            self.key = key
            self.space = space
            self.timestamp = timestamp
        }

        /// Moves a row that is not alive to its next life.
        mutating func beginLifeIfNeeded() throws {
            let length = try session.row(key, space: space).causalLength
            if !CausalLength.isAlive(length) { try absorb(.existence, causalLength: CausalLength.inserted(length)) }
        }

        /// Writes a cell in the row's current life; a keep-conflicts cell supersedes the value it
        /// replaces (if that value is of this life).
        mutating func write(_ column: String, _ value: SQLValue, shape: SyncTableShape) throws {
            let meta = try session.row(key, space: space)
            var supersedes: [HLCTimestamp] = []
            if shape.keepConflicts.contains(column), let current = try session.winner(of: column, in: meta, key: key),
               current.causalLength == meta.causalLength {
                supersedes = [try current.timestamp]
            }
            try absorb(.cell(column: column, value: value, supersedes: supersedes), causalLength: meta.causalLength)
        }

        mutating func absorb(_ kind: SyncChange.Kind, causalLength: Int64) throws {
            let change = SyncChange(space: space, table: key.table, row: key.row, causalLength: causalLength,
                                    timestamp: timestamp, kind: kind)
            try session.absorb(change)
            changes.append(change)
        }
    }
}
