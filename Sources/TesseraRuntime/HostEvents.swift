import Foundation
import TesseraEvents
import TesseraLocation
import TesseraManifest
import TesseraNotifications
import TesseraSystem
@_spi(TesseraHost) import TesseraSDK

extension PluginHost {
    /// Hands an event to a subscriber's handler, if the subscriber is active now.
    static func deliver(_ event: PublishedEvent, to subscriber: String, registry: SlotRegistry, log: HostLog) async -> EventBus.Outcome {
        guard let slot = registry[subscriber], let (_, context) = await slot.admit() else { return .notActive }
        defer { slot.endCall() }
        guard let handler = context.hostHandlers.event(event.qualifiedName) else {
            return .failed("plugin '\(subscriber)' consumes '\(event.qualifiedName)' but registered no handler for it")
        }
        do {
            try await onSharedPool { try await handler(event) }
            return .delivered
        } catch {
            log(.warning, subscriber, "event '\(event.qualifiedName)' #\(event.sequence) handler threw: \(error)")
            return .failed("\(error)")
        }
    }

    /// Starts reading the deployment's location sources (gpsd), feeding what they report to the
    /// subscribed plugins; cancel the tasks to stop.
    public func startLocationSources() -> [Task<Void, Never>] {
        guard let gpsd = deployment.location.gpsd else { return [] }
        let log = self.log
        let client = GpsdClient(host: gpsd.host, port: UInt16(clamping: gpsd.port), log: log.hook(.warning, "gpsd"))
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
        do { try await notifications.webhooks?.flush() } catch {
            log(.warning, "host", "webhooks: could not read or settle the outbound ledger: \(error)")
        }
    }
}

extension NotificationSettings {
    /// The settings of a deployment's `providers.notifications`.
    init(_ provider: Deployment.NotificationsProvider) {
        self.init(inbox: provider.inbox, log: provider.log, webhooks: provider.webhooks.compactMap(URL.init(string:)),
                  lateAfter: TimeInterval(provider.lateAfterSeconds), lateHorizon: provider.lateHorizonSeconds.map(TimeInterval.init))
    }
}
