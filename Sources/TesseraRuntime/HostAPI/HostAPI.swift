import Foundation
import TesseraClock
import TesseraEvents
import TesseraFiles
import TesseraLocation
import TesseraManifest
import TesseraNotifications
import TesseraSDK
import TesseraSync
import TesseraSyncClient

/// What the host's edges (the HTTP API, the console, the OwnTracks feed, the `tessera` commands)
/// may ask of a running host, and nothing more.
///
/// ``PluginHost`` is the one implementation a deployment runs; the edge holds `any HostAPI`, so it
/// can be served, and tested at the router level, against a small host of a test's own. Each
/// requirement is documented where ``PluginHost`` implements it. Requirements have no default
/// arguments (a protocol cannot declare them); the extension below gives the usual ones.
public protocol HostAPI: AnyObject, Sendable {
    // MARK: The deployment and its plugins

    /// The deployment in force (a reload replaces it).
    var deployment: Deployment { get }
    /// The options the host was started with (its data directory, …).
    var options: HostOptions { get }
    /// Starts the enabled plugins, up to `depth`.
    func start(until depth: PluginHost.StartDepth) async
    /// Stops every active plugin.
    func stop() async
    /// Delivers everything deliverable now (events, webhook sends in flight); a one-shot command
    /// calls it before it reads results or ends.
    func settle() async
    /// Adds work that falls due on the host's clock to its timer loop (a hub's mailer, …).
    func addDueWork(_ work: any DueWork)
    /// Starts reading the deployment's location sources (gpsd); cancel the tasks to stop.
    func startLocationSources() -> [Task<Void, Never>]
    /// Starts waiting at the hub for other devices' changes; cancel the tasks to stop.
    func startHubWatch() -> [Task<Void, Never>]
    /// The manifest of plugin `id` as loaded, if the host has it.
    func manifest(of id: String) -> PluginManifest?
    /// The manifests of the plugins the deployment enables.
    func enabledManifests() -> [PluginManifest]
    /// Every plugin's state, reason and history.
    func statuses() -> [PluginStatus]
    /// One plugin's state, if the host has it.
    func status(of id: String) -> PluginStatus?
    /// The pid of a process-tier plugin's child, while it runs.
    func isolatedProcessID(_ pluginID: String) -> Int32?

    // MARK: Operations and files

    /// Calls an operation with JSON text as input.
    func call(_ pluginID: String, _ operation: String, json: [UInt8], as principal: Principal) async throws(PluginError) -> JSONValue
    /// Calls an operation with JSON text as input, for a caller that writes the answer out as
    /// JSON: a process-tier plugin's answer comes as the text its child sent (``OperationAnswer``).
    func answer(_ pluginID: String, _ operation: String, json: [UInt8], as principal: Principal) async throws(PluginError) -> OperationAnswer
    /// Calls an operation.
    func call(_ pluginID: String, _ operation: String, input: JSONValue, as principal: Principal) async throws(PluginError) -> JSONValue
    /// A writer for the body of an upload operation.
    func uploadWriter(_ pluginID: String, _ operation: String, as principal: Principal, mediaType: String?) async throws(PluginError) -> FileWriter
    /// Calls a download operation: the file it answers with.
    func download(_ pluginID: String, _ operation: String, input: JSONValue, as principal: Principal) async throws(PluginError) -> StoredFile

    // MARK: Administration

    /// Swaps plugin `id` to a new build while the host runs.
    func swap(_ id: String, to source: SwapSource, drainTimeout: Duration) async throws(PluginError) -> SwapReport
    /// Restarts a process-tier plugin's child.
    func restartIsolated(_ pluginID: String) async throws(PluginError)
    /// Reads the deployment file again and applies what changed.
    func reload() async throws(PluginError) -> ReloadReport
    /// Whether retired generations keep more code mapped than the deployment allows.
    var restartRecommended: Bool { get }

    // MARK: Clock

    /// The host's clock.
    var clock: any ClockSource { get }
    /// The clock, when it is a virtual one.
    var virtualClock: VirtualClockSource? { get }
    /// Advances the virtual clock, firing what falls due.
    func advanceClock(by seconds: TimeInterval) async throws -> [TimerScheduler.Firing]
    /// Sets the virtual clock to a time, firing what falls due on the way forwards.
    func setClock(to time: Date) async throws -> [TimerScheduler.Firing]
    /// Fires what is due now on the host's clock.
    func runTimers() async

    // MARK: Notifications and events

    /// The inbox, newest last.
    func inbox(unreadOnly: Bool, after id: Int64?, limit: Int) throws -> [InboxEntry]
    /// Marks inbox entries read (all when `nil`); how many changed.
    func markRead(_ ids: [Int64]?) throws -> Int
    /// The inbox's counters (unread, total, …).
    func notificationCounters() throws -> [String: Int64]
    /// Calls `observer` for every notification delivered to the inbox.
    func onNotificationDelivered(_ observer: @escaping @Sendable (InboxEntry) -> Void)
    /// Published events after a position, oldest first.
    func publishedEvents(afterPosition position: Int64, limit: Int) throws -> [(position: Int64, event: PublishedEvent)]
    /// The position of the last published event.
    func lastEventPosition() throws -> Int64
    /// Calls `observer` whenever an event is published.
    func onEventPublished(_ observer: @escaping @Sendable () -> Void)
    /// Each subscriber's delivery position and failures.
    func eventDeliveries() throws -> [EventBus.Status]

    // MARK: Secrets

    /// Every plugin's secrets by name (never their values).
    func secretNames() throws -> [(plugin: String, name: String, updatedAt: Date)]
    /// Removes one secret of a plugin; whether there was one.
    func removeSecret(plugin: String, name: String) throws -> Bool

    // MARK: Location

    /// Takes location fixes from a feed and hands them to the plugins granted location.
    func ingestLocation(_ fixes: [LocationFix], malformed: Int) async -> IngestReport

    // MARK: Sync

    /// The person logged in to the hub on this device, if any.
    var hubPerson: LoggedInPerson? { get }
    /// Whether this device is logged in to a hub.
    var isLoggedInToHub: Bool { get }
    /// The plugins whose tables sync.
    var syncingPlugins: [String] { get }
    /// Each syncing plugin's last round.
    func lastSyncRounds() -> [String: SyncStatus]
    /// A plugin's changes not yet pushed, per table; `nil` when it does not sync.
    func pendingChanges(of pluginID: String) throws -> [String: Int]?
    /// Registers a new account at the hub and logs this device in.
    func syncRegister(_ registration: HubRegistration) async throws -> LoggedInPerson
    /// Logs this device in to the hub.
    func syncLogin(name: String, password: String, device: String) async throws -> LoggedInPerson
    /// Logs this device out of the hub.
    func syncLogout(discardUnsynced: Bool) async throws -> PluginHost.LogoutReport
    /// One sync round of a plugin with the hub now.
    func syncNow(_ pluginID: String) async throws -> DeviceSync.Report
    /// The pull cursor this device holds for a plugin at the hub.
    func pullCursor(of pluginID: String) -> Int64?
    /// The kept conflicts of a plugin's synced tables.
    func syncConflicts(of pluginID: String) throws -> [SyncConflict]
    /// The spaces a plugin's rows belong to on this device.
    func syncSpaces(of pluginID: String) throws -> [String]
    /// This device's connection to its hub, with its token (the person's own channels).
    func loggedInHubConnection() throws -> HubConnection
}

extension HostAPI {
    /// Starts every enabled plugin all the way to `active`.
    public func start() async { await start(until: .active) }

    /// Calls an operation with JSON text as input.
    public func call(_ pluginID: String, _ operation: String, json: some Collection<UInt8>, as principal: Principal) async throws(PluginError) -> JSONValue {
        try await call(pluginID, operation, json: Array(json), as: principal)
    }

    /// The answer as a value: a host without text answers (a test's double) calls as usual.
    public func answer(_ pluginID: String, _ operation: String, json: [UInt8], as principal: Principal) async throws(PluginError) -> OperationAnswer {
        .value(try await call(pluginID, operation, json: json, as: principal))
    }

    /// Swaps plugin `id`, waiting the host's usual time for calls in flight.
    public func swap(_ id: String, to source: SwapSource) async throws(PluginError) -> SwapReport {
        try await swap(id, to: source, drainTimeout: PluginHost.swapDrainTimeout)
    }

    /// The inbox, all or only the unread entries, at most `limit`.
    public func inbox(unreadOnly: Bool, limit: Int) throws -> [InboxEntry] {
        try inbox(unreadOnly: unreadOnly, after: nil, limit: limit)
    }

    /// Takes location fixes, none of them malformed.
    public func ingestLocation(_ fixes: [LocationFix]) async -> IngestReport {
        await ingestLocation(fixes, malformed: 0)
    }

    /// The newest inbox entries, at most `limit`.
    public func inbox(limit: Int) throws -> [InboxEntry] {
        try inbox(unreadOnly: false, after: nil, limit: limit)
    }

    /// The inbox entries after `id`, at most `limit`.
    public func inbox(after id: Int64?, limit: Int) throws -> [InboxEntry] {
        try inbox(unreadOnly: false, after: id, limit: limit)
    }
}

extension PluginHost: HostAPI {
    public func call(_ pluginID: String, _ operation: String, json: [UInt8], as principal: Principal) async throws(PluginError) -> JSONValue {
        try await call(pluginID, operation, text: json, as: principal)
    }
}
