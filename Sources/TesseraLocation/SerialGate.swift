import Synchronization

/// An async lock that admits one task at a time, in arrival order.
///
/// Why: the feed delivers each batch with `await`s in between (subscribers are async). Two batches
/// delivered at once could interleave and hand a subscriber a device's fixes out of order; passing
/// through this gate makes whole batches take turns. (An actor would not do: it lets another call
/// in at every `await`.)
final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` when every earlier caller has finished.
    func run<T: Sendable>(_ body: () async -> T) async -> T {
        await enter()
        let result = await body()
        leave()
        return result
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
