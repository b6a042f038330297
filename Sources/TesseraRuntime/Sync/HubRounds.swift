import Foundation
import Synchronization
import TesseraManifest
@_spi(TesseraHost) import TesseraSDK
import TesseraStorage
import TesseraSync
import TesseraSyncClient
import TesseraSystem

extension HubLink {
    /// The sync state of a plugin that syncs, for the device's sync client and for tests.
    func syncStore(of pluginID: String) -> SyncStore? {
        syncStores[pluginID]
    }
}

/// Sync rounds with the deployment's hub (`providers.sync`).
extension HubLink {
    /// Who owns the device's hub token in the secrets store: the host, not a plugin.
    static let hubTokenOwner = "tessera.host"
    static let hubTokenName = "hub-device-token"

    /// Logs this device in to the deployment's hub and keeps the device token as the host's secret,
    /// and the person it is logged in as (``hubPerson``).
    @discardableResult
    func syncLogin(name: String, password: String, device: String) async throws -> LoggedInPerson {
        let hub = try configuredHub()
        return try keepLogin(try await HubConnection.logIn(baseURL: hub.hub, name: name, password: password, device: device,
                                                                  timeout: hub.timeoutSeconds))
    }

    /// Whether a device token for the hub is kept. A secrets store that cannot be read counts as
    /// logged in (and is logged): this guards logging in and registering, and another person must
    /// not take over a device whose first person's data may still be on it.
    var isLoggedInToHub: Bool {
        do { return try secrets.value(plugin: Self.hubTokenOwner, name: Self.hubTokenName) != nil } catch {
            log(.error, "sync", "whether this device is logged in to its hub could not be read (\(error)); it counts as logged in until it can be")
            return true
        }
    }

    /// The plugins whose tables sync, sorted.
    var syncingPlugins: [String] { syncStores.plugins }

    /// One sync round of `pluginID` with the hub now; then the plugin is told which rows changed.
    func syncNow(_ pluginID: String) async throws -> DeviceSync.Report {
        let hub = try configuredHub()
        guard let store = syncStore(of: pluginID) else {
            throw PluginError(.notFound, "plugin '\(pluginID)' does not sync here: it needs sync.tables in its manifest, the sync grant, and to be active")
        }
        guard let token = try secrets.value(plugin: Self.hubTokenOwner, name: Self.hubTokenName) else {
            throw PluginError(.conflict, "this device is not logged in to \(hub.hub): run `tessera sync login NAME`")
        }
        let connection = HubConnection(baseURL: hub.hub, token: token, timeout: hub.timeoutSeconds)
        var sync = DeviceSync(hub: connection, plugin: pluginID, store: store, state: try peerState())
        sync.tracksRoles = syncStores.roles(of: pluginID) != nil
        // A plugin that keeps files sends their bytes with its records (docs/files.md, "Through the hub").
        sync.files = fileChannels[pluginID].map { DeviceFiles(hub: sync.hub, channel: $0) }
        do {
            try await registerOfflineSpaces(pluginID, with: HubAccess(hub: hub.hub, connection: sync.hub, state: sync.state))
            var report = try await sync.round()
            if let files = sync.files, hub.eagerFiles.contains(pluginID) {
                let fetched = await files.fetchMissing()
                report.fileFailures += fetched.failed
            }
            for failure in report.fileFailures { log(.warning, pluginID, "sync: a file's bytes did not move: \(failure)") }
            syncStatus.withLock { $0[pluginID] = SyncStatus(at: clock.now(), report: report, error: nil) }
            // What other members' plugins addressed to this person's spaces comes with the round.
            do { try await fetchHubNotifications() } catch { log(.warning, "host", "fetching notifications from the hub failed: \(error)") }
            if !report.changedRows.isEmpty || !report.rejected.isEmpty || !report.dropped.isEmpty { await tellRemoteChanges(pluginID, report) }
            return report
        } catch {
            syncStatus.withLock { $0[pluginID] = SyncStatus(at: clock.now(), report: nil, error: "\(error)") }
            throw error
        }
    }

    /// The last round of each syncing plugin since the host started.
    func lastSyncRounds() -> [String: SyncStatus] { syncStatus.withLock { $0 } }

    /// When `pluginID`'s next round is due on the host's clock, if the deployment names a hub.
    func nextSyncRound(of pluginID: String) -> Date? { syncSchedule?.due(of: pluginID) }

    func configuredHub() throws -> Deployment.SyncProvider {
        guard let hub = deployment.sync else {
            throw PluginError(.conflict, "deployment '\(deployment.name)' names no hub: add providers.sync.hub")
        }
        return hub
    }

    /// `<data>/sync-peers.sqlite`, opened on first use.
    func peerState() throws -> SyncPeerState {
        try peerStateStore.withLock { state in
            if let state { return state }
            let opened = try SyncPeerState(path: (options.dataDirectory as NSString).appendingPathComponent("sync-peers.sqlite"))
            state = opened
            return opened
        }
    }

    /// Hands the changed rows, the refused changes taken back and the dropped spaces to the
    /// plugin's handler, if it registered one. A plugin that is not active now (it failed to
    /// start, or was stopped) is told when it next becomes active (``tellUntoldRemoteChanges(_:)``).
    func tellRemoteChanges(_ pluginID: String, _ report: DeviceSync.Report) async {
        var rows: [String: ChangedRow] = [:]
        for row in report.changedRows { rows["\(row.table)\u{0}\(row.row)"] = row }  // the last change of a row tells
        let refused = Set(report.rejected.map { RemoteChanges.Refusal(table: $0.table, id: $0.row, column: $0.column, reason: $0.reason) })
        let changes = RemoteChanges(
            rows: rows.values.sorted().map { RemoteChanges.Row(table: $0.table, id: $0.row, deleted: $0.change == .deleted) },
            refused: refused.sorted { ($0.table, $0.id, $0.column) < ($1.table, $1.id, $1.column) }, droppedSpaces: report.dropped)
        guard let slot = registry[pluginID], let (_, context) = await slot.admit() else {
            keepUntold(changes, for: pluginID)
            return
        }
        defer { slot.endCall() }
        await hand(changes, to: context, of: pluginID)
    }

    /// Tells a plugin that has just become active what sync changed while it was not.
    func tellUntoldRemoteChanges(_ pluginID: String) async {
        // Without a hub there are no rounds, and nothing to open at start.
        guard deployment.sync != nil else { return }
        let state: SyncPeerState, kept: [UInt8]?
        do { state = try peerState(); kept = try state.untold(plugin: pluginID) } catch {
            log(.warning, pluginID, "what sync changed while the plugin was not active could not be read (\(error)); it is told at its next start")
            return
        }
        guard let bytes = kept else { return }
        guard let untold = try? UntoldRemoteChanges.decode(bytes) else {
            log(.warning, pluginID, "the untold sync changes could not be read; the plugin reads its tables instead")
            clearUntold(pluginID, in: state) { _ in nil }
            return
        }
        guard let slot = registry[pluginID], let (_, context) = await slot.admit() else { return }
        defer { slot.endCall() }
        guard await hand(untold.remoteChanges, to: context, of: pluginID) else { return }
        // Cleared only if no round added to it meanwhile (then it is told again, whole, next time).
        clearUntold(pluginID, in: state) { current in current == bytes ? nil : current }
    }

    /// Clears what was kept for the plugin; a failure is said, since it is then told again.
    private func clearUntold(_ pluginID: String, in state: SyncPeerState, _ merge: ([UInt8]?) -> [UInt8]?) {
        do { try state.mergeUntold(plugin: pluginID, merge) } catch {
            log(.warning, pluginID, "the sync changes it was told could not be cleared (\(error)); it may be told them again at its next start")
        }
    }

    /// Calls the plugin's remote-changes handler; whether it took them (no handler: nothing to take).
    @discardableResult
    private func hand(_ changes: RemoteChanges, to context: PluginContext, of pluginID: String) async -> Bool {
        guard let handler = context.hostHandlers.remoteChanges else { return true }
        do {
            try await onSharedPool { try await handler(changes) }
            return true
        } catch {
            log(.warning, pluginID, "remote-changes handler threw: \(error)")
            return false
        }
    }

    private func keepUntold(_ changes: RemoteChanges, for pluginID: String) {
        do {
            try peerState().mergeUntold(plugin: pluginID) { current in
                let earlier = try current.map(UntoldRemoteChanges.decode)
                let later = UntoldRemoteChanges(changes)
                return try (earlier?.merged(with: later) ?? later).encoded()
            }
        } catch {
            log(.warning, pluginID, "could not keep the sync changes for when the plugin is active: \(error)")
        }
    }
}

/// What a plugin's last sync round did, or why it failed.
public struct SyncStatus: Sendable {
    public let at: Date
    public let report: DeviceSync.Report?
    public let error: String?
}

extension HubLink {
    /// The pull cursor this device holds for `pluginID` with the deployment's hub, if any.
    func pullCursor(of pluginID: String) -> Int64? {
        guard let hub = deployment.sync, let state = try? peerState() else { return nil }
        return try? state.cursor(hub: HubConnection.normalized(hub.hub), plugin: pluginID)
    }

    /// How many of this device's own changes of `pluginID`, per space, no push has sent to the
    /// deployment's hub yet (what the next round will push); nil where the plugin does not sync.
    func pendingChanges(of pluginID: String) throws -> [String: Int]? {
        guard let hub = deployment.sync, let store = syncStore(of: pluginID) else { return nil }
        let state = try peerState(), base = HubConnection.normalized(hub.hub)
        var counts: [String: Int] = [:]
        for space in try store.spaces() {
            counts[space] = try store.ownChangeCount(in: space, since: try state.lastPushed(hub: base, plugin: pluginID, space: space))
        }
        return counts
    }
}

extension HubLink {
    /// This device's connection to the deployment's hub, with its device token: for what the
    /// person manages at the hub themselves (their delivery channels, `tessera sync channels`).
    func loggedInHubConnection() throws -> HubConnection {
        let hub = try configuredHub()
        guard let token = try secrets.value(plugin: Self.hubTokenOwner, name: Self.hubTokenName) else {
            throw PluginError(.conflict, "this device is not logged in to \(hub.hub): run `tessera sync login NAME`")
        }
        return HubConnection(baseURL: hub.hub, token: token, timeout: hub.timeoutSeconds)
    }
}
