import Synchronization

/// Something that happens once — a child reaped, its output read to the end — that any number of
/// tasks can wait for, before or after it happened.
///
/// A wait does not end when its task is cancelled: what waits here (a stop that must leave no
/// process behind) has to see it happen. Only a wait with a limit gives up, when the limit passes.
final class OneTimeEvent: Sendable {
    private struct State {
        var happened = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waits whose limit passed before they began waiting: they do not start.
        var expired: Set<Int> = []
    }
    private let state = Mutex(State())

    /// Whether it has happened yet.
    var happened: Bool { state.withLock { $0.happened } }

    /// Marks it as happened and resumes everyone waiting; only the first call does anything.
    func signal() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            guard !s.happened else { return [] }
            s.happened = true
            defer { s.waiters = [:] }
            return Array(s.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once it has happened.
    func wait() async { await wait(limit: nil) }

    /// Returns once it has happened or `limit` has passed on the system clock, whichever is first;
    /// true if it happened.
    func wait(atMost limit: Duration) async -> Bool {
        await wait(limit: limit)
        return happened
    }

    private func wait(limit: Duration?) async {
        let id = state.withLock { s -> Int in s.nextWaiter += 1; return s.nextWaiter }
        let timer = limit.map { limit in
            Task { [weak self] in
                try? await Task.sleep(for: limit)
                self?.giveUp(id)
            }
        }
        defer { timer?.cancel() }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { s -> Bool in
                if s.happened || s.expired.remove(id) != nil { return true }
                s.waiters[id] = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        state.withLock { _ = $0.expired.remove(id) }
    }

    /// Ends wait `id` when its limit passes (or keeps it from starting, if it has not yet).
    private func giveUp(_ id: Int) {
        let waiting = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let continuation = s.waiters.removeValue(forKey: id) else {
                if !s.happened { s.expired.insert(id) }
                return nil
            }
            return continuation
        }
        waiting?.resume()
    }
}
