import TesseraSDK
import TesseraSQLite

/// Turns record-API changes, already applied to the plugin's table in the open transaction, into
/// stamped sync changes, and merges them into the session like any others.
///
/// **A write stamps only the cells whose value it changes.** A cell whose stored value (its
/// winner's, in the row's current life) equals the value after the write is left alone and keeps
/// its old timestamp. Why: plugins rewrite whole rows (a put with every column, a read-modify-write
/// patch), and a fresh timestamp on a cell the person did not change would make it win over
/// another device's real edit of that cell, last-writer-wins, and silently undo it. Compared byte
/// for byte and type for type (``SQLValue/isStoredSame(as:)``).
///
/// Each record change that changes something gets one timestamp from the clock, shared by the
/// changes it makes; one that changes nothing takes no timestamp and replicates nothing:
/// - a **put** of a row that is not alive (never seen, or deleted) first moves it to its next life
///   (an existence change with the next odd causal length) and writes every writable column (no
///   cell of the new life holds a value yet); a put of an alive row writes each column whose value
///   differs, columns not given included (they took their defaults);
/// - a **patch** writes each column it set whose value differs (a patch of a row that sync has not
///   seen, but that exists, is a put: the row is adopted whole);
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
        var out = Batch(session: session, key: key, space: space)
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
        var out = Batch(session: session, key: key, space: space)
        for (column, value) in zip(shape.columns, values) where patched.contains(column.name) {
            try out.write(column.name, value, shape: shape)
        }
        return out.changes
    }

    private func delete(_ shape: SyncTableShape, id: String, space: String) throws -> [SyncChange] {
        let key = MergeSession.RowKey(table: shape.name, row: id)
        let length = try session.row(key, space: space).causalLength
        guard CausalLength.isAlive(length) else { return [] }
        var out = Batch(session: session, key: key, space: space)
        try out.absorb(.existence, causalLength: CausalLength.deleted(length))
        return out.changes
    }

    /// The changes of one record change: one timestamp, taken from the clock by the first change
    /// (a record change that changes nothing takes none), merged into the session as they are made.
    struct Batch {
        let session: MergeSession
        let key: MergeSession.RowKey
        let space: String
        private var timestamp: HLCTimestamp?
        private(set) var changes: [SyncChange] = []

        init(session: MergeSession, key: MergeSession.RowKey, space: String) {
            self.session = session
            self.key = key
            self.space = space
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
            if let current = try session.currentValue(of: column, in: meta, key: key), current.isStoredSame(as: value) { return }
            var supersedes: [HLCTimestamp] = []
            if shape.keepConflicts.contains(column), let current = try session.winner(of: column, in: meta, key: key),
               current.causalLength == meta.causalLength {
                supersedes = [try current.timestamp]
            }
            try absorb(.cell(column: column, value: value, supersedes: supersedes), causalLength: meta.causalLength)
        }

        mutating func absorb(_ kind: SyncChange.Kind, causalLength: Int64) throws {
            let stamp = try timestamp ?? session.clock.send()
            timestamp = stamp
            let change = SyncChange(space: space, table: key.table, row: key.row, causalLength: causalLength,
                                    timestamp: stamp, kind: kind)
            try session.absorb(change)
            changes.append(change)
        }
    }
}

extension SQLValue {
    /// Whether SQLite stores the two as the same value: the same storage class and the same bytes.
    /// Stricter than `==`, which holds canonically equivalent but differently encoded text equal
    /// (a precomposed "é" and "e" with a combining accent) and 0.0 equal to -0.0.
    func isStoredSame(as other: SQLValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.integer(let a), .integer(let b)): return a == b
        case (.real(let a), .real(let b)): return a.bitPattern == b.bitPattern
        case (.text(let a), .text(let b)): return a.utf8.elementsEqual(b.utf8)
        case (.blob(let a), .blob(let b)): return a == b
        default: return false
        }
    }
}
