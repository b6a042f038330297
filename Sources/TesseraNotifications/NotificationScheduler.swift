import Foundation
import Synchronization
import TesseraClock
@_spi(TesseraHost) import TesseraSDK

/// Where delivered notifications go, and how lateness is treated: the deployment's
/// `providers.notifications`.
public struct NotificationSettings: Sendable, Hashable {
    /// Store them in the host's inbox (listed by `tessera notifications list` and the API).
    public var inbox: Bool
    /// Write a log line for each.
    public var log: Bool
    /// POST each as JSON to these URLs, with an `Idempotency-Key` header.
    public var webhooks: [URL]
    /// A delivery this long after its due time is marked late.
    public var lateAfter: TimeInterval
    /// Late deliveries older than this are dropped and counted (`droppedLate`), if set.
    public var lateHorizon: TimeInterval?
    /// Notifications to a space's members go to the hub (the deployment names one) rather than
    /// into this inbox.
    public var relaySpaces = false

    public init(inbox: Bool = true, log: Bool = false, webhooks: [URL] = [], lateAfter: TimeInterval = 60,
                lateHorizon: TimeInterval? = nil) {
        self.inbox = inbox
        self.log = log
        self.webhooks = webhooks
        self.lateAfter = lateAfter
        self.lateHorizon = lateHorizon
    }
}

/// Fires notifications on the host's clock and delivers each occurrence through the sinks.
///
/// An occurrence is delivered in one transaction that writes its inbox entries and outbound
/// deliveries and moves the schedule on (see ``NotificationStore``). After downtime, a one-off
/// that fell due is delivered marked late; a recurring notification delivers its latest missed
/// occurrence, marked late, and counts the earlier missed ones as `superseded` (nobody wants
/// seven "evening check-in" reminders at once after a week away). Past the deployment's late
/// horizon an occurrence is dropped and counted instead.
public final class NotificationScheduler: DueWork {
    public let name = "notifications"
    public let store: NotificationStore
    public let settings: NotificationSettings
    /// Sends the webhooks; `nil` without webhook sinks.
    public let webhooks: WebhookDispatcher?
    let clock: any ClockSource
    let logLine: @Sendable (String) -> Void
    let observers = Mutex<[@Sendable (InboxEntry) -> Void]>([])
    let relayKicks = Mutex<[@Sendable () -> Void]>([])
    /// Kicked when a schedule may fall due sooner than the clock loop expects.
    let scheduled: @Sendable () -> Void

    public init(store: NotificationStore, clock: any ClockSource, settings: NotificationSettings,
                log: @escaping @Sendable (String) -> Void = { _ in }, scheduled: @escaping @Sendable () -> Void = {}) {
        self.store = store
        self.clock = clock
        self.settings = settings
        self.logLine = log
        self.scheduled = scheduled
        webhooks = settings.webhooks.isEmpty ? nil : WebhookDispatcher(store: store, clock: clock, log: log)
    }

    /// The `notifications` capability for one plugin; `syncs` says whether the plugin syncs now
    /// (addressing a space's members needs it).
    public func channel(plugin: String, permissions: JSONValue, syncs: @escaping @Sendable () -> Bool = { false }) -> PluginNotificationChannel {
        PluginNotificationChannel(plugin: plugin, center: self,
                                  maxPending: permissions["maxPending"]?.integerValue.map(Int.init) ?? 10_000,
                                  spaces: permissions["spaces"]?.boolValue ?? false, syncs: syncs)
    }

    /// Brings the host's relay round when an occurrence queued notifications for the hub.
    public func onRelayQueued(_ kick: @escaping @Sendable () -> Void) { relayKicks.withLock { $0.append(kick) } }

    func relayQueued() { for kick in relayKicks.withLock({ $0 }) { kick() } }

    /// Calls `observer` with every new inbox entry, after it is stored (the SSE stream uses this).
    public func onDelivered(_ observer: @escaping @Sendable (InboxEntry) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    // MARK: DueWork

    public func nextDue() throws -> Date? { try store.earliestDue() }

    public func runDue(now: Date) async throws {
        while true {
            let due = try store.due(by: now, limit: 256)
            if due.isEmpty { return }
            for notification in due { try deliver(notification, now: now) }
        }
    }

    // MARK: Delivering

    /// Delivers the occurrence of `notification` that is due (or the latest missed one).
    func deliver(_ notification: ScheduledNotification, now: Date) throws {
        guard let due = notification.nextDue else { return }
        var occurrence = due
        var superseded: Int64 = 0
        var next: Date?
        do {
            next = try notification.occurrence(after: occurrence)
            while let later = next, later <= now {
                occurrence = later
                superseded += 1
                next = try notification.occurrence(after: later)
            }
        } catch {
            logLine("notification \(notification.plugin)/\(notification.request.key) removed: \(error)")
            try store.remove(plugin: notification.plugin, key: notification.request.key)
            return
        }
        let lateness = now.timeIntervalSince(occurrence)
        let late = lateness > settings.lateAfter
        var record = NotificationStore.OccurrenceRecord(
            continuation: next.map { var n = notification; n.nextDue = $0; return n },
            inbox: [], outbound: [], counts: [:], expectedDue: due,
            plugin: notification.plugin, key: notification.request.key)
        if superseded > 0 { record.counts["superseded"] = superseded }
        if late, let horizon = settings.lateHorizon, lateness > horizon {
            record.counts["droppedLate", default: 0] += 1
            _ = try store.record(record, now: now)
            logLine("notification \(notification.plugin)/\(notification.request.key) due \(occurrence.formatted(.iso8601)) dropped: \(Int(lateness)) s late, past the horizon")
            return
        }
        let relayed = settings.relaySpaces && notification.request.recipient.spaceID != nil
        record.counts[relayed ? "relayQueued" : "delivered"] = Int64(notification.recipients.count)
        if late { record.counts["late"] = Int64(notification.recipients.count) }
        for recipient in notification.recipients {
            let entry = InboxEntry(id: 0, plugin: notification.plugin, key: notification.request.key, recipient: recipient,
                                   title: notification.request.title, body: notification.request.body,
                                   payload: notification.request.payload, dueAt: occurrence, deliveredAt: now, late: late,
                                   priorityName: notification.request.priority.rawValue,
                                   messageJSON: notification.request.message.map { $0.json.serialized() })
            if relayed {
                // The members' hosts deliver it (this one too, if its person is a member).
                record.relay.append(entry)
                continue
            }
            if settings.inbox { record.inbox.append(entry) }
            for url in settings.webhooks {
                let key = Self.idempotencyKey(entry)
                var body = entry.json.objectValue ?? [:]
                body["id"] = .string(key)
                record.outbound.append((url.absoluteString, key, .object(body)))
            }
            if settings.log {
                logLine("notification\(entry.priority == .normal ? "" : " (\(entry.priority.rawValue))") for \(recipient) from \(entry.plugin): \(entry.title)\(late ? " (late, due \(occurrence.formatted(.iso8601)))" : "")")
            }
        }
        guard let added = try store.record(record, now: now) else { return }
        if !record.relay.isEmpty { relayQueued() }
        let observers = self.observers.withLock { $0 }
        for entry in added { for observer in observers { observer(entry) } }
        if !record.outbound.isEmpty { webhooks?.kick() }
    }

    /// The same for every attempt at one occurrence for one recipient, so a receiver can drop repeats.
    static func idempotencyKey(_ entry: InboxEntry) -> String {
        let millis = Int64((entry.dueAt.timeIntervalSince1970 * 1000).rounded())
        let raw = "\(entry.plugin)|\(entry.key)|\(millis)|\(entry.recipient)"
        return "tn1-" + Data(raw.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
