import Synchronization

/// Something that happens once — a child reaped, its output read to the end — that any number of
/// tasks can wait for, before or after it happened.
final class OneTimeEvent: Sendable {
    private struct State {
        var happened = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
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

    /// Returns once it has happened, or once the waiting task is cancelled.
    func wait() async {
        let id = state.withLock { s -> Int in s.nextWaiter += 1; return s.nextWaiter }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { s -> Bool in
                    if s.happened || Task.isCancelled { return true }
                    s.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Returns once it has happened or `limit` has passed on the system clock, whichever is first;
    /// true if it happened.
    func wait(atMost limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.wait(); return self.happened }
            group.addTask { try? await Task.sleep(for: limit); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first || happened
        }
    }
}
