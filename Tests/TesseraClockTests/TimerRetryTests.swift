import Foundation
import Synchronization
import Testing
import TesseraClock
import TesseraTestFixtures

/// What the scheduler does with a timer whose handler keeps failing: a one-off timer is dropped
/// after the retries; a job (a recurring timer) goes back to its period and runs again there.
@Suite struct TimerRetryTests {
    let start = Date(timeIntervalSince1970: 1_767_225_600)

    /// A handler that fails while `failing` is set, counting its calls.
    final class Handler: Sendable {
        let failing = Mutex(true)
        let calls = Mutex(0)
        var count: Int { calls.withLock { $0 } }
        func fire() -> TimerScheduler.Outcome {
            calls.withLock { $0 += 1 }
            return failing.withLock { $0 } ? .failed("not_logged_in") : .delivered
        }
    }

    func scheduler(_ ws: String, _ handler: Handler) throws -> (TimerScheduler, SQLiteTimerStore) {
        let store = try SQLiteTimerStore(path: ws + "/timers.sqlite")
        let scheduler = TimerScheduler(store: store, clock: VirtualClockSource(start: start)) { _, _ in handler.fire() }
        return (scheduler, store)
    }

    @Test func aJobThatKeepsFailingReturnsToItsPeriodInsteadOfBeingDropped() async throws {
        let handler = Handler()
        let (scheduler, store) = try scheduler(Fixtures.temporaryDirectory("timers"), handler)
        try store.put(StoredTimer(plugin: "p", key: "job:refresh", name: "refresh", fireAt: start.addingTimeInterval(3600), everySeconds: 3600))
        // Ten hours of failures: far more than the retries.
        _ = try await scheduler.advance(to: start.addingTimeInterval(10 * 3600))
        #expect(handler.count > TimerScheduler.maxAttempts)
        let kept = try #require(try store.pending(plugin: "p").first)
        #expect(kept.everySeconds == 3600)
        // The cause goes away: the next period runs it, and it keeps its hour.
        handler.failing.withLock { $0 = false }
        let before = handler.count
        let firings = try await scheduler.advance(to: kept.fireAt.addingTimeInterval(3600))
        #expect(firings.filter { $0.outcome == TimerScheduler.Outcome.delivered }.count == 2)
        #expect(handler.count == before + 2)
    }

    @Test func aOneOffTimerIsDroppedAfterItsRetries() async throws {
        let handler = Handler()
        let (scheduler, store) = try scheduler(Fixtures.temporaryDirectory("timers"), handler)
        try store.put(StoredTimer(plugin: "p", key: "once", name: "once", fireAt: start.addingTimeInterval(60)))
        _ = try await scheduler.advance(to: start.addingTimeInterval(10 * 3600))
        #expect(handler.count == TimerScheduler.maxAttempts)
        #expect(try store.pending(plugin: "p").isEmpty)
    }

    /// A handler that schedules its own key again (the next weekly status, say) keeps that new
    /// timer: the scheduler's follow-up applies only to the timer that fired.
    @Test func aTimerItsHandlerRescheduledUnderTheSameKeyIsKept() async throws {
        let dir = Fixtures.temporaryDirectory("timers")
        let store = try SQLiteTimerStore(path: dir + "/timers.sqlite")
        let clock = VirtualClockSource(start: start)
        let weekly = StoredTimer(plugin: "p", key: "weekly", name: "weekly", fireAt: start.addingTimeInterval(3600))
        let scheduler = TimerScheduler(store: store, clock: clock) { timer, firedAt in
            var again = timer
            again.fireAt = firedAt.addingTimeInterval(7 * 86_400)
            try? store.put(again)
            return .delivered
        }
        try store.put(weekly)
        let firings = try await scheduler.advance(to: start.addingTimeInterval(2 * 3600))
        #expect(firings.count == 1)
        let kept = try store.pending(plugin: "p")
        #expect(kept.map(\.fireAt) == [start.addingTimeInterval(3600 + 7 * 86_400)], "the handler's new time stands")
    }
}
