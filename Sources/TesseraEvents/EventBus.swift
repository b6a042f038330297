import Foundation
import Synchronization
import TesseraClock
import TesseraSDK

/// Hands published events to their subscribers: at least once, in publish order per publisher and
/// subscriber, whether or not the subscriber was loaded when the event was published.
///
/// Delivery runs apart from the publisher: ``publish(_:name:payload:)`` returns once the event is
/// stored, and a pass of the bus hands it over. A subscriber that throws holds back only its own
/// later events from that publisher (order is kept) and is retried with backoff on the host's
/// clock — 1 s, 2 s, 4 s, … up to an hour — for as long as it keeps failing; ``status()`` and
/// the log show the failure. A subscriber that is not active keeps its place and gets what it
/// missed when it becomes active (the host then calls ``kick()``).
public final class EventBus: DueWork {
    /// Which events of a publisher a subscriber consumes (from its manifest's `consumes`).
    public struct Subscription: Sendable, Hashable {
        public var subscriber: String
        public var publisher: String
        public var names: Set<String>
        public init(subscriber: String, publisher: String, names: Set<String>) {
            self.subscriber = subscriber
            self.publisher = publisher
            self.names = names
        }
    }

    /// What became of one hand-over.
    public enum Outcome: Sendable, Equatable {
        case delivered
        case failed(String)
        /// The subscriber is not active; the event waits.
        case notActive
    }

    /// One subscription's delivery state, for `tessera events list` and the API.
    public struct Status: Sendable, Hashable {
        public var subscription: Subscription
        public var cursor: DeliveryCursor
        /// Events of the publisher after the cursor (consumed or not).
        public var behind: Int64
    }

    public let name = "events"
    public let log: EventLog
    let clock: any ClockSource
    let deliver: @Sendable (_ subscriber: String, PublishedEvent) async -> Outcome
    let report: @Sendable (String) -> Void
    let subscriptions = Mutex<[Subscription]>([])
    let pumpState = Mutex(PumpState())
    let observers = Mutex<[@Sendable () -> Void]>([])

    struct PumpState {
        var running = false
        var again = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// - Parameters:
    ///   - deliver: hands one event to a subscriber's handler (the host looks up its context).
    ///   - report: where failures are logged.
    public init(log: EventLog, clock: any ClockSource, report: @escaping @Sendable (String) -> Void = { _ in },
                deliver: @escaping @Sendable (_ subscriber: String, PublishedEvent) async -> Outcome) {
        self.log = log
        self.clock = clock
        self.report = report
        self.deliver = deliver
    }

    /// Replaces the subscriptions (the host derives them from the enabled plugins' manifests).
    public func setSubscriptions(_ list: [Subscription]) {
        subscriptions.withLock { $0 = list.sorted { ($0.subscriber, $0.publisher) < ($1.subscriber, $1.publisher) } }
    }

    /// Calls `observer` after events are stored (the HTTP edge's SSE stream, which then reads them
    /// from ``EventLog/events(afterPosition:limit:)``). It says only that something new is there.
    public func onPublished(_ observer: @escaping @Sendable () -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Stores an event of `publisher` and starts handing it over. Durable when this returns.
    @discardableResult
    public func publish(_ publisher: String, name: String, payload: JSONValue) throws -> PublishedEvent? {
        let stored = try log.append(publisher: publisher, [(name, payload, nil)], at: clock.now())
        kick()
        notifyObservers()
        return stored.first
    }

    /// Stores events taken from a plugin's own outbox, each once by its outbox row number.
    public func relay(_ publisher: String, _ events: [(name: String, payload: JSONValue, origin: Int64)]) throws {
        guard !events.isEmpty else { return }
        try log.append(publisher: publisher, events.map { ($0.name, $0.payload, Optional($0.origin)) }, at: clock.now())
        kick()
        notifyObservers()
    }

    private func notifyObservers() {
        for observer in observers.withLock({ $0 }) { observer() }
    }

    /// Starts a delivery pass in the background (or asks the running one to go round again).
    public func kick() {
        Task { await pump() }
    }

    /// Delivers everything deliverable now and returns when no pass is running: what a test or a
    /// one-shot command awaits before it looks at the results.
    public func settle() async { await pump() }

    // MARK: DueWork

    public func nextDue() throws -> Date? { try log.earliestRetry() }

    public func runDue(now: Date) async throws { await pump() }

    // MARK: Passes

    /// Runs passes until one finds nothing more to do; a caller arriving while a pass runs waits
    /// for the passes to end instead of starting its own.
    func pump() async {
        let starts = pumpState.withLock { s -> Bool in
            if s.running { s.again = true; return false }
            s.running = true
            return true
        }
        guard starts else {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let idle = pumpState.withLock { s -> Bool in
                    if !s.running { return true }
                    s.idleWaiters.append(c)
                    return false
                }
                if idle { c.resume() }
            }
            return
        }
        while true {
            pumpState.withLock { $0.again = false }
            await pass()
            let waiters = pumpState.withLock { s -> [CheckedContinuation<Void, Never>]? in
                if s.again { return nil }
                s.running = false
                defer { s.idleWaiters = [] }
                return s.idleWaiters
            }
            guard let waiters else { continue }
            for waiter in waiters { waiter.resume() }
            return
        }
    }

    /// One pass over every subscription: hands over its events in order until it is caught up,
    /// fails, waits for a retry, or its subscriber is not active.
    func pass() async {
        for subscription in subscriptions.withLock({ $0 }) {
            do { try await drain(subscription) } catch {
                report("events: delivery \(subscription.publisher) → \(subscription.subscriber) stopped: \(error)")
            }
        }
    }

    func drain(_ subscription: Subscription) async throws {
        var cursor = try log.cursor(subscriber: subscription.subscriber, publisher: subscription.publisher)
        if let retryAt = cursor.retryAt, retryAt > clock.now() { return }
        while true {
            let (event, skippedTo) = try log.next(from: subscription.publisher, after: cursor.delivered, names: subscription.names)
            guard let event else {
                if skippedTo > cursor.delivered { cursor.delivered = skippedTo; try log.save(cursor) }
                return
            }
            switch await deliver(subscription.subscriber, event) {
            case .delivered:
                cursor.delivered = event.sequence
                cursor.attempts = 0
                cursor.retryAt = nil
                cursor.lastError = nil
                try log.save(cursor)
            case .failed(let reason):
                cursor.delivered = max(cursor.delivered, skippedTo)
                cursor.attempts += 1
                cursor.retryAt = clock.now().addingTimeInterval(Self.backoff(attempt: cursor.attempts))
                cursor.lastError = reason
                try log.save(cursor)
                report("events: \(subscription.subscriber) failed on \(event.qualifiedName) #\(event.sequence) (attempt \(cursor.attempts)): \(reason); retry at \(cursor.retryAt!)")
                return
            case .notActive:
                return
            }
        }
    }

    /// 1 s, 2 s, 4 s, … capped at one hour.
    static func backoff(attempt: Int) -> TimeInterval {
        min(pow(2, Double(attempt - 1)), 3600)
    }

    /// Every subscription with how far it got.
    public func status() throws -> [Status] {
        try subscriptions.withLock { $0 }.map { subscription in
            let cursor = try log.cursor(subscriber: subscription.subscriber, publisher: subscription.publisher)
            let last = try log.lastSequence(of: subscription.publisher)
            return Status(subscription: subscription, cursor: cursor, behind: max(0, last - cursor.delivered))
        }
    }
}

private func < (a: (String, String), b: (String, String)) -> Bool {
    a.0 != b.0 ? a.0 < b.0 : a.1 < b.1
}
