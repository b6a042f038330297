import Foundation
import TesseraOnDemand
import Synchronization
import TesseraClock

/// Sends the outbound webhook deliveries in the ledger: an HTTP POST of the notification as JSON
/// with an `Idempotency-Key` header that is the same on every attempt.
///
/// Sends run concurrently and apart from firing, so an unreachable webhook never delays the inbox
/// or other deliveries. A 2xx answer settles a delivery; a network error, a timeout, 408, 429 or
/// a 5xx is retried with backoff on the host's clock (2 s, 4 s, 8 s, … up to an hour); any other
/// answer, or the tenth failure, drops it (counted as `webhookDropped`, with the reason kept in
/// the ledger). A crash between the receiver's answer and the ledger update repeats the POST
/// once, with the same key.
public final class WebhookDispatcher: DueWork {
    public let name = "webhooks"
    /// How many failures before a delivery is dropped.
    public static let maxAttempts = 10
    let store: NotificationStore
    let clock: any ClockSource
    let log: @Sendable (String) -> Void
    let inFlight = Mutex<Set<Int64>>([])
    let idleWaiters = Mutex<[CheckedContinuation<Void, Never>]>([])

    init(store: NotificationStore, clock: any ClockSource, log: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.clock = clock
        self.log = log
    }

    /// Starts sending whatever is due.
    public func kick() {
        // A failure here is the ledger's (its database): the deliveries stay due and the next
        // kick or timer retries them, but the operator hears of it.
        Task { [log, clock] in
            do { try await runDue(now: clock.now()) } catch { log("webhooks: could not read or settle the outbound ledger: \(error)") }
        }
    }

    /// Returns once no send is in flight (for tests and one-shot commands).
    public func idle() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let idle = inFlight.withLock { set -> Bool in
                if set.isEmpty { return true }
                idleWaiters.withLock { $0.append(c) }
                return false
            }
            if idle { c.resume() }
        }
    }

    /// Sends everything due now and waits for the answers, until nothing due is left (failed
    /// sends wait for their retry time): what a one-shot command or a test awaits.
    public func flush() async throws {
        while true {
            try await runDue(now: clock.now())
            await idle()
            guard let next = try store.earliestOutbound(excluding: []), next <= clock.now() else { return }
        }
    }

    // MARK: DueWork

    public func nextDue() throws -> Date? {
        try store.earliestOutbound(excluding: inFlight.withLock { $0 })
    }

    /// Starts a send for every delivery due; does not wait for them.
    public func runDue(now: Date) async throws {
        let due = try store.outboundDue(by: now, limit: 64)
        let started = inFlight.withLock { set in due.filter { set.insert($0.id).inserted } }
        for delivery in started {
            Task { await send(delivery) }
        }
    }

    // MARK: Sending

    func send(_ delivery: NotificationStore.Outbound) async {
        let failure = await post(delivery)
        let attempts = delivery.attempts + 1
        do {
            switch failure {
            case nil:
                try store.settle(delivery.id, state: "sent", attempts: attempts, retryAt: nil, error: nil)
                try store.count("webhookSent")
            case .some(let (reason, retry)) where retry && attempts < Self.maxAttempts:
                let retryAt = clock.now().addingTimeInterval(min(pow(2, Double(attempts)), 3600))
                try store.settle(delivery.id, state: "pending", attempts: attempts, retryAt: retryAt, error: reason)
                log("webhook \(Self.host(of: delivery.sink)) failed (attempt \(attempts)): \(reason); retry at \(retryAt.formatted(.iso8601))")
            case .some(let (reason, _)):
                try store.settle(delivery.id, state: "dropped", attempts: attempts, retryAt: nil, error: reason)
                try store.count("webhookDropped")
                log("webhook \(Self.host(of: delivery.sink)) dropped after \(attempts) attempts: \(reason)")
            }
        } catch {
            log("webhook ledger update failed: \(error)")
        }
        let waiters = inFlight.withLock { set -> [CheckedContinuation<Void, Never>] in
            set.remove(delivery.id)
            return set.isEmpty ? idleWaiters.withLock { w in defer { w = [] }; return w } : []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// POSTs the delivery; `nil` on a 2xx, else the reason and whether to retry.
    func post(_ delivery: NotificationStore.Outbound) async -> (String, Bool)? {
        guard let url = URL(string: delivery.sink) else { return ("'\(delivery.sink)' is not a URL", false) }
        // The library's `delivery` session: at most 4 connections per host, 10 s per request.
        let exchange = HTTPExchange("POST", url, headers: [
            (name: "Content-Type", value: "application/json"),
            (name: "Idempotency-Key", value: delivery.idempotencyKey),
        ], body: Array(delivery.body.utf8), timeout: 10, session: .delivery)
        do {
            let status = try await exchange.send().status
            if (200..<300).contains(status) { return nil }
            return ("HTTP \(status)", status == 408 || status == 429 || status >= 500)
        } catch {
            return ("\(error.localizedDescription)", true)
        }
    }

    /// The host of a webhook URL, for log lines: a URL may carry a secret in its path or query.
    static func host(of sink: String) -> String {
        URL(string: sink)?.host ?? "(unparsable URL)"
    }
}
