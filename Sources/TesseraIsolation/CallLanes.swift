import Foundation
import Synchronization
import TesseraSDK

/// Sockets to the child besides the main one, each carrying one call from the host and its answer
/// at a time, so that the thread that asked can read the answer itself (docs/isolation.md,
/// "Lanes").
///
/// On the main socket an answer is read by the connection's reader thread, which then has to wake
/// the caller: three threads woken per call (the child's, the reader, the caller). On a lane the
/// caller waits in `ppoll(2)` for a short while (``PeerConnection/call(_:_:waitingBriefly:started:answered:)``),
/// so a quick answer wakes two, as two processes answering each other directly do. A call that
/// takes longer than that is handed over to the reader thread, which watches the lane from then on
/// and releases it once the answer came: the caller's thread is never held longer than the brief
/// wait, whatever the plugin does.
///
/// Only the host's calls into the child use lanes; the child's calls to the host (capabilities)
/// and every answer to them stay on the main socket.
final class CallLanes: Sendable {
    let connections: [FrameConnection]
    private let state: Mutex<State>
    /// Wakes the reader thread when a lane is handed over.
    let wake = WakePipe(for: "the process tier's lanes")

    private struct State {
        /// Lanes no call is using.
        var free: [Int]
        /// Lanes handed over to the reader thread, each with a call whose answer is still to come.
        var watched: [Int] = []
        /// Lanes whose socket ended (the child is gone): never used again.
        var ended: Set<Int> = []
        /// How many calls were handed over to the reader so far.
        var handedOver = 0
    }

    private let briefWaiters: BriefWaiters
    private let busyPolling: BusyPolling
    /// Whether the last brief wait ended with the answer (not handed over): the next caller then
    /// polls before sleeping (``BusyPolling``).
    private let lastWasQuick = Atomic<Bool>(true)
    /// How many callers polled before sleeping (``polledWaits``, for tests).
    private let polled = Atomic<Int>(0)
    /// Whether the callers' polls have been paying (``PollingPayoff``).
    let payoff: PollingPayoff

    /// How many lanes a child gets: `asked` (the deployment's policy), or one per caller that may
    /// wait on one at once; at most 4.
    static func perChild(asked: Int?) -> Int { min(4, max(0, asked ?? BriefWaiters.shared.most)) }

    init(fds: [Int32], briefWaiters: BriefWaiters, busyPolling: BusyPolling) {
        connections = fds.map(FrameConnection.init(fd:))
        self.briefWaiters = briefWaiters
        self.busyPolling = busyPolling
        payoff = busyPolling.payoff()
        state = Mutex(State(free: Array(fds.indices.reversed())))
    }

    deinit {
        // Only here: a caller may still be in `ppoll` on a lane until it lets go of the connection,
        // and a descriptor closed under it could be reused by an unrelated file meanwhile.
        for connection in connections { close(connection.fd) }
        wake.close()
    }

    /// A free lane for a caller about to wait briefly, counted among the brief waiters; `nil` when
    /// every lane is busy or enough threads wait already (the call then goes on the main socket).
    func take() -> Int? {
        guard briefWaiters.enter() else { return nil }
        guard let lane = state.withLock({ $0.free.popLast() }) else {
            briefWaiters.leave()
            return nil
        }
        return lane
    }

    /// How long a caller about to wait polls its lane without sleeping first, in nanoseconds: the
    /// window while calls are answered within the brief wait and the polls pay (counted in
    /// ``polledWaits``), else 0. A caller that polled tells ``payoff`` what it came to.
    func pollingWindow() -> UInt64 {
        // Read once: it follows the latest measured wake-up (``BusyPolling/measured``).
        let window = busyPolling.nanoseconds
        guard window > 0, lastWasQuick.load(ordering: .relaxed), payoff.shouldPoll() else { return 0 }
        polled.add(1, ordering: .relaxed)
        return window
    }

    /// How many brief waits polled before sleeping so far.
    var polledWaits: Int { polled.load(ordering: .relaxed) }

    /// The caller's brief wait is over (it holds no thread any more); then what becomes of its lane.
    func endWait(_ lane: Int, _ outcome: BriefWaitOutcome) {
        briefWaiters.leave()
        switch outcome {
        case .answered:
            lastWasQuick.store(true, ordering: .relaxed)
            state.withLock { $0.free.append(lane) }
        case .ended:
            state.withLock { _ = $0.ended.insert(lane) }
        case .timedOut:
            lastWasQuick.store(false, ordering: .relaxed)
            state.withLock { s in
                s.watched.append(lane)
                s.handedOver += 1
            }
            wake.wake()
        }
    }

    /// How many calls were handed over to the reader so far.
    var handedOver: Int { state.withLock { $0.handedOver } }

    /// The lanes the reader thread watches now.
    func watched() -> [Int] { state.withLock { $0.watched } }

    /// The reader read the answer on `lane` (it is free again), or saw the lane end.
    func readerDone(_ lane: Int, ended: Bool) {
        state.withLock { s in
            s.watched.removeAll { $0 == lane }
            if ended { s.ended.insert(lane) } else { s.free.append(lane) }
        }
    }
}

/// How many callers may wait on a lane at once: each holds a thread of the concurrency pool (as
/// many as the machine has cores) for up to its brief wait, so the shared count leaves one core's
/// worth of threads for everything else, the host's answers to the child's capability calls too.
public final class BriefWaiters: Sendable {
    /// The host's count, across all its plugins.
    public static let shared = BriefWaiters(most: max(1, ProcessInfo.processInfo.activeProcessorCount - 1))

    let most: Int
    private let waiting = Atomic<Int>(0)

    /// A count of its own, allowing `most` at once (tests).
    public init(most: Int) { self.most = most }

    func enter() -> Bool {
        guard waiting.add(1, ordering: .relaxed).newValue <= most else {
            waiting.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func leave() { waiting.subtract(1, ordering: .relaxed) }
}

/// How a caller's brief wait on its lane ended.
enum BriefWaitOutcome {
    /// The answer came (or the call was failed: the child is being killed).
    case answered
    /// The time ran out first: the reader thread takes the lane over.
    case timedOut
    /// The lane's socket ended: the child is gone, and the reader fails the call with why.
    case ended
}

/// One call's answer, for a caller that first waits on its own thread and then, if it must,
/// suspends: whoever reads the answer (the caller itself, or the reader thread) delivers it here.
final class ReplyWaiter: Sendable {
    private enum State {
        case waiting
        case answered(Result<AnswerText, any Error>)
        case suspended(CheckedContinuation<AnswerText, any Error>)
        case finished
    }

    private let state = Mutex(State.waiting)

    var isAnswered: Bool {
        state.withLock { if case .answered = $0 { return true } else { return false } }
    }

    func deliver(_ result: Result<AnswerText, any Error>) {
        let suspended = state.withLock { s -> CheckedContinuation<AnswerText, any Error>? in
            switch s {
            case .waiting:
                s = .answered(result)
                return nil
            case .suspended(let continuation):
                s = .finished
                return continuation
            case .answered, .finished:
                return nil
            }
        }
        suspended?.resume(with: result)
    }

    /// The answer, suspending until it comes if it has not.
    func value() async throws -> AnswerText {
        let ready = state.withLock { s -> Result<AnswerText, any Error>? in
            guard case .answered(let result) = s else { return nil }
            s = .finished
            return result
        }
        if let ready { return try ready.get() }
        return try await suspendUntilAnswered()
    }

    private func suspendUntilAnswered() async throws -> AnswerText {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { s -> Result<AnswerText, any Error>? in
                if case .answered(let result) = s {
                    s = .finished
                    return result
                }
                s = .suspended(continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
