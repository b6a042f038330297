import Foundation
import TesseraOnDemand
import Synchronization
import TesseraSDK

/// Sends the deliveries queued for people's channels (``HubChannelStore/queueChannelDeliveries``), on
/// the hub's clock (docs/hub.md, "Delivery channels"):
///
/// - **webhook**: a POST of the notification as JSON, with `Idempotency-Key` (the same on every
///   attempt) and `Tessera-Signature` (``WebhookSignature``). A 2xx settles it; a network error,
///   a timeout (10 s), 408, 429 or a 5xx is tried again after 2 s, 4 s, 8 s, … (at most an hour
///   apart), up to ``maxAttempts`` attempts; any other answer drops it.
/// - **email**: a plain-text message into the hub's mail outbox, which ``HubMailer`` sends and
///   retries itself.
///
/// Log lines name a webhook's host only, never its path or query (which may hold a secret), and
/// never a secret.
public final class HubChannelSender: Sendable {
    /// How many attempts before a webhook delivery is dropped.
    public static let maxAttempts = 10

    /// What one ``deliverDue()`` did.
    public struct Outcome: Sendable, Hashable {
        /// Webhook POSTs answered 2xx.
        public var sent = 0
        /// E-mails put into the mail outbox.
        public var mailed = 0
        /// Failed attempts that will be tried again.
        public var retried = 0
        /// Deliveries given up: a 4xx other than 408/429, or the last attempt failed.
        public var dropped = 0
        public init() {}
    }

    let store: HubStore
    let log: @Sendable (String) -> Void
    /// Everything every pass did since the sender was made (the hub's counters).
    private let totals = Mutex(Outcome())

    public init(store: HubStore, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.log = log
    }

    /// The counters since start: sent, mailed, retried, dropped.
    public var counters: Outcome { totals.withLock { $0 } }

    /// The pause before the next attempt after `attempts` failed ones: 2 s, 4 s, … at most an hour.
    public static func retryDelayMillis(afterAttempts attempts: Int) -> Int64 {
        min(Int64(1000) << Int64(min(max(attempts, 1), 12)), 3_600_000)
    }

    /// Sends every delivery due now on the hub's clock (a batch's webhooks at once) and waits for
    /// the answers.
    @discardableResult
    public func deliverDue() async -> Outcome {
        var outcome = Outcome()
        while true {
            let batch: [HubChannelStore.ClaimedDelivery]
            do { batch = try await store.channels.claimDueDeliveries(limit: 20) } catch {
                log("the channel deliveries could not be read (\(error)); nothing is sent until they can be")
                break
            }
            guard !batch.isEmpty else { break }
            let results = await withTaskGroup(of: Outcome.self) { group in
                for delivery in batch { group.addTask { await self.deliver(delivery) } }
                var sum = Outcome()
                for await one in group { sum.add(one) }
                return sum
            }
            outcome.add(results)
        }
        totals.withLock { $0.add(outcome) }
        return outcome
    }

    /// Delivers until cancelled: what is due, then waits for new deliveries or the next retry (at
    /// most a minute, so a replica also sends what another queued).
    public func run() async {
        while !Task.isCancelled {
            let generation = store.channels.channelSignal.generation
            await deliverDue()
            // Unreadable, the next retry is unknown: the wait's minute bounds it instead, and the
            // next round's failure is logged by `deliverDue`.
            let next = (try? await store.channels.nextDeliveryDue()) ?? nil
            let nowMillis = Int64(store.now().timeIntervalSince1970 * 1000)
            let wait = max(0, min((next ?? Int64.max) - nowMillis, 60_000))
            await store.channels.channelSignal.wait(after: generation, atMost: .milliseconds(max(wait, 200)))
        }
    }

    // MARK: One delivery

    private func deliver(_ delivery: HubChannelStore.ClaimedDelivery) async -> Outcome {
        var outcome = Outcome()
        switch delivery.kind {
        case .email:
            do {
                try await store.channels.mailDelivery(delivery, mail: Self.mail(for: delivery))
                outcome.mailed = 1
            } catch {
                log("channel \(delivery.channel): queueing the e-mail failed: \(error)")
            }
        case .webhook:
            let failure = await post(delivery)
            let attempts = delivery.attempts + 1
            let host = URL(string: delivery.target)?.host ?? "(unparsable URL)"
            do {
                switch failure {
                case nil:
                    try await store.channels.settleDelivery(delivery, state: "sent", error: nil)
                    outcome.sent = 1
                case .some(let (reason, retry)) where retry && attempts < Self.maxAttempts:
                    let delay = Self.retryDelayMillis(afterAttempts: attempts)
                    try await store.channels.settleDelivery(delivery, state: "pending", error: reason, retryAtMillis: store.nowMillis + delay)
                    log("channel \(delivery.channel): webhook \(host) failed (attempt \(attempts)): \(reason); again in \(delay / 1000) s")
                    outcome.retried = 1
                case .some(let (reason, _)):
                    try await store.channels.settleDelivery(delivery, state: "dropped", error: reason)
                    log("channel \(delivery.channel): webhook \(host) dropped after \(attempts) attempts: \(reason)")
                    outcome.dropped = 1
                }
            } catch {
                log("channel \(delivery.channel): recording the outcome failed: \(error)")
            }
        }
        return outcome
    }

    /// POSTs the document, signed; `nil` on a 2xx, else the reason and whether to try again.
    private func post(_ delivery: HubChannelStore.ClaimedDelivery) async -> (String, Bool)? {
        guard let url = URL(string: delivery.target) else { return ("the URL does not parse", false) }
        let body = Array(delivery.document.utf8)
        let seconds = Int64(store.now().timeIntervalSince1970)
        // The library's `delivery` session: at most 4 connections per host, 10 s per request.
        let exchange = HTTPExchange("POST", url, headers: [
            (name: "Content-Type", value: "application/json"),
            (name: "Idempotency-Key", value: HubChannelStore.channelIdempotencyKey(notification: delivery.notification, channel: delivery.channel)),
            (name: WebhookSignature.headerName, value: WebhookSignature.header(body: body, secret: delivery.secret ?? "", at: seconds)),
            (name: "User-Agent", value: "tessera-hub"),
        ], body: body, timeout: 10, session: .delivery)
        do {
            let status = try await exchange.send().status
            if (200..<300).contains(status) { return nil }
            return ("HTTP \(status)", status == 408 || status == 429 || status >= 500)
        } catch {
            return (Self.reason(error), true)
        }
    }

    /// Why a POST got no answer, in words. The error's own text may quote the URL (its path or
    /// query may hold a secret), so only its kind is kept.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? URLError else { return "network error" }
        switch error.code {
        case .cannotConnectToHost: return "nothing accepts connections there"
        case .timedOut: return "no answer within 10 s"
        case .cannotFindHost, .dnsLookupFailed: return "the host name does not resolve"
        case .networkConnectionLost: return "the connection dropped"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot: return "its TLS certificate or connection is not accepted"
        default: return "network error \(error.code.rawValue)"
        }
    }

    /// The e-mail for a delivery: the title as its subject; the body, then the payload's fields
    /// (a link, positions, battery: whatever the plugin put there), as plain text.
    static func mail(for delivery: HubChannelStore.ClaimedDelivery) -> OutgoingMail {
        let document = (try? JSONValue(parsing: delivery.document)) ?? .null
        var lines: [String] = []
        if let body = document["body"]?.stringValue, !body.isEmpty { lines += [body, ""] }
        if case .object(let payload)? = document["payload"], !payload.isEmpty {
            for (key, value) in payload.sorted(by: { $0.key < $1.key }) {
                lines.append("\(key): \(value.stringValue ?? value.serialized())")
            }
            lines.append("")
        }
        let sender = document["sender"]?["name"]?.stringValue ?? ""
        let due = document["dueAtMillis"]?.integerValue.map { spoken(Date(timeIntervalSince1970: Double($0) / 1000)) } ?? ""
        lines.append("Sent by the hub for \(sender.isEmpty ? "a member" : sender) of a space in \(document["plugin"]?.stringValue ?? "a plugin"), due \(due).")
        let title = document["title"]?.stringValue ?? "Notification"
        return OutgoingMail(to: delivery.target, subject: subjectPrefix(document["priority"]?.stringValue) + title,
                            body: lines.joined(separator: "\n"))
    }

    /// "08:11 UTC on 2 March 2026": an instant as a person reads it in an e-mail (the hub knows no
    /// reader's time zone, so it says which it uses).
    static func spoken(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        return String(format: "%02d:%02d UTC on %d %@ %d", c.hour ?? 0, c.minute ?? 0, c.day ?? 1, months[(c.month ?? 1) - 1], c.year ?? 1970)
    }

    /// What an e-mail's subject starts with, so a mail client's list shows the priority before
    /// anything else: "[Urgent] " for `critical`, "[Time-sensitive] " for `time-sensitive`.
    static func subjectPrefix(_ priority: String?) -> String {
        switch priority.flatMap(NotificationPriority.init(rawValue:)) {
        case .critical?: "[Urgent] "
        case .timeSensitive?: "[Time-sensitive] "
        default: ""
        }
    }
}

extension HubChannelSender.Outcome {
    mutating func add(_ other: Self) {
        sent += other.sent
        mailed += other.mailed
        retried += other.retried
        dropped += other.dropped
    }
}
