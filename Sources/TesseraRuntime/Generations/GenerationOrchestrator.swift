import Foundation
import Synchronization
import TesseraClock
import TesseraEvents
import TesseraLoader
import TesseraManifest
import TesseraSDK

/// The part of the host that changes which code serves each plugin: it starts the plugins, swaps
/// one to a new build, applies a reloaded deployment and stops them all, and each of those goes
/// through the same ``GenerationPipeline`` sequence, whichever tier the plugin runs in (DESIGN.md
/// §5, §8; docs/architecture.md, "Generations").
///
/// It owns the deployment in force (a reload replaces it) and is the only writer of the slots'
/// generations; the rest of the host reads the slots to dispatch calls, timers and events.
final class GenerationOrchestrator: Sendable {
    let options: HostOptions
    let clock: any ClockSource
    let log: HostLog
    /// The plugins by id; each slot says which generation serves.
    let registry: SlotRegistry
    /// Checks grants against the capabilities provided, and prepares a generation's context.
    let providers: CapabilityProviders
    /// Stage → gates → load → context → start → commit, for every tier, start and swap alike.
    let pipeline: GenerationPipeline
    /// Where a start's or swap's changed subscriptions take effect.
    let events: EventBus
    /// The manifests this host build checked before, recorded beside the staged builds: a start or
    /// a swap does not check them again (``CheckedManifests``).
    let checkedManifests: CheckedManifests?
    private let deploymentInForce: Mutex<Deployment>
    /// A reload is under way (one at a time).
    let reloading = Mutex(false)

    init(deployment: Deployment, options: HostOptions, clock: any ClockSource, registry: SlotRegistry, providers: CapabilityProviders,
         timerStore: SQLiteTimerStore, events: EventBus) {
        deploymentInForce = Mutex(deployment)
        self.options = options
        self.clock = clock
        self.log = options.log
        self.registry = registry
        self.providers = providers
        self.events = events
        let generations = GenerationStore(root: (options.dataDirectory as NSString).appendingPathComponent("generations"))
        checkedManifests = CheckedManifests(folder: generations.root + "/.checked-manifests")
        pipeline = GenerationPipeline(options: options, providers: providers, generations: generations,
                                      clock: clock, timerStore: timerStore, log: options.log)
    }

    /// The deployment in force: the one read at start, or the last one a reload applied.
    var deployment: Deployment { deploymentInForce.withLock { $0 } }

    /// Puts `next` in force (a reload that passed its checks).
    func putInForce(_ next: Deployment) { deploymentInForce.withLock { $0 = next } }

    /// Whether the retired generations of all plugins keep more code mapped than the deployment's
    /// `hotSwap.retiredBudgetMB`.
    var restartRecommended: Bool {
        registry.all.reduce(0) { $0 + $1.status.retiredBytes } > deployment.retiredBudgetBytes
    }

    /// Where a plugin's code runs: the deployment entry's `isolation` if it says, else the manifest's.
    func isolationTier(of manifest: PluginManifest) -> Isolation {
        deployment.entry(for: manifest.id)?.isolation ?? manifest.isolation
    }

    // MARK: Event routes

    /// Routes events by the current manifests' `consumes` (after a start, a swap or a reload) and
    /// delivers what is waiting.
    func refreshEventRoutes() {
        events.setSubscriptions(eventSubscriptions())
        events.kick()
    }

    /// The subscriptions of every enabled plugin with a manifest: which events of which publisher it
    /// consumes. A subscriber that is not active keeps its place until it is.
    func eventSubscriptions() -> [EventBus.Subscription] {
        let deployment = self.deployment
        var subscriptions: [EventBus.Subscription] = []
        for slot in registry.all {
            guard let manifest = slot.withState({ $0.manifest }), deployment.entry(for: manifest.id)?.enabled == true else { continue }
            var byPublisher: [String: Set<String>] = [:]
            for name in manifest.consumes {
                guard let slash = name.lastIndex(of: "/") else { continue }
                byPublisher[String(name[..<slash]), default: []].insert(String(name[name.index(after: slash)...]))
            }
            for (publisher, names) in byPublisher {
                subscriptions.append(.init(subscriber: manifest.id, publisher: publisher, names: names))
            }
        }
        return subscriptions
    }
}
