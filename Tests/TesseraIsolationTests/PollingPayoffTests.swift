import Testing
@testable import TesseraIsolation

/// Issue 48: polling before sleeping stays on while it pays, stops after a few polls in a row that
/// did not or once half of the latest did not, probes one wait in `probeEvery` while stopped, and
/// resumes on the first that pays.
@Suite struct PollingPayoffTests {
    @Test func pollsWhilePollsPayAndStopsAfterThreeInARowThatDoNot() {
        let payoff = PollingPayoff()
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
        let payoff = PollingPayoff()
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
        let payoff = PollingPayoff()
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
        let payoff = PollingPayoff(adaptive: false)
        for _ in 0..<10 { payoff.record(paid: false) }
        #expect(!payoff.isStopped)
        #expect((0..<50).allSatisfy { _ in payoff.shouldPoll() })
    }
}
