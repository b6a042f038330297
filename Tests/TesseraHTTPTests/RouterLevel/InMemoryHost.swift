import Foundation
import Synchronization
import TesseraClock
import TesseraEvents
import TesseraFiles
import TesseraLocation
import TesseraManifest
import TesseraNotifications
import TesseraRuntime
import TesseraSDK
import TesseraSync
import TesseraSyncClient

/// A host of the router-level tests' own: no plugins loaded, no database, no socket. Its one
/// plugin's operations are closures; every call is recorded, so a test can tell whether the edge
/// asked the host at all. What these tests do not reach answers `unavailable`.
final class InMemoryHost: HostAPI {
    /// An operation's behaviour: the input and the caller in, the answer (or a refusal) out.
    typealias Operation = @Sendable (JSONValue, Principal) throws(PluginError) -> JSONValue

    /// What the edge asked: plugin, operation, the caller's role.
    struct Call: Equatable {
        var plugin: String
        var operation: String
        var role: Principal.Role
    }

    static let pluginID = "test.memory"

    let deployment: Deployment
    let options: HostOptions
    let clock: any ClockSource = FixedClock()
    private let operations: [String: Operation]
    private let recorded = Mutex<[Call]>([])

    /// A host in `dataDirectory` (the token store's too) whose plugin answers `operations`.
    init(dataDirectory: String, operations: [String: Operation]) throws {
        self.operations = operations
        options = HostOptions(dataDirectory: dataDirectory)
        deployment = try DeploymentReader.decode(["name": "router-level", "role": "device", "plugins": []], file: dataDirectory + "/deployment.json")
    }

    /// The calls the edge passed on, in order.
    var calls: [Call] { recorded.withLock { $0 } }

    // MARK: Operations

    func call(_ pluginID: String, _ operation: String, input: JSONValue, as principal: Principal) async throws(PluginError) -> JSONValue {
        recorded.withLock { $0.append(Call(plugin: pluginID, operation: operation, role: principal.role)) }
        guard pluginID == Self.pluginID else { throw PluginError(.notFound, "no plugin '\(pluginID)' in this host") }
        guard let handler = operations[operation] else { throw PluginError(.notFound, "plugin '\(pluginID)' has no operation '\(operation)'") }
        return try handler(input, principal)
    }

    func call(_ pluginID: String, _ operation: String, json: [UInt8], as principal: Principal) async throws(PluginError) -> JSONValue {
        let input: JSONValue
        do { input = try JSONValue(parsing: json) } catch { throw PluginError(.invalidInput, "the input is not JSON: \(error)", field: "$") }
        return try await call(pluginID, operation, input: input, as: principal)
    }

    // MARK: What these tests leave alone

    private static func absent() -> PluginError { PluginError(.unavailable, "not in the router-level tests' host") }

    func start(until depth: PluginHost.StartDepth) async {}
    func stop() async {}
    func settle() async {}
    func addDueWork(_ work: any DueWork) {}
    func startLocationSources() -> [Task<Void, Never>] { [] }
    func startHubWatch() -> [Task<Void, Never>] { [] }
    func manifest(of id: String) -> PluginManifest? { nil }
    func enabledManifests() -> [PluginManifest] { [] }
    func statuses() -> [PluginStatus] { [] }
    func status(of id: String) -> PluginStatus? { nil }
    func isolatedProcessID(_ pluginID: String) -> Int32? { nil }
    func uploadWriter(_ pluginID: String, _ operation: String, as principal: Principal, mediaType: String?) async throws(PluginError) -> FileWriter {
        throw Self.absent()
    }
    func download(_ pluginID: String, _ operation: String, input: JSONValue, as principal: Principal) async throws(PluginError) -> StoredFile {
        throw Self.absent()
    }
    func swap(_ id: String, to source: SwapSource, drainTimeout: Duration) async throws(PluginError) -> SwapReport { throw Self.absent() }
    func restartIsolated(_ pluginID: String) async throws(PluginError) { throw Self.absent() }
    /// What ``reload()`` answers; a test sets it.
    let reloadOutcome = Mutex<Result<ReloadReport, PluginError>>(.failure(InMemoryHost.absent()))
    func reload() async throws(PluginError) -> ReloadReport { try reloadOutcome.withLock { $0 }.get() }
    var restartRecommended: Bool { false }
    var virtualClock: VirtualClockSource? { nil }
    func advanceClock(by seconds: TimeInterval) async throws -> [TimerScheduler.Firing] { throw Self.absent() }
    func setClock(to time: Date) async throws -> [TimerScheduler.Firing] { throw Self.absent() }
    func runTimers() async {}
    func inbox(unreadOnly: Bool, after id: Int64?, limit: Int) throws -> [InboxEntry] { [] }
    func markRead(_ ids: [Int64]?) throws -> Int { 0 }
    func notificationCounters() throws -> [String: Int64] { [:] }
    func onNotificationDelivered(_ observer: @escaping @Sendable (InboxEntry) -> Void) {}
    func publishedEvents(afterPosition position: Int64, limit: Int) throws -> [(position: Int64, event: PublishedEvent)] { [] }
    func lastEventPosition() throws -> Int64 { 0 }
    func onEventPublished(_ observer: @escaping @Sendable () -> Void) {}
    func eventDeliveries() throws -> [EventBus.Status] { [] }
    func secretNames() throws -> [(plugin: String, name: String, updatedAt: Date)] { [] }
    func removeSecret(plugin: String, name: String) throws -> Bool { false }
    func ingestLocation(_ fixes: [LocationFix], malformed: Int) async -> IngestReport { IngestReport() }
    var hubPerson: LoggedInPerson? { nil }
    var isLoggedInToHub: Bool { false }
    var syncingPlugins: [String] { [] }
    func lastSyncRounds() -> [String: SyncStatus] { [:] }
    func pendingChanges(of pluginID: String) throws -> [String: Int]? { nil }
    func syncRegister(_ registration: HubRegistration) async throws -> LoggedInPerson { throw Self.absent() }
    func syncLogin(name: String, password: String, device: String) async throws -> LoggedInPerson { throw Self.absent() }
    func syncLogout(discardUnsynced: Bool) async throws -> PluginHost.LogoutReport { throw Self.absent() }
    func syncNow(_ pluginID: String) async throws -> DeviceSync.Report { throw Self.absent() }
    func pullCursor(of pluginID: String) -> Int64? { nil }
    func syncConflicts(of pluginID: String) throws -> [SyncConflict] { [] }
    func syncSpaces(of pluginID: String) throws -> [String] { [] }
    func loggedInHubConnection() throws -> HubConnection { throw Self.absent() }
}

/// A clock that reads one instant and never sleeps: the router-level tests fire no timers.
struct FixedClock: ClockSource {
    let instant = Date(timeIntervalSince1970: 1_772_438_400)  // 2026-03-02T08:00:00Z
    func now() -> Date { instant }
    func sleep(until deadline: Date) async throws { throw CancellationError() }
}
