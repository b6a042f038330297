import Foundation
import Testing
import TesseraClock

/// A sleep on the virtual clock ends when its task is cancelled, however the cancellation and the
/// sleep's start interleave — including a task cancelled before it began to sleep, whose
/// cancellation handler runs before the sleep is registered. The process tier races a call against
/// its deadline this way on every call; `tessera-bench isolation` hung on the lost wake-up.
@Suite(.hangWatchdog) struct VirtualClockCancellationTests {
    @Test func aSleepCancelledBeforeOrWhileItStartsEndsWithCancellation() async throws {
        let clock = VirtualClockSource(start: Date(timeIntervalSince1970: 1_772_438_400))
        let far = clock.now().addingTimeInterval(3600)
        var cancelled = 0
        for _ in 0..<2000 {
            let ended = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    do { try await clock.sleep(until: far); return false } catch { return error is CancellationError }
                }
                group.cancelAll()  // often before the child task has run at all
                return await group.next() ?? false
            }
            if ended { cancelled += 1 }
        }
        #expect(cancelled == 2000)
        #expect(clock.sleeperCount == 0)
    }

    @Test func aRaceOfAnAnswerAgainstADeadlineReturnsTheAnswerAndLeavesNoSleeper() async throws {
        let clock = VirtualClockSource(start: Date(timeIntervalSince1970: 1_772_438_400))
        for i in 0..<2000 {
            let answer = try await withThrowingTaskGroup(of: Int?.self) { group in
                group.addTask { i }
                group.addTask {
                    try await clock.sleep(until: clock.now().addingTimeInterval(30))
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
            #expect(answer == i)
        }
        #expect(clock.sleeperCount == 0)
    }
}
