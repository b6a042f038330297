import Foundation
import Synchronization

/// Work other than plugin timers that falls due on the host's clock: notification occurrences,
/// retries of event deliveries and webhooks. The ``TimerScheduler`` interleaves it with timers,
/// in time order, both when a virtual clock is advanced and when the system clock runs.
public protocol DueWork: Sendable {
    /// A name for log lines.
    var name: String { get }
    /// The earliest instant at which this work has something to do, or `nil` if nothing is pending.
    func nextDue() throws -> Date?
    /// Does everything due at or before `now`. After it returns, ``nextDue()`` should be later
    /// than `now` (work that cannot progress is skipped for the rest of an advance).
    func runDue(now: Date) async throws
}

/// Lets a sleeping loop be woken early: scheduling something sooner than the loop expected kicks
/// it, so the system clock fires it on time instead of on the next poll.
public final class Wakeup: Sendable {
    private let waiter = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let pending = Atomic<Bool>(false)

    public init() {}

    /// Wakes the current ``wait()``, or makes the next one return at once.
    public func kick() {
        let continuation = waiter.withLock { w -> CheckedContinuation<Void, Never>? in
            defer { w = nil }
            return w
        }
        if let continuation { continuation.resume() } else { pending.store(true, ordering: .releasing) }
    }

    /// Suspends until ``kick()``, unless a kick arrived since the last wait; returns early when
    /// the task is cancelled.
    func wait() async {
        if pending.exchange(false, ordering: .acquiring) { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                // Checked under the lock that the cancellation handler takes too, so a cancel
                // either sees the stored waiter or is seen here.
                let resumeNow = waiter.withLock { w -> Bool in
                    if pending.exchange(false, ordering: .acquiring) || Task.isCancelled { return true }
                    w = c
                    return false
                }
                if resumeNow { c.resume() }
            }
        } onCancel: {
            let continuation = waiter.withLock { w -> CheckedContinuation<Void, Never>? in
                defer { w = nil }
                return w
            }
            continuation?.resume()
        }
    }

    /// Sleeps on `clock` until `deadline`, or until kicked, whichever is first.
    public func sleep(on clock: any ClockSource, until deadline: Date) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(until: deadline) }
            group.addTask { await self.wait() }
            await group.next()
            group.cancelAll()
        }
    }
}
