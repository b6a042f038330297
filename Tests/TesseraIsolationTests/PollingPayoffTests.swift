import Synchronization
import Testing
@testable import TesseraIsolation

/// Issue 48: polling before sleeping stays on while it pays, stops after a few polls in a row that
/// did not or once half of the latest did not, probes one wait in `probeEvery` while stopped, and
/// resumes on the first that pays.
@Suite struct PollingPayoffTests {
    @Test func pollsWhilePollsPayAndStopsAfterThreeInARowThatDoNot() {
        let payoff = PollingPayoff(load: .ignored)
        for _ in 0..<10 {
            #expect(payoff.shouldPoll())
            payoff.record(paid: true)
        }
        // Two misses and a hit: the count starts again.
        payoff.record(paid: false)
        payoff.record(paid: false)
        payoff.record(paid: true)
        #expect(payoff.shouldPoll() && !payoff.isStopped)
        for _ in 0..<PollingPayoff.missesBeforeStopping { payoff.record(paid: false) }
        #expect(payoff.isStopped)
        #expect(payoff.counts.paid == 11 && payoff.counts.missed == 5)
    }

    @Test func whileStoppedOneWaitInProbeEveryPollsAndOneThatPaysResumes() {
        let payoff = PollingPayoff(load: .ignored)
        for _ in 0..<PollingPayoff.missesBeforeStopping { payoff.record(paid: false) }
        let decisions = (0..<(3 * PollingPayoff.probeEvery)).map { _ in payoff.shouldPoll() }
        // The probes: the 32nd, 64th and 96th waits since it stopped.
        #expect(decisions.enumerated().filter(\.element).map(\.offset) == [31, 63, 95])
        // A probe that misses keeps it stopped; one that pays turns it back on.
        payoff.record(paid: false)
        #expect(payoff.isStopped && !payoff.shouldPoll())
        payoff.record(paid: true)
        #expect(!payoff.isStopped && payoff.shouldPoll() && payoff.shouldPoll())
    }

    @Test func pollsThatPayOnlyNowAndThenStopThoughMissesNeverComeThreeInARow() {
        // A loaded machine: one poll in three pays. Misses never come three in a row, and yet
        // the polls cost a window twice for every wake-up one saves.
        let payoff = PollingPayoff(load: .ignored)
        var stoppedAfter: Int?
        for poll in 0..<30 where stoppedAfter == nil {
            #expect(payoff.shouldPoll())
            payoff.record(paid: poll % 3 == 2)
            if payoff.isStopped { stoppedAfter = poll + 1 }
        }
        #expect(stoppedAfter == 5, "four misses among the last eight polls stop it (miss, miss, pay, miss, miss)")
        #expect(!payoff.shouldPoll())
    }

    @Test func withoutTheScoreEveryWaitPolls() {
        let payoff = PollingPayoff(adaptive: false, load: MachineLoad(cores: 1) { 8 })
        for _ in 0..<10 { payoff.record(paid: false) }
        #expect(!payoff.isStopped)
        #expect((0..<50).allSatisfy { _ in payoff.shouldPoll() })
    }

    @Test func withEveryCoreTakenNoWaitPollsNotEvenAProbeAndTheScoreStays() {
        let runnable = Mutex(3)
        let payoff = PollingPayoff(load: MachineLoad(cores: 2, runnable: { runnable.withLock { $0 } }, milliseconds: { 0 }))
        // Three threads runnable on two cores: the other end would wait for the core this one spins on.
        #expect((0..<(2 * PollingPayoff.probeEvery)).allSatisfy { _ in !payoff.shouldPoll() })
        #expect(!payoff.isStopped && payoff.counts.paid == 0 && payoff.counts.missed == 0)
    }

    @Test func theChildsLoopPollsOnlyWithACoreSpareBesidesTheHostsCaller() {
        // Two runnable on two cores: the host's caller may poll (the child computes on the other
        // core), the child's loop may not (its spin would leave the host one core for all its threads).
        let runnable = Mutex(2)
        let load = MachineLoad(cores: 2, runnable: { runnable.withLock { $0 } }, milliseconds: { 0 })
        let caller = PollingPayoff(load: load)
        let loop = PollingPayoff(load: load, sparing: 1)
        #expect(caller.shouldPoll())
        #expect((0..<(2 * PollingPayoff.probeEvery)).allSatisfy { _ in !loop.shouldPoll() })
        // On four cores with the same two runnable, both poll.
        let bigger = PollingPayoff(load: MachineLoad(cores: 4, runnable: { runnable.withLock { $0 } }, milliseconds: { 0 }), sparing: 1)
        #expect(bigger.shouldPoll())
    }
}

/// Issue 48: "cores free" as evidence — the machine's runnable threads against its cores, read at
/// most once per refresh.
@Suite struct MachineLoadTests {
    @Test func aCoreIsFreeWhileNoMoreThreadsAreRunnableThanCores() {
        let runnable = Mutex<Int?>(2)
        let clock = Mutex<UInt64>(1_000)
        let load = MachineLoad(cores: 2, runnable: { runnable.withLock { $0 } }, milliseconds: { clock.withLock { $0 } })
        #expect(load.hasFreeCore(), "two runnable (this thread and the other end) on two cores")
        runnable.withLock { $0 = 3 }
        #expect(load.hasFreeCore(), "the reading stands for its refresh")
        clock.withLock { $0 += 10 }
        #expect(!load.hasFreeCore(), "three runnable on two cores, read again after 10 ms")
        runnable.withLock { $0 = nil }
        clock.withLock { $0 += 10 }
        #expect(load.hasFreeCore(), "an unreadable count leaves the payoff rule to decide")
        #expect(load.hasFreeCore(besides: 1), "an unreadable count leaves the payoff rule to decide, a core spare or not")
    }

    @Test func aSpareCoreIsAskedForBesidesTheRunnableThreads() {
        let runnable = Mutex<Int?>(1)
        let clock = Mutex<UInt64>(1_000)
        let load = MachineLoad(cores: 2, runnable: { runnable.withLock { $0 } }, milliseconds: { clock.withLock { $0 } })
        #expect(load.hasFreeCore(besides: 1), "one runnable on two cores leaves one spare")
        runnable.withLock { $0 = 2 }
        clock.withLock { $0 += 10 }
        #expect(load.hasFreeCore() && !load.hasFreeCore(besides: 1), "two runnable on two cores leave none spare")
    }

    @Test func aReadingIsMadeAtMostOncePerRefresh() {
        let reads = Mutex(0)
        let clock = Mutex<UInt64>(5)
        let load = MachineLoad(cores: 4, runnable: { reads.withLock { $0 += 1; return 1 } }, milliseconds: { clock.withLock { $0 } })
        for _ in 0..<100 { _ = load.hasFreeCore() }
        #expect(reads.withLock { $0 } == 1)
        clock.withLock { $0 += 9 }
        _ = load.hasFreeCore()
        #expect(reads.withLock { $0 } == 1)
        clock.withLock { $0 += 1 }
        _ = load.hasFreeCore()
        #expect(reads.withLock { $0 } == 2)
    }

    @Test func theRunnableCountIsTheFourthFieldOfLoadavg() {
        #expect(MachineLoad.runnable(inLoadavg: Array("0.52 0.58 0.59 3/611 12345\n".utf8)) == 3)
        #expect(MachineLoad.runnable(inLoadavg: Array("12.00 9.10 8.00 17/2048 99".utf8)) == 17)
        #expect(MachineLoad.runnable(inLoadavg: Array("0.52 0.58".utf8)) == nil)
        #expect(MachineLoad.runnable(inLoadavg: Array("a b c d/e f".utf8)) == nil)
        // This machine's own: at least the thread reading it is runnable.
        #expect((MachineLoad.runnableNow() ?? 0) >= 1)
    }
}

/// Issue 48: the polling window is a wake-up's cost on this machine, measured at run time.
@Suite struct WakeUpCostTests {
    @Test func aMeasuredWakeUpIsNeverNegativeNorAboveTheCeiling() {
        let cost = WakeUpCost.measure(roundTrips: 50)
        #expect(cost >= .zero && cost <= WakeUpCost.ceiling)
    }

    @Test func theHostsChoiceOfWindowFollowsTheMeasuredCost() {
        let polling = BusyPolling(microseconds: nil)
        #expect(polling.followsWakeUpCost)
        #expect(polling.nanoseconds <= UInt64(WakeUpCost.ceiling.nanoseconds))
        #expect(BusyPolling(microseconds: 0) == .off && !BusyPolling.off.followsWakeUpCost)
    }
}

/// Issue 48: a wake-up's cost is measured again in the background once a minute old, so that a
/// reading made at a busy moment does not stand for as long as the host runs.
@Suite struct WakeUpCostReadingTests {
    @Test func theFirstAskStartsAMeasurementAsideAndNoWaitPollsUntilItIsDone() {
        let started = Mutex<[@Sendable () -> Void]>([])
        let reading = WakeUpCostReading(measure: { .microseconds(17) }, milliseconds: { 5 },
                                        inBackground: { job in started.withLock { $0.append(job) } })
        #expect(reading.current() == .zero && reading.current() == .zero)
        let jobs = started.withLock { $0 }
        #expect(jobs.count == 1, "one measurement, however many ask before it is done")
        jobs.first?()
        #expect(reading.current() == .microseconds(17))
        #expect(started.withLock { $0.count } == 1)
    }

    @Test func aRefreshMeasuresAtOnceOnTheCallingThread() {
        let reading = WakeUpCostReading(measure: { .microseconds(9) }, milliseconds: { 5 }, inBackground: { _ in })
        reading.refresh()
        #expect(reading.current() == .microseconds(9))
    }

    @Test func aReadingIsMeasuredAgainAsideOnceItIsAMinuteOld() {
        let measurements = Mutex(0)
        let clock = Mutex<UInt64>(1_000)
        let started = Mutex<[@Sendable () -> Void]>([])
        let reading = WakeUpCostReading(measure: {
            measurements.withLock { $0 += 1; return .microseconds(10 * $0) }
        }, milliseconds: { clock.withLock { $0 } }, inBackground: { job in started.withLock { $0.append(job) } })
        _ = reading.current()
        started.withLock { $0.removeFirst() }()
        #expect(reading.current() == .microseconds(10))
        clock.withLock { $0 += 59_999 }
        #expect(reading.current() == .microseconds(10) && started.withLock { $0.isEmpty })
        // A minute old: the old cost is returned at once, and one measurement is started aside,
        // however many ask before it is done.
        clock.withLock { $0 += 1 }
        #expect(reading.current() == .microseconds(10))
        #expect(reading.current() == .microseconds(10))
        let jobs = started.withLock { $0 }
        #expect(jobs.count == 1 && measurements.withLock { $0 } == 1)
        jobs.first?()
        #expect(reading.current() == .microseconds(20))
        // The new reading is fresh: nothing more is started for another minute.
        clock.withLock { $0 += 59_000 }
        _ = reading.current()
        #expect(started.withLock { $0.count } == 1)
    }
}
