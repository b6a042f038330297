import Foundation
import Synchronization
import TesseraClock
import TesseraEvents
import TesseraLocation
import TesseraLoader
import TesseraManifest
import TesseraNotifications
import TesseraOutbound
import TesseraSecrets
import TesseraSync
import TesseraSyncClient
import TesseraSDK

/// The Tessera host: reads a deployment, brings each enabled plugin through the gates to `active`,
/// dispatches calls, and fires timers. A plugin that fails anywhere is parked in `rejected` or
/// `failed` with its reason; the others go on.
public final class PluginHost: Sendable {
    /// The capabilities this host provides, with their versions.
    public static let providedCapabilities: [String: SemanticVersion] = [
        "storage": SemanticVersion(1, 0, 0),
        "clock": SemanticVersion(1, 0, 0),
        "notifications": SemanticVersion(1, 0, 0),
        "events": SemanticVersion(1, 0, 0),
        "location": SemanticVersion(1, 0, 0),
        "http": SemanticVersion(1, 0, 0),
        "secrets": SemanticVersion(1, 0, 0),
        "sync": SemanticVersion(1, 0, 0),
    ]

    public let deployment: Deployment
    public let options: HostOptions
    /// The host's clock: the system's, or the data directory's virtual clock.
    public let clock: any ClockSource
    /// Fires plugin timers, and the other work that falls due on the clock.
    public let timers: TimerScheduler
    /// Keeps and delivers notifications.
    public let notifications: NotificationScheduler
    /// Keeps and delivers events between plugins.
    public let events: EventBus
    /// The location feed: checks fixes and hands them to subscribed plugins.
    public let location: LocationFeed
    /// Plugins' secrets, apart from their records (`<data>/secrets.sqlite`).
    public let secrets: SecretStore
    /// Outbound HTTP for plugins granted `http`.
    public let outbound: OutboundTransport
    /// The sync state of each plugin that syncs.
    let syncStores = Mutex<[String: SyncStore]>([:])
    /// When each syncing plugin's next round is due, if the deployment names a hub.
    let syncSchedule: SyncSchedule?
    let syncStatus = Mutex<[String: SyncStatus]>([:])
    let peerStateStore = Mutex<SyncPeerState?>(nil)
    /// Lets the sync schedule, made in `init`, reach the host once it exists.
    let hostBox: HostBox?
    let timerStore: SQLiteTimerStore
    let generations: GenerationStore
    let registry = SlotRegistry()
    let log: HostLog

    /// Opens the data directory (creating it) and the host's own state; starts nothing yet.
    public init(deployment: Deployment, options: HostOptions) throws {
        self.deployment = deployment
        self.options = options
        self.log = options.log
        let data = options.dataDirectory
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let store = try SQLiteTimerStore(path: (data as NSString).appendingPathComponent("host.sqlite"))
        timerStore = store
        generations = GenerationStore(root: (data as NSString).appendingPathComponent("generations"))
        switch deployment.clock {
        case .system:
            clock = SystemClockSource()
        case .virtual(let start):
            let now = try store.loadVirtualNow() ?? start ?? Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01Z
            try store.saveVirtualNow(now)
            clock = VirtualClockSource(start: now) { time in try? store.saveVirtualNow(time) }
        }
        let log = options.log
        let registry = self.registry
        let timers = TimerScheduler(store: store, clock: clock, log: { log(.warning, "host", $0) }) { timer, firedAt in
            await PluginHost.fire(timer, at: firedAt, registry: registry, log: log)
        }
        self.timers = timers
        notifications = NotificationScheduler(
            store: try NotificationStore(path: (data as NSString).appendingPathComponent("notifications.sqlite")),
            clock: clock, settings: NotificationSettings(deployment.notifications),
            log: { log(.info, "notifications", $0) }, scheduled: { timers.wakeup.kick() })
        events = EventBus(log: try EventLog(path: (data as NSString).appendingPathComponent("events.sqlite")), clock: clock,
                          report: { log(.warning, "events", $0) }) { subscriber, event in
            await PluginHost.deliver(event, to: subscriber, registry: registry, log: log)
        }
        location = LocationFeed(clock: clock, futureMargin: TimeInterval(deployment.location.futureMarginSeconds),
                                log: { log(.warning, "location", $0) })
        secrets = try SecretStore(path: (data as NSString).appendingPathComponent("secrets.sqlite"))
        outbound = OutboundTransport(redirects: OutboundRedirects(deployment.http.redirects),
                                     maxResponseBytes: deployment.http.maxResponseBytes)
        if !deployment.http.redirects.isEmpty {
            log(.info, "host", "outbound HTTP redirects in effect: " +
                deployment.http.redirects.keys.sorted().map { "\($0) -> \(deployment.http.redirects[$0]!)" }.joined(separator: ", "))
        }
        if let hub = deployment.sync {
            let box = HostBox()
            let trouble = SyncTroubleReport(hub: hub.hub, every: TimeInterval(hub.everySeconds), log: log)
            let schedule = SyncSchedule(every: TimeInterval(hub.everySeconds)) { plugin in
                guard let host = box.host else { return false }
                do { _ = try await host.syncNow(plugin); trouble.succeeded(plugin); return true } catch {
                    trouble.failed(plugin, error)
                    return false
                }
            }
            syncSchedule = schedule
            timers.add(schedule)
            self.hostBox = box
        } else {
            syncSchedule = nil
            hostBox = nil
        }
        timers.add(notifications)
        if let webhooks = notifications.webhooks { timers.add(webhooks) }
        timers.add(events)
        hostBox?.host = self
    }

    /// The virtual clock, when the deployment uses one.
    public var virtualClock: VirtualClockSource? { clock as? VirtualClockSource }

    // MARK: Statuses

    /// Every plugin the host knows of, in deployment order and then manifest order.
    public func statuses() -> [PluginStatus] { registry.all.map(\.status) }

    /// Whether the retired generations of all plugins keep more code mapped than the deployment's
    /// `hotSwap.retiredBudgetMB`: then a restart is recommended, to unmap it.
    public var restartRecommended: Bool {
        statuses().reduce(0) { $0 + $1.retiredBytes } > deployment.retiredBudgetBytes
    }

    /// One plugin's status.
    public func status(of id: String) -> PluginStatus? { registry[id]?.status }
}
