import TesseraEvents
import TesseraIsolation
import TesseraManifest
import TesseraSDK
import TesseraStorage

/// `events`: publishing the events the manifest `emits`, directly or in a record batch (then they
/// commit with the batch, in the plugin's outbox, and the host moves them to its log).
struct EventsProvider: CapabilityProvider {
    let name = "events"
    let version = SemanticVersion(1, 0, 0)
    let bus: EventBus
    let log: HostLog

    func prepare(_ request: CapabilityRequest) throws -> any CapabilityBinding {
        let declared = Set(request.manifest.emits)
        let channel = PluginEventChannel(pluginID: request.manifest.id, declared: declared, bus: bus)
        return EventsBinding(channel: channel, declared: declared, storage: request.resources.storage,
                             relay: request.resources.storage.map { relay(from: $0, plugin: request.manifest.id) })
    }

    /// Moves what a commit left in the plugin's outbox to the host's event log.
    ///
    /// The storage keeps this closure (``EventsBinding/commit()``), so it holds the storage weakly:
    /// held strongly, the storage would keep itself, the event bus and their files open after the
    /// host is gone (`HostReleaseTests`).
    private func relay(from storage: SQLitePluginStorage, plugin id: String) -> @Sendable () -> Void {
        let bus = self.bus, log = self.log
        return { [weak storage] in
            guard let storage else { return }
            do { try storage.takeOutbox { try bus.relay(id, $0) } } catch {
                log(.warning, id, "events: could not move the outbox to the host's log (kept for the next try): \(error)")
            }
        }
    }
}

/// The generation's events: once committed, its record batches may emit what its manifest declares.
final class EventsBinding: CapabilityBinding, @unchecked Sendable {
    let channel: PluginEventChannel
    let declared: Set<String>
    let storage: SQLitePluginStorage?
    let relay: (@Sendable () -> Void)?
    private var previous: (names: Set<String>?, committed: (@Sendable () -> Void)?)?

    init(channel: PluginEventChannel, declared: Set<String>, storage: SQLitePluginStorage?, relay: (@Sendable () -> Void)?) {
        self.channel = channel
        self.declared = declared
        self.storage = storage
        self.relay = relay
    }

    var granted: GrantedCapability? { GrantedCapability(.events, channel as any PluginEvents) }

    func commit() throws {
        guard let storage, let relay else { return }
        previous = storage.eventRules
        storage.allowEvents(declared, committed: relay)
    }

    func undo() {
        if let storage, let previous { storage.restoreEventRules(previous) }
    }

    func committed() {
        relay?()  // what a crash left between the plugin's commit and the host's log
    }
}

extension EventsProvider {
    /// The process tier's event calls (``EventsMethods``).
    var childCalls: [ChildCallHandler] {
        [ChildCallHandler(EventsMethods.publish, returningNothing: { call in
            try await call.context.capability(.events).publish(call.params["name"]?.stringValue ?? "", call.params["payload"] ?? .null)
         })]
    }
}
