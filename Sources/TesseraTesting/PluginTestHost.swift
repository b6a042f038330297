import Foundation
import Synchronization
@_exported import TesseraClock
@_exported import TesseraEvents
@_exported import TesseraLocation
@_exported import TesseraNotifications
import TesseraManifest
import TesseraRuntime
@_exported import TesseraSDK
import TesseraStorage

/// A real Tessera host around one plugin, for the plugin's own unit tests.
///
/// The plugin's code is linked into the test binary and handed to the host as a factory, so there is
/// no host process and no `dlopen`: the library gates (locating, checking and loading a library) are
/// skipped. Everything else is the host's own code path — the manifest is read and checked, grants
/// and config are checked against it, storage is migrated, the plugin starts, its jobs are scheduled,
/// and every call is validated against the operation's schema and roles before it reaches the plugin.
///
/// ```swift
/// let host = try await PluginTestHost(manifest: "manifests/notes.json", plugin: { NotesPlugin() })
/// let saved = try await host.call("add-note", ["text": "buy milk"])
/// _ = try await host.advanceClock(by: 3600)
/// await host.stop()
/// ```
///
/// Each host has its own temporary data directory and a virtual clock; both go away with ``stop()``.
public final class PluginTestHost: Sendable {
    /// The plugin's id, from its manifest.
    public let pluginID: String
    /// The host the plugin runs in, for anything this type does not wrap.
    public let host: PluginHost
    /// The temporary folder holding the deployment, the manifest copy and the data directory.
    public let directory: String
    private let reader = Mutex<SQLitePluginStorage?>(nil)

    /// Starts a host with the plugin in-process, and waits until the plugin is active.
    ///
    /// - Parameters:
    ///   - manifest: the path of the plugin's `manifest.json`.
    ///   - plugin: makes a new instance of the plugin, e.g. `{ NotesPlugin() }`.
    ///   - config: the plugin's config, as an operator would write it in the deployment.
    ///   - grants: the capabilities granted, as in a deployment's `grants`; by default every capability
    ///     the manifest requires, with the permissions it requests.
    ///   - start: where the virtual clock starts.
    ///   - syncHub: the hub the device syncs with (the deployment's `providers.sync.hub`); log in
    ///     with `host.syncLogin(name:password:device:)`, then rounds run on the virtual clock. Each
    ///     request to it waits up to two minutes for an answer (`providers.sync.timeout`).
    ///   - eagerFiles: whether the plugin's files are fetched from the hub right after each round
    ///     (`providers.sync.eagerFiles`) rather than when first read.
    ///   - isolation: `"process"` runs the plugin's built library (`lib<library.name>.so`, found
    ///     beside the test executable, as `swift build` leaves it) in the process tier
    ///     (docs/isolation.md) instead of the factory in this process; `nil` reads
    ///     `$TESSERA_TEST_ISOLATION`, so a module's whole suite runs in either tier unchanged.
    ///   - httpRedirects: URL prefixes sent elsewhere by the `http` capability, e.g.
    ///     `["https://fioapi.fio.cz": "http://127.0.0.1:\(port)"]`: the plugin's real service URLs
    ///     reach an emulator on loopback (the deployment's `providers.http.redirects`).
    /// - Throws: ``PluginTestHostError`` if the plugin did not become active (with its state and
    ///   reason), or the error reading the manifest or starting the host.
    public init(
        manifest: String,
        plugin: @escaping @Sendable () -> any Plugin,
        config: JSONValue = [:],
        grants: [String: JSONValue]? = nil,
        start: Date = Date(timeIntervalSince1970: 1_767_225_600),  // 2026-01-01T00:00:00Z
        httpRedirects: [String: String] = [:],
        syncHub: String? = nil,
        eagerFiles: Bool = false,
        isolation: String? = nil
    ) async throws {
        let tier = isolation ?? ProcessInfo.processInfo.environment["TESSERA_TEST_ISOLATION"]
        let declared = try ManifestReader.read(file: manifest)
        pluginID = declared.id
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tessera-test-\(UUID().uuidString.lowercased())").path
        let manifests = directory + "/manifests"
        do {
            try FileManager.default.createDirectory(atPath: manifests, withIntermediateDirectories: true)
            // A copy alone in its folder, so that no other manifest next to it is read.
            try FileManager.default.copyItem(atPath: manifest, toPath: manifests + "/manifest.json")
            let granted = grants ?? Dictionary(declared.requires.map { ($0.capability, [:] as JSONValue) }) { a, _ in a }
            var providers: [String: JSONValue] = [
                "storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": .string(start.formatted(.iso8601))],
                "http": ["redirects": .object(httpRedirects.mapValues { .string($0) })],
            ]
            if let syncHub {
                // A hub request waits up to two minutes, not a deployment's 30 s: a test's hub shares
                // its process and cores with the rest of a suite, whose load can hold an answer back.
                providers["sync"] = ["hub": .string(syncHub), "eagerFiles": eagerFiles ? [.string(declared.id)] : [], "timeout": "2m"]
            }
            var pluginEntry: [String: JSONValue] = ["id": .string(declared.id), "config": config, "grants": .object(granted)]
            if tier == "process" { pluginEntry["isolation"] = "process" }
            let deployment: JSONValue = [
                "name": "plugin-test", "role": "device",
                "manifestDirectories": [.string(manifests)],
                "providers": .object(providers),
                "plugins": [.object(pluginEntry)],
            ]
            let file = directory + "/deployment.json"
            try deployment.serialized().write(toFile: file, atomically: true, encoding: .utf8)
            host = try PluginHost(deployment: DeploymentReader.read(file: file), options: HostOptions(
                dataDirectory: directory + "/data", onlyPlugins: [declared.id],
                inProcessPlugins: tier == "process" ? [:] : [declared.id: PluginFactory(plugin)]))
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        await host.start()
        if let status = host.status(of: pluginID), status.state != .active {
            await host.stop()
            try? FileManager.default.removeItem(atPath: directory)
            throw PluginTestHostError(pluginID: pluginID, state: status.state, reason: status.reason, history: status.history)
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Calls one of the plugin's operations as a caller with `role` would.
    ///
    /// The host checks the operation is declared, that `role` may call it and that `input` satisfies
    /// its schema, before the plugin sees it.
    /// - Throws: the host's ``PluginError``, exactly as a user would get it (a schema violation is
    ///   `invalidInput` with the offending field, e.g. `$.text`); ``UnlistedReason`` when the
    ///   plugin refuses with a `reason` its manifest's `reasons` does not list (the host answers such
    ///   a refusal and logs it; a test stops on it so that the list stays whole).
    public func call(_ operation: String, _ input: JSONValue = [:], as role: Principal.Role = .user) async throws -> JSONValue {
        do {
            return try await host.call(pluginID, operation, input: input, as: Principal(id: "test-\(role)", role: role))
        } catch {
            if let reason = error.reason, host.manifest(of: pluginID)?.reasons[reason.rawValue] == nil {
                throw UnlistedReason(pluginID: pluginID, operation: operation, error: error)
            }
            throw error
        }
    }

    /// Moves the virtual clock forward by `seconds`, firing every timer and job that falls due, in
    /// time order, each at its due time. Returns the firings, with what each one's handler did.
    @discardableResult
    public func advanceClock(by seconds: TimeInterval) async throws -> [TimerScheduler.Firing] {
        let firings = try await host.advanceClock(by: seconds)
        await host.settle()
        return firings
    }

    // MARK: Notifications and events

    /// The notifications delivered to the host's inbox so far, oldest first.
    public func deliveredNotifications() throws -> [InboxEntry] {
        try host.inbox(after: 0, limit: Int.max)
    }

    /// The plugin's notifications still to be delivered, soonest first.
    public func pendingNotifications() throws -> [ScheduledNotification] {
        try host.pendingNotifications(plugin: pluginID)
    }

    /// The events the plugin has published so far, in order.
    public func publishedEvents() throws -> [PublishedEvent] {
        try host.publishedEvents(of: pluginID)
    }

    /// Feeds location fixes as a source would (needs the `location` grant and a handler registered
    /// with `onLocationFix`): they are checked, sorted per device, and handed to the plugin before
    /// this returns. The report says what was accepted and what was dropped, and why.
    @discardableResult
    public func feedLocation(_ fixes: [LocationFix]) async -> IngestReport {
        await host.ingestLocation(fixes)
    }

    /// Publishes an event as another plugin would, and waits until the plugin's handler (if it
    /// consumes `publisher/name`) has run. The manifest must list it under `events.consumes`.
    public func deliver(_ name: String, from publisher: String, payload: JSONValue = [:]) async throws {
        try host.publishEvent(publisher, name: name, payload: payload)
        await host.settle()
    }

    /// The virtual clock's time.
    public var now: Date { host.clock.now() }

    /// Runs one read-only SQL statement on the plugin's own database, to check what it stored.
    ///
    /// - Throws: a `PluginError` if the plugin has no database (storage not granted), or the storage
    ///   error for SQL that is not a single read-only statement.
    public func query(_ sql: String, _ parameters: [SQLValue] = []) async throws -> [Row] {
        try await storage().query(sql, parameters)
    }

    /// The names of the secrets the plugin stored (never their values), sorted.
    public func secretNames() throws -> [String] {
        try host.secretNames(plugin: pluginID)
    }

    /// The path of the plugin's own database file, e.g. to check that a secret never reached it.
    public var databasePath: String { host.storagePath(pluginID) }

    /// Stops the plugin and the host, and removes the temporary directory.
    public func stop() async {
        await host.stop()
        reader.withLock { $0 = nil }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A second connection to the database the host opened for the plugin (`plugins/<id>/storage.sqlite`).
    private func storage() throws -> SQLitePluginStorage {
        try reader.withLock { reader in
            if let reader { return reader }
            let path = host.storagePath(pluginID)
            guard FileManager.default.fileExists(atPath: path) else {
                throw PluginError(.notFound, "plugin '\(pluginID)' has no database: is storage granted?")
            }
            let clock = host.clock
            let opened = try SQLitePluginStorage(pluginID: pluginID, path: path, now: { clock.now() })
            reader = opened
            return opened
        }
    }
}

/// A refusal whose `reason` the plugin's manifest does not list under `reasons`.
public struct UnlistedReason: Error, CustomStringConvertible {
    /// The plugin's id.
    public let pluginID: String
    /// The operation that refused.
    public let operation: String
    /// The refusal, as the host would answer it.
    public let error: PluginError

    /// What to add to the manifest.
    public var description: String {
        "operation '\(operation)' of '\(pluginID)' refused with reason '\(error.reason?.rawValue ?? "")', which the manifest's "
            + "'reasons' does not list: add it there with a sentence saying when it is given (\(error))"
    }
}

/// The plugin did not become active in a ``PluginTestHost``.
public struct PluginTestHostError: Error, CustomStringConvertible {
    /// The plugin's id.
    public let pluginID: String
    /// Where it stopped, e.g. `rejected` or `failed`.
    public let state: LifecycleState
    /// Why, in one line.
    public let reason: String?
    /// Every step it went through, as `tessera plugins why` shows them.
    public let history: [String]

    /// What went wrong, with the steps taken.
    public var description: String {
        "plugin '\(pluginID)' did not become active: \(state.rawValue)\(reason.map { " (\($0))" } ?? "")\n"
            + history.map { "  \($0)" }.joined(separator: "\n")
    }
}

