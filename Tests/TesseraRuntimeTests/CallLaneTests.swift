import Foundation
import Synchronization
import Testing
import TesseraIsolation
import TesseraSDK
import TesseraTestFixtures

/// The lanes of the process tier (docs/isolation.md, "Lanes"): a host's call into the child goes on
/// a socket of its own, and the thread that asked reads a quick answer itself; one that takes
/// longer than the brief wait is handed over to the reader thread. Both ends run in this process
/// here, the child's on a ``ChildEventLoop`` as in `tessera-plugin-runner`.
@Suite(.hangWatchdog) struct CallLaneTests {
    /// A host end and a child end joined by a main socket and one lane. `sockets` are the child's
    /// descriptors, to end them as a dying child would.
    struct Pair {
        let host: PeerConnection
        let child: PeerConnection
        let sockets: [Int32]
    }

    func pair(busyPolling: BusyPolling = .off, handler: @escaping PeerConnection.Handler) -> Pair {
        var main: [Int32] = [-1, -1], lane: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &main) == 0)
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &lane) == 0)
        // A count of its own: other suites' plugins may be waiting on the shared one meanwhile.
        let host = PeerConnection(fd: main[0], lanes: [lane[0]], briefWaiters: BriefWaiters(most: 1), busyPolling: busyPolling) { _, _ in .null }
        let child = PeerConnection(fd: main[1], lanes: [lane[1]], eventLoop: ChildEventLoop(busyPolling: busyPolling), handler: handler)
        host.start { PluginError(.pluginCrashed, "the plugin's process was killed by SIGKILL (signal 9)") }
        child.start { PluginError(.unavailable, "the host went") }
        return Pair(host: host, child: child, sockets: [main[1], lane[1]])
    }

    /// The thread a closure ran on.
    final class ThreadSeen: Sendable {
        private let thread = Mutex<UInt?>(nil)
        func record() { thread.withLock { $0 = UInt(pthread_self()) } }
        var value: UInt? { thread.withLock { $0 } }
    }

    /// The child's descriptors, known once the pair is made, for its handler to end them.
    final class SocketsSeen: Sendable {
        private let sockets = Mutex<[Int32]>([])
        func set(_ fds: [Int32]) { sockets.withLock { $0 = fds } }
        var value: [Int32] { sockets.withLock { $0 } }
    }

    @Test func aQuickAnswerIsReadOnItsLaneByTheThreadThatAsked() async throws {
        let peers = pair { _, params in ["echo": params] }
        defer { peers.host.shutDown() }
        for n in 0..<20 {
            let started = ThreadSeen(), answered = ThreadSeen()
            let answer = try await peers.host.call("echo", ["n": .integer(Int64(n))], waitingBriefly: .seconds(30),
                                                   started: { _ in started.record() }, answered: { answered.record() })
            #expect(answer == ["echo": ["n": .integer(Int64(n))]])
            // The caller read its answer itself: no other thread was woken to hand it over.
            #expect(started.value != nil && answered.value == started.value)
        }
        #expect(peers.host.callsHandedToReader == 0)
    }

    @Test func anAnswerLaterThanTheBriefWaitIsReadByTheReaderThread() async throws {
        let peers = pair { _, params in params }
        defer { peers.host.shutDown() }
        for n in 0..<5 {
            let started = ThreadSeen(), answered = ThreadSeen()
            // No brief wait at all: the lane goes to the reader before the child can answer.
            let answer = try await peers.host.call("echo", .integer(Int64(n)), waitingBriefly: .zero,
                                                   started: { _ in started.record() }, answered: { answered.record() })
            #expect(answer == .integer(Int64(n)))
            #expect(answered.value != nil && answered.value != started.value)
        }
        #expect(peers.host.callsHandedToReader == 5)
        // The lane was freed each time: a quick call still gets it.
        let started = ThreadSeen(), answered = ThreadSeen()
        _ = try await peers.host.call("echo", 1, waitingBriefly: .seconds(30), started: { _ in started.record() }, answered: { answered.record() })
        #expect(answered.value == started.value)
    }

    @Test func aChildThatEndsWhileItsCallerWaitsOnALaneFailsTheCallWithTheReadersReason() async throws {
        // The child's process ends while the call is in it: its handler, on the child's own
        // event-loop thread, ends every socket of the child at once. (Not the test's task: the
        // caller holds a pool thread while it waits, and on two cores the test could then wait
        // for the other one behind whatever else the run is doing.)
        let childSockets = SocketsSeen()
        let peers = pair { _, _ in
            for fd in childSockets.value { _ = shutdown(fd, Int32(SHUT_RDWR)) }
            return .null
        }
        childSockets.set(peers.sockets)
        do {
            // Long enough that under a loaded run the end is seen within it; it ends at once here.
            _ = try await peers.host.call("end", .null, waitingBriefly: .seconds(30), started: { _ in }, answered: {})
            Issue.record("a call to a child that ended was answered")
        } catch let error as PluginError {
            #expect(error.code == .pluginCrashed, "\(error)")
        }
    }

    @Test func theCallerPollsWhileCallsAreQuickAndSleepsAtOnceAfterOneThatWasNot() async throws {
        // Polling that never stops for not paying: this test is of the brief wait's rule alone.
        let peers = pair(busyPolling: BusyPolling(window: .microseconds(50), adaptive: false)) { _, params in params }
        defer { peers.host.shutDown() }
        let quick = { (n: Int64) in
            let answer = try await peers.host.call("echo", .integer(n), waitingBriefly: .seconds(30), started: { _ in }, answered: {})
            #expect(answer == .integer(n))
        }
        // Both ends poll (the child's loop too): the answers are the same as without.
        for n in 0..<10 { try await quick(Int64(n)) }
        #expect(peers.host.callsThatPolledFirst == 10)
        // A call not answered within its brief wait (none here) is handed over to the reader...
        _ = try await peers.host.call("echo", 10, waitingBriefly: .zero, started: { _ in }, answered: {})
        #expect(peers.host.callsHandedToReader == 1)
        #expect(peers.host.callsThatPolledFirst == 11)
        // ...so the next caller sleeps at once; once it is answered within its wait, polling resumes.
        try await quick(11)
        #expect(peers.host.callsThatPolledFirst == 11)
        try await quick(12)
        #expect(peers.host.callsThatPolledFirst == 12)
    }

    /// Issue 48: a caller whose polls run their whole window for nothing (the answer takes longer
    /// than the window: here the child's handler takes 300 µs) stops polling after three.
    @Test func theCallerStopsPollingWhenItsPollsDoNotPay() async throws {
        // The payoff rule alone: a loaded machine (other suites run meanwhile) must not take polling away first.
        let peers = pair(busyPolling: BusyPolling(window: .microseconds(50), readsLoad: false)) { _, params in
            usleep(300)  // an answer that cannot come within the 50 µs window
            return params
        }
        defer { peers.host.shutDown() }
        for n in 0..<10 {
            _ = try await peers.host.call("echo", .integer(Int64(n)), waitingBriefly: .seconds(30), started: { _ in }, answered: {})
        }
        #expect(peers.host.callsThatPolledFirst == PollingPayoff.missesBeforeStopping)
        let payoff = try #require(peers.host.callersPollingPayoff)
        #expect(payoff.isStopped)
        #expect(payoff.counts.paid == 0 && payoff.counts.missed == PollingPayoff.missesBeforeStopping)
    }

    @Test func withPollingOffNoCallPolls() async throws {
        let peers = pair(busyPolling: .off) { _, params in params }
        defer { peers.host.shutDown() }
        for n in 0..<5 {
            _ = try await peers.host.call("echo", .integer(Int64(n)), waitingBriefly: .seconds(30), started: { _ in }, answered: {})
        }
        #expect(peers.host.callsThatPolledFirst == 0)
    }

    @Test func theChildPollsOnlyWhileCallsComeLessThanAMillisecondApart() {
        let polling = BusyPolling(window: .microseconds(50))
        #expect(polling.childPolls(afterIdleOf: .zero))
        #expect(polling.childPolls(afterIdleOf: .microseconds(999)))
        #expect(!polling.childPolls(afterIdleOf: .milliseconds(1)))
        #expect(!polling.childPolls(afterIdleOf: .seconds(5)))
        #expect(!BusyPolling.off.childPolls(afterIdleOf: .zero))
    }

    @Test func aDeploymentsMicrosecondsBecomeTheWindow() {
        #expect(BusyPolling(microseconds: nil) == .measured && BusyPolling(microseconds: nil).followsWakeUpCost)
        #expect(!BusyPolling(microseconds: 120).followsWakeUpCost)
        #expect(BusyPolling(microseconds: 0) == .off)
        #expect(BusyPolling(microseconds: 120).window == .microseconds(120))
        #expect(BusyPolling(microseconds: 120).microseconds == 120)
        #expect(BusyPolling(microseconds: -3) == .off)
    }
}
