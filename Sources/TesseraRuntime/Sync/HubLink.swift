import Foundation
import Synchronization
import TesseraClock
import TesseraFiles
import TesseraManifest
import TesseraNotifications
import TesseraSecrets
import TesseraSync
import TesseraSyncClient

/// The part of the host that links this device to the deployment's hub (`providers.sync`): the
/// person logged in and their token, each syncing plugin's rounds and what they changed, the
/// spaces made offline, the long poll that brings rounds forward, the notifications other members'
/// plugins sent through the hub, and logging out (docs/sync.md, docs/hub.md).
///
/// It owns the device's sync state (`<data>/sync-peers.sqlite`) and the last round of each plugin;
/// the plugins' own change logs are their databases' (``SyncStores``).
final class HubLink: Sendable {
    /// The deployment in force (a reload may replace it; its hub does not change without a restart).
    var deployment: Deployment { deploymentInForce() }
    private let deploymentInForce: @Sendable () -> Deployment
    let options: HostOptions
    let clock: any ClockSource
    let log: HostLog
    /// Where the device token and the person are kept, as the host's own secrets.
    let secrets: SecretStore
    /// The sync state of each plugin that syncs.
    let syncStores: SyncStores
    /// When each syncing plugin's next round is due, if the deployment names a hub.
    let syncSchedule: SyncSchedule?
    /// Each plugin's channel to its files, whose bytes travel with its records.
    let fileChannels: FileChannels
    /// Removes the files no record links any more (at logout).
    let fileCollector: FileCollector
    /// The inbox that relayed notifications are filed in, and the pending ones a logout cancels.
    let notifications: NotificationScheduler
    /// The plugins, to tell the active ones what a round changed.
    let registry: SlotRegistry
    /// Wakes the host's timer loop (a round brought forward).
    let wake: @Sendable () -> Void
    /// The last round of each plugin since the host started.
    let syncStatus = Mutex<[String: SyncStatus]>([:])
    let peerStateStore = Mutex<SyncPeerState?>(nil)

    init(deployment: @escaping @Sendable () -> Deployment, options: HostOptions, clock: any ClockSource, secrets: SecretStore,
         syncStores: SyncStores, syncSchedule: SyncSchedule?, fileChannels: FileChannels, fileCollector: FileCollector,
         notifications: NotificationScheduler, registry: SlotRegistry, wake: @escaping @Sendable () -> Void) {
        deploymentInForce = deployment
        self.options = options
        self.clock = clock
        self.log = options.log
        self.secrets = secrets
        self.syncStores = syncStores
        self.syncSchedule = syncSchedule
        self.fileChannels = fileChannels
        self.fileCollector = fileCollector
        self.notifications = notifications
        self.registry = registry
        self.wake = wake
    }
}
