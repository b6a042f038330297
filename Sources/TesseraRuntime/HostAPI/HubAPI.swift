import Foundation
import TesseraSync
import TesseraSyncClient
@_spi(TesseraHost) import TesseraSDK

/// This device and the deployment's hub: each is the ``HubLink``'s (`Sync/`), which owns the
/// device's sync state, its login and its rounds.
extension PluginHost {
    /// What a logout removed.
    public struct LogoutReport: Sendable {
        /// Per syncing plugin, the rows removed.
        public var rows: [String: Int] = [:]
        /// Files removed (`plugin/address`).
        public var files: [String] = []
        /// Pending notifications cancelled.
        public var notifications = 0
    }

    /// Logs this device in to the deployment's hub and keeps the device token as the host's secret,
    /// and the person it is logged in as (``hubPerson``).
    @discardableResult
    public func syncLogin(name: String, password: String, device: String) async throws -> LoggedInPerson {
        try await hub.syncLogin(name: name, password: password, device: device)
    }

    /// Registers a person at the deployment's hub and logs this device in as them, in one request.
    /// A device logged in already is refused (`conflict`): it holds one person's data at a time.
    @discardableResult
    public func syncRegister(_ registration: HubRegistration) async throws -> LoggedInPerson {
        try await hub.syncRegister(registration)
    }

    /// Logs this device out: a last round of every syncing plugin (unless `discardUnsynced`), then
    /// the person's synced rows, their files, pending notifications, sync state and token go.
    public func syncLogout(discardUnsynced: Bool = false) async throws -> LogoutReport {
        try await hub.syncLogout(discardUnsynced: discardUnsynced)
    }

    /// Whether a device token for the hub is kept (an unreadable secrets store counts as logged in).
    public var isLoggedInToHub: Bool { hub.isLoggedInToHub }

    /// The person this device is logged in as, or `nil` when it is not logged in.
    public var hubPerson: LoggedInPerson? { hub.hubPerson }

    /// This device's connection to the deployment's hub, with its device token.
    public func loggedInHubConnection() throws -> HubConnection { try hub.loggedInHubConnection() }

    /// The plugins whose tables sync, sorted.
    public var syncingPlugins: [String] { hub.syncingPlugins }

    /// One sync round of `pluginID` with the hub now; then the plugin is told which rows changed.
    public func syncNow(_ pluginID: String) async throws -> DeviceSync.Report { try await hub.syncNow(pluginID) }

    /// The last round of each syncing plugin since the host started.
    public func lastSyncRounds() -> [String: SyncStatus] { hub.lastSyncRounds() }

    /// When `pluginID`'s next round is due on the host's clock, if the deployment names a hub.
    public func nextSyncRound(of pluginID: String) -> Date? { hub.nextSyncRound(of: pluginID) }

    /// The pull cursor this device holds for `pluginID` with the deployment's hub, if any.
    public func pullCursor(of pluginID: String) -> Int64? { hub.pullCursor(of: pluginID) }

    /// How many of this device's own changes of `pluginID`, per space, the next round will push;
    /// `nil` where the plugin does not sync.
    public func pendingChanges(of pluginID: String) throws -> [String: Int]? { try hub.pendingChanges(of: pluginID) }

    /// While the host serves, waits at the hub for each syncing plugin (a long poll), so other
    /// devices' changes arrive in seconds; cancel the tasks to stop.
    public func startHubWatch() -> [Task<Void, Never>] { hub.startHubWatch() }

    /// Fetches what the hub filed for this device's person into the inbox; how many were new.
    @discardableResult
    public func fetchHubNotifications(from start: Int64? = nil) async throws -> Int { try await hub.fetchHubNotifications(from: start) }

    /// The idempotency keys of the notifications queued for the hub, oldest first.
    public func notificationRelayKeys() throws -> [String] { try hub.notificationRelayKeys() }
}
