import Foundation
import Synchronization
import TesseraSDK

/// Fires the timers that fall due, in time order, through a callback the host provides.
///
/// With a virtual clock, ``advance(to:)`` walks the clock forward from one due time to the next,
/// so each handler runs with the clock reading its due time and everything happens in order. With
/// the system clock, ``run()`` waits for the next due time and fires what is due, marking timers
/// that fell due while the host was down as late.
public final class TimerScheduler: Sendable {
    /// What became of one firing.
    public enum Outcome: Sendable, Equatable {
        /// The handler ran.
        case delivered
        /// The handler threw; the timer is retried with backoff (a job, after the last retry, at its next period).
        case failed(String)
        /// The plugin cannot take it now (not active); the timer stays due.
        case deferred
    }

    /// One firing, as reported to the caller of ``advance(to:)`` and ``fireDue()``.
    public struct Firing: Sendable, Equatable {
        public let timer: StoredTimer
        public let firedAt: Date
        public let outcome: Outcome
    }

    /// How many failures in a row before a one-off timer is dropped (and the drop logged), or a
    /// recurring one (a manifest job) goes back to its period.
    public static let maxAttempts = 8

    let store: any TimerStore
    let clock: any ClockSource
    let fire: @Sendable (StoredTimer, Date) async -> Outcome
    let log: @Sendable (String) -> Void
    let otherWork: Mutex<[any DueWork]> = Mutex([])
    /// Kick it when something was scheduled that may fall due before the running loop wakes.
    public let wakeup = Wakeup()

    public init(store: any TimerStore, clock: any ClockSource,
                log: @escaping @Sendable (String) -> Void = { _ in },
                fire: @escaping @Sendable (StoredTimer, Date) async -> Outcome) {
        self.store = store
        self.clock = clock
        self.fire = fire
        self.log = log
    }

    /// Adds work that falls due on this clock besides timers (notifications, retries), fired in
    /// time order with them.
    public func add(_ work: any DueWork) {
        otherWork.withLock { $0.append(work) }
        wakeup.kick()
    }

    /// Advances a virtual clock to `target`, firing every timer due on the way, in time order, with
    /// the clock set to each timer's due time as it fires. Timers a handler schedules on the way
    /// fire too if they fall due by `target`.
    public func advance(to target: Date) async throws -> [Firing] {
        guard let virtual = clock as? VirtualClockSource else {
            throw PluginError(.conflict, "the clock is the system clock; only a virtual clock can be set or advanced")
        }
        let firings = try await fireAll(dueBy: target, movingClock: virtual)
        if target > virtual.now() { virtual.set(to: target) }
        return firings
    }

    /// Fires every timer due now, earliest first; timers deferred by an inactive plugin stay due.
    public func fireDue() async throws -> [Firing] {
        try await fireAll(dueBy: clock.now(), movingClock: nil)
    }

    /// Fires the timers and other work due by `time` in order, each timer once per pass (a timer
    /// its plugin defers, or work that makes no progress, is skipped for the rest of the pass). With
    /// `movingClock`, the clock is set to each due time first. At equal times, timers go first.
    private func fireAll(dueBy time: Date, movingClock virtual: VirtualClockSource?) async throws -> [Firing] {
        var firings: [Firing] = []
        var deferred: Set<String> = []
        var stuck: Set<Int> = []
        let works = otherWork.withLock { $0 }
        while true {
            let timer = try store.due(by: time, limit: deferred.count + 1)
                .first(where: { !deferred.contains($0.plugin + "\u{0}" + $0.key) })
            let work = try earliestWork(works, dueBy: time, skipping: stuck)
            if let timer, work.map({ timer.fireAt <= $0.due }) ?? true {
                if let virtual, timer.fireAt > virtual.now() { virtual.set(to: timer.fireAt) }
                let firing = try await fireOne(timer)
                if firing.outcome == .deferred { deferred.insert(timer.plugin + "\u{0}" + timer.key) }
                firings.append(firing)
            } else if let work {
                if let virtual, work.due > virtual.now() { virtual.set(to: work.due) }
                try await works[work.index].runDue(now: clock.now())
                if let again = try works[work.index].nextDue(), again <= work.due { stuck.insert(work.index) }
            } else {
                return firings
            }
        }
    }

    /// The other work with the earliest due time by `time`, if any.
    private func earliestWork(_ works: [any DueWork], dueBy time: Date, skipping stuck: Set<Int>) throws -> (index: Int, due: Date)? {
        var best: (index: Int, due: Date)?
        for (index, work) in works.enumerated() where !stuck.contains(index) {
            guard let due = try work.nextDue(), due <= time else { continue }
            if best.map({ due < $0.due }) ?? true { best = (index, due) }
        }
        return best
    }

    /// Fires one timer and records what follows: removal, the next occurrence, or a retry.
    func fireOne(_ timer: StoredTimer) async throws -> Firing {
        let firedAt = clock.now()
        let outcome = await fire(timer, firedAt)
        switch outcome {
        case .deferred:
            break
        case .delivered:
            if let every = timer.everySeconds {
                var next = timer
                next.attempts = 0
                next.fireAt = nextOccurrence(after: timer.fireAt, every: every, now: firedAt)
                try store.settle(timer, next: next)
            } else {
                try store.settle(timer, next: nil)
            }
        case .failed(let reason):
            if timer.attempts + 1 >= Self.maxAttempts, let every = timer.everySeconds {
                // A job is never dropped: after the retries it waits for its next period, which
                // may find the cause gone (a service back up, a person logged in again).
                var next = timer
                next.attempts = 0
                next.fireAt = nextOccurrence(after: timer.fireAt, every: every, now: firedAt)
                log("timer \(timer.plugin)/\(timer.key) failed \(Self.maxAttempts) times, next at its period (\(next.fireAt)): \(reason)")
                try store.settle(timer, next: next)
            } else if timer.attempts + 1 >= Self.maxAttempts {
                log("timer \(timer.plugin)/\(timer.key) dropped after \(Self.maxAttempts) failures: \(reason)")
                try store.settle(timer, next: nil)
            } else {
                var retry = timer
                retry.attempts += 1
                retry.fireAt = firedAt.addingTimeInterval(Self.backoff(attempt: retry.attempts))
                try store.settle(timer, next: retry)
            }
        }
        return Firing(timer: timer, firedAt: firedAt, outcome: outcome)
    }

    /// The first occurrence after `now` of a period that was due at `due`: missed occurrences during
    /// downtime collapse into the one that just fired.
    func nextOccurrence(after due: Date, every: Int64, now: Date) -> Date {
        var next = due.addingTimeInterval(TimeInterval(every))
        if next <= now {
            let missed = (now.timeIntervalSince(next) / TimeInterval(every)).rounded(.down) + 1
            next = next.addingTimeInterval(missed * TimeInterval(every))
        }
        return next
    }

    /// 30 s, 1 min, 2 min, … capped at one hour.
    static func backoff(attempt: Int) -> TimeInterval {
        min(30 * pow(2, Double(attempt - 1)), 3600)
    }

    /// Runs until cancelled, for the system clock: fires what is due, then sleeps until the next due
    /// time. ``wakeup`` cuts the sleep short when something sooner is scheduled; the loop also looks
    /// again at least once a second.
    public func run() async {
        while !Task.isCancelled {
            do {
                let passTime = clock.now()
                _ = try await fireAll(dueBy: passTime, movingClock: nil)
                // What is still due by passTime could not go now (a plugin not active, a retry
                // that failed); the next look is for what falls due after it.
                let soon = clock.now().addingTimeInterval(1)
                var next = try store.due(by: soon, limit: 64).first(where: { $0.fireAt > passTime })?.fireAt ?? soon
                for work in otherWork.withLock({ $0 }) {
                    if let due = try work.nextDue(), due > passTime, due < next { next = due }
                }
                await wakeup.sleep(on: clock, until: next)
            } catch is CancellationError {
                return
            } catch {
                log("timer loop: \(error)")
                try? await clock.sleep(until: clock.now().addingTimeInterval(5))
            }
        }
    }
}
