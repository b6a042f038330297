import Foundation
import Synchronization
import TesseraSDK
import TesseraSQLite

/// The replication state of one plugin's database, kept in that database (see ``SyncSchema``).
///
/// - Local writes: ``localChanges(from:in:on:)`` stamps record-API changes, already applied in
///   the caller's open transaction, as ``SyncChange``s (``write(_:in:)`` applies and stamps in
///   one go, for callers without the storage capability).
/// - Remote changes: ``applyRemote(_:)`` merges a batch in one transaction and reports which rows
///   of the plugin's tables changed.
/// - Sending: ``changes(in:since:limit:)`` reads the message log of a space, oldest first.
/// - Anti-entropy: ``merkle(for:)`` is the space's merkle trie; equal root hashes mean equal sets
///   of changes.
/// - Conflicts: ``conflicts()`` lists kept conflicts, ``resolveConflict(table:row:column:value:)``
///   resolves one with a new write.
///
/// Merging is a join: applying the same changes twice, or in any order, or grouped into batches
/// any way, gives the same tables, conflicts and tries (the property tests check this).
///
/// Safe to use from any thread: calls take turns on the database's lock, and the clock is held
/// under its own lock for the length of a transaction (always after the database's).
public final class SyncStore: Sendable {
    /// The plugin's database.
    public let database: SQLiteDatabase
    /// This replica's node, stamped on every change made here.
    public let node: HLCNode
    let shapes: [String: SyncTableShape]
    private let clock: Mutex<HybridLogicalClock>

    /// Opens the sync state of the database, creating its tables on first use.
    ///
    /// - Parameters:
    ///   - database: the plugin's database, with its schema migrated.
    ///   - tables: the tables that replicate.
    ///   - node: this replica's node, used only when the sync tables are created (a random one if
    ///     nil); after that the stored node is this replica's identity.
    ///   - now: the host's clock (the physical time of the hybrid clock).
    ///   - maxDrift: how far ahead of `now` a remote clock may be.
    /// - Throws: ``SyncError/tableNotSyncable(table:reason:)`` for a table that breaks a rule (see
    ///   ``SyncTableShape``); ``SQLiteError``.
    public init(database: SQLiteDatabase, tables: [SyncedTable], node: HLCNode? = nil,
                now: @escaping @Sendable () -> Date, maxDrift: Duration = HybridLogicalClock.defaultMaxDrift) throws {
        let (shapes, node, last) = try database.withConnection { connection in
            try connection.migrate(SyncSchema.schema)
            return try connection.transaction(.immediate) {
                let shapes = try Self.loadShapes(tables, on: connection)
                let (stored, last) = try Self.loadNode(proposed: node ?? .random(), on: connection)
                return (shapes, stored, last)
            }
        }
        self.database = database
        self.node = node
        self.shapes = shapes
        self.clock = Mutex(HybridLogicalClock(node: node, now: now, maxDrift: maxDrift, resumingAfter: last))
    }

    /// Opens (creating) the database at `path` and its sync state; see
    /// ``init(database:tables:node:now:maxDrift:)``.
    public convenience init(path: String, tables: [SyncedTable], node: HLCNode? = nil,
                            now: @escaping @Sendable () -> Date, maxDrift: Duration = HybridLogicalClock.defaultMaxDrift) throws {
        try self.init(database: SQLiteDatabase(path: path, statementCacheCapacity: 256), tables: tables, node: node,
                      now: now, maxDrift: maxDrift)
    }

    private static func loadShapes(_ tables: [SyncedTable], on connection: SQLiteConnection) throws -> [String: SyncTableShape] {
        var shapes: [String: SyncTableShape] = [:]
        for table in tables {
            let shape = try SyncTableShape.load(table, from: connection)
            shapes[shape.name] = shape
        }
        return shapes
    }

    private static func loadNode(proposed: HLCNode, on connection: SQLiteConnection) throws -> (HLCNode, HLCTimestamp?) {
        if let row = try connection.fetchOne("SELECT node, last FROM _tessera_sync_clock WHERE id = 1"),
           let node = HLCNode(hex: row[0].text ?? "") {
            return (node, try row[1].text.map(HLCTimestamp.init(parsing:)))
        }
        try connection.execute("INSERT INTO _tessera_sync_clock(id, node, last) VALUES (1, ?, NULL)", [.text(proposed.description)])
        return (proposed, nil)
    }

    // MARK: Sessions

    /// Runs `body` on a merge session in the caller's open transaction on `connection`.
    private func session<T: Sendable>(on connection: SQLiteConnection, _ body: (MergeSession) throws -> T) throws -> T {
        try clock.withLock { clock in
            let session = try MergeSession(connection: connection, shapes: shapes, clock: clock)
            let result = try body(session)
            clock = session.clock
            return result
        }
    }

    /// Runs `body` on a merge session in a new transaction on the store's database.
    func transaction<T: Sendable>(_ body: (MergeSession) throws -> T) throws -> T {
        try database.withConnection { connection in
            try connection.transaction(.immediate) { try session(on: connection, body) }
        }
    }

    // MARK: Local changes

    /// Stamps record-API changes that were just applied to the plugin's tables, in the caller's
    /// open transaction on `connection` (a connection to the plugin's database, e.g. the storage's
    /// writer, inside the transaction that applied them): the stamped changes are merged into the
    /// sync metadata and the message log, and returned for sending.
    ///
    /// - Parameters:
    ///   - changes: the batch, in the order it was applied; changes to tables that are not synced
    ///     are skipped.
    ///   - space: the space the rows belong to.
    /// - Throws: ``SyncError/spaceMismatch(table:row:belongsTo:given:)`` for a row of another space;
    ///   ``SyncError/unknownColumn(table:column:)``; ``HLCError`` if the clock cannot give a
    ///   reading. The caller should roll back then.
    public func localChanges(from changes: [RecordChange], in space: String,
                             on connection: SQLiteConnection) throws -> [SyncChange] {
        precondition(connection.isInTransaction, "localChanges(from:in:on:) runs inside the transaction that applied the changes")
        return try session(on: connection) { session in
            let stamped = try LocalStamper(session: session).stamp(changes, space: space)
            _ = try session.finish(materialize: false)
            return stamped
        }
    }

    /// Applies record-API changes to synced tables and stamps them, in one transaction; returns the
    /// stamped changes. The same semantics as the storage capability's `write` (put replaces the
    /// whole row, patch needs the row, deleting a missing row is fine).
    ///
    /// - Throws: ``SyncError`` (a table not synced, an unknown column, a patch of a missing row, a
    ///   row of another space), ``HLCError``, ``SQLiteError`` for a constraint; nothing is written then.
    @discardableResult
    public func write(_ changes: [RecordChange], in space: String) throws -> [SyncChange] {
        try transaction { session in
            try RecordApplier.apply(changes, shapes: session.shape(named:), on: session.connection)
            let stamped = try LocalStamper(session: session).stamp(changes, space: space)
            _ = try session.finish(materialize: false)
            return stamped
        }
    }

    // MARK: Remote changes

    /// Merges changes received from other replicas, in one transaction, and updates the plugin's
    /// tables to match.
    ///
    /// Changes already in the log are skipped; the rest go into the log and the merkle trie and are
    /// merged (see ``MergeSession``). The clock takes in every timestamp, so local changes made
    /// afterwards order after them.
    ///
    /// - Throws: ``HLCError/clockDrift(clock:physical:maxDrift:remote:)`` if a change comes from a
    ///   clock more than the allowed drift ahead of this host's; ``SyncError`` for a change that
    ///   names an unknown table or column, is malformed, moves a row to another space, or carries
    ///   this replica's node without being in its log (a copied database);
    ///   ``SQLiteError``. Nothing of the batch is applied then.
    @discardableResult
    public func applyRemote(_ changes: [SyncChange]) throws -> AppliedReport {
        try transaction { session in
            for change in changes {
                try session.clock.receive(change.timestamp)
                try session.absorb(change, remote: true)
            }
            var report = try session.finish(materialize: true)
            report.received = changes.count
            return report
        }
    }

    // MARK: Reading

    /// The changes of `space` made after `since` (every change with `nil`), oldest first, at most
    /// `limit` — but never splitting the changes of one timestamp across pages, so the last
    /// change's timestamp is a safe `since` for the next page.
    public func changes(in space: String, since: HLCTimestamp? = nil, limit: Int = .max) throws -> [SyncChange] {
        try database.withConnection { connection in
            var page = try MessageLog.changes(in: space, since: since, limit: limit, on: connection)
            guard page.count == limit, let last = page.last?.timestamp else { return page }
            // The page may end inside one record change's changes: finish that timestamp.
            page.removeAll { $0.timestamp == last }
            return page + (try MessageLog.changes(in: space, at: last, on: connection))
        }
    }

    /// How many changes this replica made in `space` after `since` (all of them without it).
    public func ownChangeCount(in space: String, since: HLCTimestamp? = nil) throws -> Int {
        try database.withConnection { try MessageLog.count(in: space, since: since, node: node, on: $0) }
    }

    /// The spaces this replica holds changes of, in name order.
    public func spaces() throws -> [String] {
        try database.withConnection { try MessageLog.spaces(on: $0) }
    }

    /// The merkle trie of `space`'s changes.
    public func merkle(for space: String) throws -> MerkleTrie {
        try database.withConnection { try MerkleStore.load(space: space, on: $0) }
    }

    /// The sync state of a row: its space and causal length (odd: alive, even: deleted), or nil if
    /// sync has never seen it.
    public func rowState(table: String, row: String) throws -> RowState? {
        try database.withConnection { connection in
            try connection.fetchOne("SELECT space, cl FROM _tessera_sync_rows WHERE tbl = ? AND row_id = ?",
                                    [.text(table), .text(row)])
                .map { RowState(space: $0[0].text ?? "", causalLength: $0[1].integer ?? 0) }
        }
    }

    /// The clock's last reading (of a change made here or received).
    public var lastTimestamp: HLCTimestamp { clock.withLock { $0.lastTimestamp } }

    // MARK: Conflicts

    /// Every cell in conflict, in table, row, column order.
    public func conflicts() throws -> [SyncConflict] {
        try database.withConnection { try ConflictVersions.conflicts(on: $0) }
    }

    /// Resolves a conflict by writing `value` (one of the values in conflict, or a merge of them)
    /// as a new change that supersedes the cell's value and every conflicting one; returns it.
    ///
    /// - Throws: ``SyncError/noConflict(table:row:column:)`` if the cell has no conflict.
    @discardableResult
    public func resolveConflict(table: String, row: String, column: String, value: SQLValue) throws -> SyncChange {
        try transaction { session in
            guard let conflict = try ConflictVersions.conflicts(on: session.connection)
                .first(where: { $0.table == table && $0.row == row && $0.column == column })
            else { throw SyncError.noConflict(table: table, row: row, column: column) }
            return try ConflictResolution.write(conflict, value: value, session: session)
        }
    }
}

/// The sync state of one row.
public struct RowState: Sendable, Hashable {
    /// The space the row belongs to.
    public let space: String
    /// The row's causal length: odd while alive, even once deleted.
    public let causalLength: Int64
    /// Whether the row is alive.
    public var isAlive: Bool { CausalLength.isAlive(causalLength) }

    /// Creates a row state.
    public init(space: String, causalLength: Int64) {
        self.space = space
        self.causalLength = causalLength
    }
}
