import Foundation
import Synchronization
import TesseraClock
import TesseraSDK
import TesseraSystem

/// What became of one ingested batch.
public struct IngestReport: Sendable, Hashable {
    /// How many fixes were accepted and handed to the subscribers.
    public var accepted = 0
    /// How many were dropped, by reason.
    public var rejected: [FixRejection: Int] = [:]
    /// How many subscriber calls threw.
    public var subscriberFailures = 0

    /// Creates an empty report.
    public init() {}

    /// Dropped fixes, all reasons together.
    public var rejectedCount: Int { rejected.values.reduce(0, +) }
}

/// The host's location feed: fixes come in from the sources (OwnTracks over HTTP, GPX replay,
/// gpsd), are validated, and go out to every subscriber, in timestamp order per device.
///
/// Robustness: any input is either accepted or dropped with a counted reason; a subscriber that
/// throws is counted and logged and neither stops the other subscribers nor the feed.
///
/// Ordering: a batch is sorted by timestamp (stably, so fixes of different devices keep their
/// relative order when their times tie); batches are delivered one after another, never
/// interleaved; and a fix older than its device's newest accepted one is dropped as
/// ``FixRejection/outOfOrder``. So every subscriber sees each device's fixes in strictly
/// increasing timestamp order.
public final class LocationFeed: PluginLocationFeed, Sendable {
    private struct Subscriber {
        let id: String
        let handler: LocationHandler
    }

    private struct State {
        var validator: FixValidator
        var subscribers: [Subscriber] = []
        var counters: [String: Int] = [:]
    }

    private let state: Mutex<State>
    private let clock: any ClockSource
    private let gate = SerialGate()
    private let log: @Sendable (String) -> Void

    /// Creates a feed. `clock` is the host's clock (for the "too far in the future" check);
    /// `log` receives one line for each subscriber failure.
    public init(clock: any ClockSource, futureMargin: TimeInterval = 600,
                log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.clock = clock
        self.log = log
        state = Mutex(State(validator: FixValidator(futureMargin: futureMargin)))
    }

    /// Adds a subscriber under `id`, after the existing ones; subscribing again with the same id
    /// replaces the handler and keeps its place. It sees fixes accepted from the next batch on.
    public func subscribe(_ id: String, _ handler: @escaping LocationHandler) {
        state.withLock { s in
            if let i = s.subscribers.firstIndex(where: { $0.id == id }) {
                s.subscribers[i] = Subscriber(id: id, handler: handler)
            } else {
                s.subscribers.append(Subscriber(id: id, handler: handler))
            }
        }
    }

    /// Removes the subscriber `id`; unknown ids are ignored.
    public func unsubscribe(_ id: String) {
        state.withLock { $0.subscribers.removeAll { $0.id == id } }
    }

    /// Validates `fixes` and hands the accepted ones, in timestamp order, to every subscriber.
    ///
    /// `malformed` counts inputs the caller could not even decode (they are only counted).
    /// Returns when every subscriber has seen every accepted fix of this batch.
    public func ingest(_ fixes: [LocationFix], malformed: Int = 0) async -> IngestReport {
        await gate.run {
            var report = IngestReport()
            if malformed > 0 { report.rejected[.malformed] = malformed }
            let (accepted, subscribers) = admit(fixes, into: &report)
            for fix in accepted {
                for subscriber in subscribers {
                    if await !deliver(fix, to: subscriber) { report.subscriberFailures += 1 }
                }
            }
            record(report)
            return report
        }
    }

    /// The newest accepted fix of `deviceID`.
    public func latestFix(deviceID: String) async -> LocationFix? {
        state.withLock { $0.validator.newest[deviceID] }
    }

    /// Totals since the feed was created: `accepted`, `subscriberFailures`, and one entry per
    /// ``FixRejection`` raw value (zero included, so every reason is always present).
    public var counters: [String: Int] {
        let recorded = state.withLock { $0.counters }
        let names = FixRejection.allCases.map(\.rawValue) + ["accepted", "subscriberFailures"]
        return Dictionary(uniqueKeysWithValues: names.map { ($0, recorded[$0] ?? 0) })
    }

    /// Checks, sorts and admits a batch under the lock; returns the accepted fixes in order and
    /// the subscribers to deliver them to.
    private func admit(_ fixes: [LocationFix], into report: inout IngestReport) -> ([LocationFix], [Subscriber]) {
        let now = clock.now()
        return state.withLock { s in
            var candidates: [LocationFix] = []
            for fix in fixes {
                if let reason = s.validator.check(fix) { report.rejected[reason, default: 0] += 1 } else { candidates.append(fix) }
            }
            // Stable, so equal timestamps keep the order the source gave them.
            let ordered = candidates.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }
            var accepted: [LocationFix] = []
            for (_, fix) in ordered {
                if let reason = s.validator.admitChecked(fix, now: now) { report.rejected[reason, default: 0] += 1 } else { accepted.append(fix) }
            }
            report.accepted = accepted.count
            return (accepted, s.subscribers)
        }
    }

    /// Calls one subscriber; false (and a log line) when it throws.
    private func deliver(_ fix: LocationFix, to subscriber: Subscriber) async -> Bool {
        do {
            try await subscriber.handler(fix)
            return true
        } catch {
            log("location subscriber \(subscriber.id) failed on a fix of \(fix.deviceID) at \(fix.timestamp): \(error)")
            return false
        }
    }

    private func record(_ report: IngestReport) {
        state.withLock { s in
            s.counters["accepted", default: 0] += report.accepted
            s.counters["subscriberFailures", default: 0] += report.subscriberFailures
            for (reason, count) in report.rejected { s.counters[reason.rawValue, default: 0] += count }
        }
    }
}

private func < (a: (Date, Int), b: (Date, Int)) -> Bool {
    a.0 != b.0 ? a.0 < b.0 : a.1 < b.1
}
