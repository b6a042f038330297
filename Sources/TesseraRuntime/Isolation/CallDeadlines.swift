import Foundation
import Synchronization
import TesseraClock

/// The deadlines of the calls in flight into a process-tier plugin, on the host's clock, watched by
/// one task that sleeps until the earliest (docs/isolation.md, "Crashes, deadlines").
///
/// Before, each call raced its answer against a sleeping task of its own in a task group: two
/// child tasks, a sleep registered and cancelled, and a hop back to the caller, for every call.
/// Now a call only records its deadline; with deadlines all the same length (the usual case), a
/// new one is never the earliest, so no task is started or cancelled per call. A deadline earlier
/// than the one watched (an operation's shorter `timeoutSeconds`) starts a new watcher.
final class CallDeadlines: Sendable {
    private struct Watcher {
        var target: Date
        let generation: UInt64
        let task: Task<Void, Never>
    }

    private struct State {
        var expiries: [UInt64: (deadline: Date, expire: @Sendable () -> Void)] = [:]
        var nextKey: UInt64 = 0
        var watcher: Watcher?
        var generations: UInt64 = 0
    }

    private let clock: any ClockSource
    private let state = Mutex(State())

    init(clock: any ClockSource) { self.clock = clock }

    /// Calls `expire` once `deadline` has passed on the clock, unless ``forget(_:)`` came first.
    func watch(until deadline: Date, expire: @escaping @Sendable () -> Void) -> UInt64 {
        let (key, superseded) = state.withLock { s -> (UInt64, Task<Void, Never>?) in
            s.nextKey += 1
            s.expiries[s.nextKey] = (deadline, expire)
            if let watcher = s.watcher, watcher.target <= deadline { return (s.nextKey, nil) }
            let superseded = s.watcher?.task
            s.generations += 1
            let generation = s.generations
            s.watcher = Watcher(target: deadline, generation: generation, task: Task { await self.run(from: deadline, generation: generation) })
            return (s.nextKey, superseded)
        }
        superseded?.cancel()
        return key
    }

    /// The call was answered: its deadline no longer matters.
    func forget(_ key: UInt64) {
        state.withLock { _ = $0.expiries.removeValue(forKey: key) }
    }

    /// Stops watching (the plugin stopped); deadlines still recorded never expire.
    func cancelAll() {
        let task = state.withLock { s -> Task<Void, Never>? in
            s.expiries = [:]
            defer { s.watcher = nil }
            return s.watcher?.task
        }
        task?.cancel()
    }

    /// Sleeps until `target`, expires what is due, and sleeps until the next earliest, until none
    /// is left or a newer watcher took over (this one is then cancelled, or finds itself replaced).
    private func run(from target: Date, generation: UInt64) async {
        var target = target
        while true {
            do { try await clock.sleep(until: target) } catch { return }
            let now = clock.now()
            let (due, next) = state.withLock { s -> ([@Sendable () -> Void], Date?) in
                guard s.watcher?.generation == generation else { return ([], nil) }
                let keys = s.expiries.filter { $0.value.deadline <= now }.map(\.key)
                let due = keys.compactMap { s.expiries.removeValue(forKey: $0)?.expire }
                let next = s.expiries.values.map(\.deadline).min()
                if let next { s.watcher?.target = next } else { s.watcher = nil }
                return (due, next)
            }
            for expire in due { expire() }
            guard let next else { return }
            target = next
        }
    }
}
