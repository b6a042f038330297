import Foundation
import Synchronization
import TesseraClock
import TesseraEvents
import TesseraFiles
import TesseraLocation
import TesseraLoader
import TesseraManifest
import TesseraNotifications
import TesseraOutbound
import TesseraSecrets
import TesseraSync
import TesseraSyncClient
@_spi(TesseraHost) import TesseraSDK

/// The Tessera host: reads a deployment, brings each enabled plugin through the gates to `active`,
/// dispatches calls, and fires timers. A plugin that fails anywhere is parked in `rejected` or
/// `failed` with its reason; the others go on.
public final class PluginHost: Sendable {
    /// The deployment in force: the one read at start, or the last one a reload applied
    /// (``reload()``).
    public var deployment: Deployment { generations.deployment }
    public let options: HostOptions
    /// The host's clock: the system's, or the data directory's virtual clock.
    public let clock: any ClockSource
    /// Fires plugin timers, and the other work that falls due on the clock.
    let timers: TimerScheduler
    /// Keeps and delivers notifications.
    let notifications: NotificationScheduler
    /// Keeps and delivers events between plugins.
    let events: EventBus
    /// The location feed: checks fixes and hands them to subscribed plugins.
    let location: LocationFeed
    /// Plugins' secrets, apart from their records (`<data>/secrets.sqlite`).
    let secrets: SecretStore
    /// Outbound HTTP for plugins granted `http`.
    let outbound: OutboundTransport
    /// Plugins' files (`<data>/files.sqlite`, `<data>/plugins/<id>/files/`), each plugin's channel
    /// to them, and their collection on the clock (docs/files.md).
    let files: FileStore, fileChannels: FileChannels
    /// This device's link to the deployment's hub: login, sync rounds, spaces, relayed notifications.
    let hub: HubLink
    let timerStore: SQLiteTimerStore
    /// The plugins by id; each slot says which generation serves (``generations`` changes that).
    let registry = SlotRegistry()
    /// Starts, swaps, reloads and stops plugins, each through the one generation pipeline.
    let generations: GenerationOrchestrator
    let log: HostLog
    /// One provider per capability, in the order they prepare a generation.
    let providers: CapabilityProviders

    /// The capabilities this host provides, with their versions.
    public var providedCapabilities: [String: SemanticVersion] { providers.versions }

    /// Opens the data directory (creating it) and the host's own state; starts nothing yet.
    public init(deployment: Deployment, options: HostOptions) throws {
        self.options = options
        self.log = options.log
        let data = options.dataDirectory
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let store = try SQLiteTimerStore(path: (data as NSString).appendingPathComponent("host.sqlite"))
        timerStore = store
        switch deployment.clock {
        case .system:
            clock = SystemClockSource()
        case .virtual(let start):
            let now = try store.loadVirtualNow() ?? start ?? Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01Z
            try store.saveVirtualNow(now)
            let log = options.log
            clock = VirtualClockSource(start: now) { time in
                // The clock moves on in memory either way; said, since after a restart it would be
                // back at the last time kept, and what fell due since would fall due again.
                do { try store.saveVirtualNow(time) } catch {
                    log(.error, "host", "the virtual clock moved to \(time) but could not be kept in host.sqlite: \(error); a restart would take it back")
                }
            }
        }
        let log = options.log
        let registry = self.registry
        // The timers and the events reach the plugins through the registry, held weakly: a plugin's
        // storage keeps the relay to the event bus, so the bus holding the registry (and through it
        // the plugin's slot and that storage) would keep all of them, and their files, for good.
        let timers = TimerScheduler(store: store, clock: clock, log: log.hook(.warning, "host")) { [weak registry] timer, firedAt in
            guard let registry else { return .deferred }
            return await PluginHost.fire(timer, at: firedAt, registry: registry, log: log)
        }
        self.timers = timers
        // What is scheduled wakes the timers' loop through this, never through `timers`: the timers
        // hold the work they fire (notifications, events…), and a closure of that work holding the
        // timers would keep both, and their databases open, after the host is gone.
        let wakeup = timers.wakeup
        var notificationSettings = NotificationSettings(deployment.notifications)
        notificationSettings.relaySpaces = deployment.sync != nil
        notifications = NotificationScheduler(
            store: try NotificationStore(path: (data as NSString).appendingPathComponent("notifications.sqlite")),
            clock: clock, settings: notificationSettings,
            log: log.hook(.info, "notifications"), scheduled: { wakeup.kick() })
        events = EventBus(log: try EventLog(path: (data as NSString).appendingPathComponent("events.sqlite")), clock: clock,
                          report: log.hook(.warning, "events")) { [weak registry] subscriber, event in
            guard let registry else { return .notActive }
            return await PluginHost.deliver(event, to: subscriber, registry: registry, log: log)
        }
        location = LocationFeed(clock: clock, futureMargin: TimeInterval(deployment.location.futureMarginSeconds),
                                log: log.hook(.warning, "location"))
        secrets = try SecretStore(path: (data as NSString).appendingPathComponent("secrets.sqlite"))
        outbound = OutboundTransport(redirects: OutboundRedirects(deployment.http.redirects),
                                     maxResponseBytes: deployment.http.maxResponseBytes)
        if !deployment.http.redirects.isEmpty {
            log(.info, "host", "outbound HTTP redirects in effect: " +
                deployment.http.redirects.keys.sorted().map { "\($0) -> \(deployment.http.redirects[$0]!)" }.joined(separator: ", "))
        }
        // Lets the sync schedule, the relay and the sync provider, made here, reach the host once
        // it exists (their closures hold the box).
        let box: HostBox? = deployment.sync == nil ? nil : HostBox()
        let syncSchedule: SyncSchedule?
        if let hub = deployment.sync, let box {
            let trouble = SyncTroubleReport(hub: hub.hub, every: TimeInterval(hub.everySeconds), log: log)
            let schedule = SyncSchedule(every: TimeInterval(hub.everySeconds)) { plugin in
                guard let host = box.host else { return false }
                do { _ = try await host.hub.syncNow(plugin); trouble.succeeded(plugin); return true } catch {
                    trouble.failed(plugin, error)
                    return false
                }
            }
            syncSchedule = schedule
            timers.add(schedule)
            timers.add(HubNotificationRelay(store: notifications.store, clock: clock, access: {
                guard let host = box.host else { throw PluginError(.notLoggedIn, "the host is not running") }
                return try host.hub.hubAccess(timeout: HubNotificationRelay.requestTimeout)
            }, log: log.hook(.warning, "notifications")))
            notifications.onRelayQueued { wakeup.kick() }
        } else {
            syncSchedule = nil
        }
        timers.add(notifications)
        if let webhooks = notifications.webhooks { timers.add(webhooks) }
        timers.add(events)
        files = FileStore(dataDirectory: data)
        let fileChannels = FileChannels()
        self.fileChannels = fileChannels
        let fileCollector = FileCollector(store: files, clock: clock, recordExists: fileChannels.recordExists)
        timers.add(fileCollector)
        let stores = SyncStores()
        providers = Self.providers(dataDirectory: data, clock: clock, timerStore: store, notifications: notifications, events: events,
                                   location: location, secrets: secrets, outbound: outbound, syncStores: stores,
                                   syncSchedule: syncSchedule, wake: { wakeup.kick() }, box: box, log: log,
                                   files: FilesProvider(store: files, clock: clock, channels: fileChannels, remote: box.map(HubFileSource.init)))
        generations = GenerationOrchestrator(deployment: deployment, options: options, clock: clock, registry: registry,
                                             providers: providers, timerStore: store, events: events)
        let generations = self.generations
        hub = HubLink(deployment: { generations.deployment }, options: options, clock: clock, secrets: secrets, syncStores: stores,
                      syncSchedule: syncSchedule, fileChannels: fileChannels, fileCollector: fileCollector,
                      notifications: notifications, registry: registry, wake: { wakeup.kick() })
        box?.host = self
    }

    /// A host let go without ``stop()`` (a test's, most often) forgets its plugins' handlers as a
    /// stop would: a handler that captured its context would keep the context, its capabilities
    /// and the host's stores alive, and their files open, after the host is gone.
    deinit {
        for slot in registry.all { slot.withState { $0.context }?.removeAllHandlers() }
    }

    /// The host's capability providers: storage first (events and sync work on its database).
    private static func providers(
        dataDirectory: String, clock: any ClockSource, timerStore: SQLiteTimerStore, notifications: NotificationScheduler,
        events: EventBus, location: LocationFeed, secrets: SecretStore, outbound: OutboundTransport, syncStores: SyncStores,
        syncSchedule: SyncSchedule?, wake: @escaping @Sendable () -> Void, box: HostBox?, log: HostLog,
        files: FilesProvider
    ) -> CapabilityProviders {
        CapabilityProviders(all: [
            StorageProvider { id in try GenerationOrchestrator.openStorage(id, dataDirectory: dataDirectory, clock: clock) },
            ClockProvider(source: clock, timers: timerStore),
            NotificationsProvider(scheduler: notifications) { id in syncStores[id] != nil },
            EventsProvider(bus: events, log: log),
            LocationProvider(feed: location),
            HTTPClientProvider(transport: outbound, log: log),
            SecretsProvider(store: secrets, clock: clock),
            SyncProvider(stores: syncStores, clock: clock, schedule: syncSchedule, wake: wake, hubAccess: {
                guard let host = box?.host else { throw PluginError(.notLoggedIn, "this host syncs with no hub (no providers.sync.hub)") }
                return try host.hub.hubAccess()
            }, tellUntold: { plugin in
                await box?.host?.hub.tellUntoldRemoteChanges(plugin)
            }, roleBook: { try box?.host?.hub.roleBook() }),
            files,
        ])
    }

    /// The virtual clock, when the deployment uses one.
    public var virtualClock: VirtualClockSource? { clock as? VirtualClockSource }

    // MARK: Statuses

    /// Every plugin the host knows of, in deployment order and then manifest order.
    public func statuses() -> [PluginStatus] { registry.all.map(\.status) }

    /// Whether the retired generations of all plugins keep more code mapped than the deployment's
    /// `hotSwap.retiredBudgetMB`: then a restart is recommended, to unmap it.
    public var restartRecommended: Bool { generations.restartRecommended }

    /// One plugin's status.
    public func status(of id: String) -> PluginStatus? { registry[id]?.status }
}
