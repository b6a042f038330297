import Foundation
import TesseraSDK
import TesseraSync

/// One plugin's sync with the hub, from a device: the round of docs/hub.md ("A device's sync
/// round") over a ``SyncStore``.
///
/// ```swift
/// let sync = DeviceSync(hub: HubConnection(baseURL: url, token: token), plugin: "dev.tessera.baby",
///                       store: store, state: try SyncPeerState(path: data + "/sync-peers.sqlite"))
/// let report = try await sync.round()
/// ```
public struct DeviceSync: Sendable {
    public let hub: HubConnection
    public let plugin: String
    public let store: SyncStore
    public let state: SyncPeerState
    /// Changes per push request: well under the hub's 1 MiB body limit (≈20 bytes a change).
    public var pushBatch = 5_000
    /// Changes asked of the hub per pull request: the largest page it serves (`HubStore.maxPullLimit`);
    /// its byte limit may cut a page shorter.
    public var pullPage = 10_000
    /// Changes applied in one transaction when a backlog comes down: pages are gathered until they
    /// hold this many (or the hub has no more), then applied, and only then is the cursor saved.
    /// Random updates of a large store cost a written B-tree page per row per transaction, so a page
    /// of 1,000 cost twice as much per change at 10⁵ changes (docs/benchmarks.md, "Pulling a
    /// backlog"); the writer waits for a transaction this size for well under a second.
    public var applyBatch = DeviceSync.defaultApplyBatch
    /// ``applyBatch``'s default.
    public static let defaultApplyBatch = 10_000
    /// Whether the plugin declares per-plugin roles: then each round also refreshes this person's
    /// plugin role per space and the rows they created, which the device's record API checks.
    public var tracksRoles = false
    /// The plugin's files, if it keeps any: their bytes go up before the records that refer to
    /// them, references that come down are linked, and a dropped space's copies go.
    public var files: DeviceFiles?

    public init(hub: HubConnection, plugin: String, store: SyncStore, state: SyncPeerState) {
        self.hub = hub
        self.plugin = plugin
        self.store = store
        self.state = state
    }

    /// What one round did.
    public struct Report: Sendable {
        /// Spaces the check found in sync before anything moved.
        public var inSyncAtStart: [String] = []
        /// Changes sent, and of those the hub held already.
        public var pushed = 0, duplicates = 0
        /// Changes the hub refused (a viewer's writes, a space the person is not in).
        public var rejected: [PushAnswer.Rejection] = []
        /// Changes received and applied, and the rows they changed.
        public var pulled = 0
        public var changedRows: [ChangedRow] = []
        /// Spaces the hub says were deleted, or that the person is not (or no longer) in.
        public var deleted: [String] = [], notMember: [String] = []
        /// Rows rebuilt without the refused changes (``SyncStore/revert(_:)``).
        public var reverted: [ChangedRow] = []
        /// Spaces whose data this device dropped: deleted, left, or the person was removed.
        public var dropped: [String] = []
        /// Files whose bytes were uploaded before the push of a record referring to them, and
        /// files that could not be (the records were pushed anyway; the bytes go in a later round).
        public var filesUploaded: [String] = []
        public var fileFailures: [DeviceFiles.Failure] = []
        /// Files removed with the records of a dropped space.
        public var filesDropped: [String] = []
        /// How many of ``rejected`` were reverted already.
        var revertedRejections = 0
        /// The transactions the received changes were applied in (see ``DeviceSync/applyBatch``).
        public var pulledBatches = 0

        /// An empty report.
        public init() {}
    }

    /// Checks, pushes what the hub lacks, pulls what this device lacks, and catches up on spaces
    /// the check says differ. Safe to repeat at any point: an interrupted round loses nothing.
    public func round() async throws -> Report {
        var report = Report()
        let local = try store.spaces()
        var roots: [String: UInt32] = [:]
        for space in local { roots[space] = try store.merkle(for: space).rootHash }
        let statuses = try await hub.check(plugin: plugin, roots: roots)
        report.inSyncAtStart = statuses.filter { $0.value == .inSync }.map(\.key).sorted()
        for (space, status) in statuses {
            if status == .deleted { report.deleted.append(space) }
            if status == .notAMember, local.contains(space) { report.notMember.append(space) }
        }
        try await dropDeparted(local, into: &report)
        if let files {
            // Bytes an earlier round could not send (a quota since raised, the network).
            let retried = await files.uploadPending()
            report.filesUploaded += retried.sent
            report.fileFailures += retried.failed
        }
        let writable = local.filter { !report.dropped.contains($0) && statuses[$0] != .inSync }
        for space in writable { try await push(space, since: state.lastPushed(hub: hub.baseURL, plugin: plugin, space: space), into: &report) }
        try revertRefused(into: &report)
        try await pullAll(space: nil, into: &report)
        // A space that still differs holds changes older than this device's marks or cursor (it
        // joined the space later, or a push was lost): push it all and pull it from the start.
        for (space, status) in statuses.sorted(by: { $0.key < $1.key }) {
            guard case .differs = status else { continue }
            let roots = try await hub.check(plugin: plugin, roots: [space: try store.merkle(for: space).rootHash])
            guard roots[space] != .inSync else { continue }
            if local.contains(space) && !report.dropped.contains(space) { try await push(space, since: nil, into: &report) }
            try await pullAll(space: space, into: &report)
        }
        try revertRefused(into: &report)
        if tracksRoles { try await refreshRoles() }
        report.deleted.sort()
        report.notMember.sort()
        return report
    }

    /// Drops the data of the spaces the person no longer belongs to: those the check calls deleted,
    /// and those it calls not-a-member that the hub lists as departures (a space made on this
    /// device and not pushed yet is not a member's either, but is no departure: it stays).
    private func dropDeparted(_ local: [String], into report: inout Report) async throws {
        var departed = Set(report.deleted.filter(local.contains))
        if !report.notMember.isEmpty { departed.formUnion(try await hub.spaces().departures.filter(report.notMember.contains)) }
        for space in departed.sorted() where space != "personal" {
            let rows = try store.dropSpace(space)
            if let files { report.filesDropped += try files.dropCopies(of: rows) }
            report.dropped.append(space)
            report.changedRows += rows
            try state.setLastPushed(nil, hub: hub.baseURL, plugin: plugin, space: space)
            try state.forgetSpaceRoles(space: space, hub: hub.baseURL, plugin: plugin)
        }
    }

    /// The rules the hub keeps for a space, read. Rules this device cannot read fail the round:
    /// taken for "no rules", they would let this person's writes through unchecked until the hub
    /// refused them at the next push (a newer hub's rules need a newer tessera here).
    public static func roleRules(_ json: JSONValue?, of space: String) throws -> SyncRoleRules? {
        guard let json else { return nil }
        do { return try SyncRoleRules(json: json) } catch {
            throw PluginError(.internal, "the hub's role rules for space \(space) cannot be read here: \(error); update tessera on this device")
        }
    }

    /// Keeps the hub's word on this person's plugin role in each space and, where a role changes
    /// only its own rows, which rows are theirs (made on any of their devices).
    private func refreshRoles() async throws {
        var standings: [String: SyncPeerState.SpaceStanding] = [:]
        for entry in try await hub.spaces(plugin: plugin).spaces {
            let standing = SyncPeerState.SpaceStanding(pluginRole: entry.space.pluginRole,
                                                       rules: try Self.roleRules(entry.rules, of: entry.space.id))
            standings[entry.space.id] = standing
            if standing.rule?.hasOwnTables == true {
                try state.addOwnRows(try await hub.rowsCreated(in: entry.space.id, plugin: plugin), space: entry.space.id,
                                     hub: hub.baseURL, plugin: plugin)
            }
        }
        try state.replaceSpaceRoles(standings, hub: hub.baseURL, plugin: plugin)
    }

    /// Takes back the changes the hub refused in this round's pushes (a viewer's writes), once.
    private func revertRefused(into report: inout Report) throws {
        let pending = report.rejected.dropFirst(report.revertedRejections)
        report.revertedRejections = report.rejected.count
        guard !pending.isEmpty else { return }
        let rows = try store.revert(pending.map {
            SyncStore.RefusedChange(space: $0.space, table: $0.table, row: $0.row, timestamp: $0.timestamp, column: $0.column)
        })
        report.reverted += rows
        report.changedRows += rows
    }

    /// Pushes this device's own changes of `space` after `since` in batches, moving the mark after
    /// each answer.
    ///
    /// Own changes only: the log also holds every change pulled from the hub, and sending those
    /// back (as every round did, counted as "already there") cost a round its whole backlog. The
    /// hub lacks a change only if this device made it: every other one came from the hub. The mark
    /// still moves past the pulled ones, so a round after a successful push sends nothing.
    private func push(_ space: String, since: HLCTimestamp?, into report: inout Report) async throws {
        var mark = since
        while true {
            let page = try store.changes(in: space, since: mark, limit: pushBatch)
            guard !page.isEmpty else { return }
            let batch = page.filter { $0.timestamp.node == store.node }
            if !batch.isEmpty {
                if let files {
                    // The bytes before the record: a member who pulls the record can fetch the file.
                    let moved = await files.upload(referencedBy: batch)
                    report.filesUploaded += moved.sent
                    report.fileFailures += moved.failed
                }
                let answer = try await hub.push(plugin: plugin, changes: batch)
                report.pushed += batch.count
                report.duplicates += answer.duplicates
                report.rejected += answer.rejected
            }
            mark = page.last?.timestamp
            try state.setLastPushed(mark, hub: hub.baseURL, plugin: plugin, space: space)
            if page.count < pushBatch { return }
        }
    }

    /// Pulls pages until the hub has no more, applying them ``applyBatch`` changes at a time, each
    /// batch in one transaction before the cursor after it is saved: a device stopped halfway pulls
    /// again from the last batch it applied (applying a change twice changes nothing).
    private func pullAll(space: String?, into report: inout Report) async throws {
        var cursor = space == nil ? try state.cursor(hub: hub.baseURL, plugin: plugin) : 0
        var gathered: [SyncChange] = []
        var more = true
        while more {
            let page = try await hub.pull(plugin: plugin, after: cursor, space: space, limit: pullPage)
            gathered += page.changes
            cursor = page.cursor
            more = page.more
            if !more || gathered.count >= applyBatch {
                try apply(gathered, into: &report)
                gathered = []
                if space == nil { try state.setCursor(cursor, hub: hub.baseURL, plugin: plugin) }
            }
        }
    }

    /// Applies pulled changes in one transaction.
    private func apply(_ changes: [SyncChange], into report: inout Report) throws {
        guard !changes.isEmpty else { return }
        let applied = try store.applyRemote(changes)
        try files?.noteReferences(changes)
        report.pulled += changes.count
        report.pulledBatches += 1
        report.changedRows += applied.rows
    }
}
