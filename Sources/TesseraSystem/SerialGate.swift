import Synchronization

/// An async lock that admits one task at a time, in arrival order.
///
/// Why: work with `await`s inside it that must not interleave with another caller's. The location
/// feed delivers each batch to async subscribers (two batches at once could hand a subscriber a
/// device's fixes out of order); the hub's embedded store runs each async transaction on its one
/// SQLite connection. (An actor would not do: it lets another call in at every `await`.)
public final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// A gate no one has entered.
    public init() {}

    /// Runs `body` when every earlier caller has finished; the next caller enters when it
    /// returns or throws.
    public func run<T, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { s -> Bool in
                if !s.busy { s.busy = true; return true }
                s.waiters.append(c)
                return false
            }
            if admitted { c.resume() }
        }
    }

    /// Hands the gate straight to the next waiter, if any, so no newcomer can jump the queue.
    private func leave() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiters.isEmpty { s.busy = false; return nil }
            return s.waiters.removeFirst()
        }
        next?.resume()
    }
}
