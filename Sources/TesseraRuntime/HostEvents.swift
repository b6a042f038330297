import Foundation
import TesseraEvents
import TesseraLocation
import TesseraManifest
import TesseraNotifications
import TesseraOutbound
import TesseraSecrets
import TesseraSDK
import TesseraStorage

extension PluginHost {
    /// Hands an event to a subscriber's handler, if the subscriber is active now.
    static func deliver(_ event: PublishedEvent, to subscriber: String, registry: SlotRegistry, log: HostLog) async -> EventBus.Outcome {
        guard let slot = registry[subscriber], let (_, context) = await slot.admit() else { return .notActive }
        defer { slot.endCall() }
        guard let handler = context.eventHandler(event.qualifiedName) else {
            return .failed("plugin '\(subscriber)' consumes '\(event.qualifiedName)' but registered no handler for it")
        }
        do {
            try await handler(event)
            return .delivered
        } catch {
            log(.warning, subscriber, "event '\(event.qualifiedName)' #\(event.sequence) handler threw: \(error)")
            return .failed("\(error)")
        }
    }

    /// The subscriptions of every plugin with a manifest: which events of which publisher it
    /// consumes. A subscriber that is not active keeps its place until it is.
    public func eventSubscriptions() -> [EventBus.Subscription] {
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

    /// The capabilities beyond storage and clock that a plugin was granted, as objects for its
    /// context. Events emitted in write batches are enabled on its storage here.
    func messagingCapabilities(_ manifest: PluginManifest, grants: [String: JSONValue], storage: SQLitePluginStorage?) throws -> [GrantedCapability] {
        var capabilities: [GrantedCapability] = []
        if let permissions = grants["notifications"] {
            capabilities.append(GrantedCapability(.notifications, notifications.channel(plugin: manifest.id, permissions: permissions) as any PluginNotifications))
        }
        if grants["events"] != nil {
            let declared = Set(manifest.emits)
            capabilities.append(GrantedCapability(.events, PluginEventChannel(pluginID: manifest.id, declared: declared, bus: events) as any PluginEvents))
            if let storage {
                let bus = events, id = manifest.id, log = self.log
                let relay: @Sendable () -> Void = {
                    do { try storage.takeOutbox { try bus.relay(id, $0) } } catch {
                        log(.warning, id, "events: could not move the outbox to the host's log (kept for the next try): \(error)")
                    }
                }
                storage.allowEvents(declared, committed: relay)
                relay()  // what a crash left between the plugin's commit and the host's log
            }
        }
        if grants["location"] != nil {
            capabilities.append(GrantedCapability(.location, location as any PluginLocationFeed))
        }
        if let permissions = grants["http"] {
            let hosts = permissions["hosts"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let id = manifest.id, log = self.log
            let client = OutboundHTTPClient(pluginID: id, allowed: HostAllowList(hosts), transport: outbound) { log(.debug, id, "http: \($0)") }
            capabilities.append(GrantedCapability(.http, client as any PluginHTTPClient))
        }
        if grants["secrets"] != nil {
            let clock = self.clock
            capabilities.append(GrantedCapability(.secrets, PluginSecretChannel(pluginID: manifest.id, store: secrets, now: { clock.now() }) as any PluginSecrets))
        }
        return capabilities
    }

    /// Subscribes an active plugin's location handler to the feed. Each fix goes through the
    /// slot's admission, so a plugin that is stopping or swapped out is not called.
    func subscribeToLocation(_ slot: PluginSlot, context: PluginContext, grants: [String: JSONValue]) {
        guard grants["location"] != nil, context.locationHandler != nil else { return }
        let id = slot.id
        location.subscribe(id) { fix in
            guard let (_, context) = await slot.admit() else { return }
            defer { slot.endCall() }
            try await context.locationHandler?(fix)
        }
    }

    /// Starts reading the deployment's location sources (gpsd), feeding what they report to the
    /// subscribed plugins; cancel the tasks to stop.
    public func startLocationSources() -> [Task<Void, Never>] {
        guard let gpsd = deployment.location.gpsd else { return [] }
        let log = self.log
        let client = GpsdClient(host: gpsd.host, port: UInt16(clamping: gpsd.port), log: { log(.warning, "gpsd", $0) })
        return [Task { [self] in await client.run { fix in _ = await ingestLocation([fix]) } }]
    }

    /// Takes location fixes from a source (OwnTracks, GPX replay, gpsd, the API): checks them and
    /// hands the accepted ones to the subscribed plugins, in timestamp order per device.
    public func ingestLocation(_ fixes: [LocationFix], malformed: Int = 0) async -> IngestReport {
        await location.ingest(fixes, malformed: malformed)
    }

    /// Delivers everything deliverable now: events to active subscribers, and waits for webhook
    /// sends in flight. Tests and one-shot commands call it before looking at results.
    public func settle() async {
        await events.settle()
        try? await notifications.webhooks?.flush()
    }
}

extension NotificationSettings {
    /// The settings of a deployment's `providers.notifications`.
    init(_ provider: Deployment.NotificationsProvider) {
        self.init(inbox: provider.inbox, log: provider.log, webhooks: provider.webhooks.compactMap(URL.init(string:)),
                  lateAfter: TimeInterval(provider.lateAfterSeconds), lateHorizon: provider.lateHorizonSeconds.map(TimeInterval.init))
    }
}
