import Foundation
import Synchronization

/// Where the host's time comes from: the system clock, or a virtual clock that moves only when
/// told to. Everything in the host that needs "now" or a wait asks this, never `Date()`.
public protocol ClockSource: Sendable {
    /// The current instant.
    func now() -> Date
    /// Suspends until `deadline`.
    func sleep(until deadline: Date) async throws
}

/// The system's real-time clock.
public struct SystemClockSource: ClockSource {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        if seconds > 0 { try await Task.sleep(for: .seconds(seconds)) }
    }
}

/// A clock that stands still until it is set or advanced. Sleepers wake, in deadline order, when
/// the clock reaches their deadline; nothing depends on the wall clock, so tests and replays are
/// deterministic.
public final class VirtualClockSource: ClockSource {
    private struct Sleeper {
        let id: UInt64
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        /// Sleeps cancelled before they were registered as sleepers (see ``sleep(until:)``).
        var cancelledEarly: Set<UInt64> = []
    }

    private let state: Mutex<State>
    private let onChange: @Sendable (Date) -> Void

    /// Creates a virtual clock at `start`. `onChange` is told every new time (to persist it).
    public init(start: Date, onChange: @escaping @Sendable (Date) -> Void = { _ in }) {
        state = Mutex(State(now: start))
        self.onChange = onChange
    }

    public func now() -> Date { state.withLock { $0.now } }

    public func sleep(until deadline: Date) async throws {
        let id = state.withLock { s -> UInt64 in s.nextID += 1; return s.nextID }
        // The cancellation handler can run before the continuation below is registered (a task
        // cancelled before it got here runs it at once): it then leaves a mark, under the same lock,
        // which the registration finds. Without it such a sleep never woke — a process-tier call's
        // deadline task, cancelled as soon as a fast answer came, hung the call's task group.
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                enum Next { case sleep, wake, cancel }
                let next = state.withLock { s -> Next in
                    if s.cancelledEarly.remove(id) != nil { return .cancel }
                    if s.now >= deadline { return .wake }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: c))
                    return .sleep
                }
                switch next {
                case .sleep: break
                case .wake: c.resume()
                case .cancel: c.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { s -> Sleeper? in
                guard let i = s.sleepers.firstIndex(where: { $0.id == id }) else {
                    s.cancelledEarly.insert(id)
                    return nil
                }
                return s.sleepers.remove(at: i)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock to `time` (forwards or backwards) and wakes the sleepers now due, earliest
    /// first. Returns how many woke.
    @discardableResult
    public func set(to time: Date) -> Int {
        let due = state.withLock { s -> [Sleeper] in
            s.now = time
            let due = s.sleepers.filter { $0.deadline <= time }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
            s.sleepers.removeAll { $0.deadline <= time }
            return due
        }
        onChange(time)
        for sleeper in due { sleeper.continuation.resume() }
        return due.count
    }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest sleeper's deadline, if any.
    public var nextSleeperDeadline: Date? { state.withLock { $0.sleepers.map(\.deadline).min() } }
}

private func < (a: (Date, UInt64), b: (Date, UInt64)) -> Bool {
    a.0 != b.0 ? a.0 < b.0 : a.1 < b.1
}
