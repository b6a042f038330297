import Foundation
import Synchronization
import TesseraSDK

/// The child's reader thread as a Swift task executor: one thread that waits in `poll(2)` on the
/// host's socket and a wake-up pipe, cuts frames from what it reads, and runs the jobs enqueued to
/// it between reads (docs/isolation.md, "Threads").
///
/// A call from the host starts its handler as a task preferring this executor, so an answer that
/// needs no other thread (an echo) is computed and sent without waking one: the frame is read, the
/// handler runs and the reply is written on this thread. A handler that awaits the host (a storage
/// write) suspends; the host's reply, read here, resumes it here.
///
/// Nothing may block this thread waiting for the host: only this thread reads the socket. The one
/// synchronous call of the SDK that waits for the host (`HostClock.now()`) pumps the socket itself
/// when made here (``PeerConnection/callBlocking(_:_:)``).
public final class ChildEventLoop: TaskExecutor, Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        /// The loop is in (or about to enter) `poll`: an enqueue must wake it through the pipe.
        var sleeping = false
    }

    private let queue = Mutex(Queue())
    private let wake = WakePipe(for: "the child's event loop")
    /// The loop's thread, once it runs (`pthread_t` as an integer: 0 before).
    private let loopThread = Atomic<UInt>(0)
    /// Whether the loop polls before it sleeps, while calls come close together.
    private let busyPolling: BusyPolling
    /// Whether its polls have been paying (``PollingPayoff``).
    public let payoff: PollingPayoff

    public init(busyPolling: BusyPolling = .off) {
        self.busyPolling = busyPolling
        // A core spare besides the host's caller: the host needs one between two calls while
        // this loop spins (``PollingPayoff``).
        payoff = busyPolling.payoff(sparing: 1)
    }

    /// True on the loop's own thread.
    public var isCurrentThread: Bool { loopThread.load(ordering: .acquiring) == UInt(pthread_self()) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let mustWake = queue.withLock { q -> Bool in
            q.jobs.append(job)
            defer { q.sleeping = false }
            return q.sleeping
        }
        if mustWake { wake.wake() }
    }

    /// Runs on the calling thread until the host's socket ends: jobs first, then one frame, then
    /// again; with neither at hand it sleeps in `poll` on the sockets and the pipe. `connections`
    /// are the main socket first, then the lanes (``CallLanes``); `frame` is handed each frame with
    /// the socket it came on. The loop returns when the main socket ends or breaks; a lane that
    /// ends is only no longer read.
    func run(_ connections: [FrameConnection], frame: (PeerMessage, FrameConnection) -> Void) {
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        Self.nameThread(Self.threadName)
        let executor = asUnownedTaskExecutor()
        var open = connections
        var lastIdle = Duration.zero
        // Kept from one round to the next, so that a call allocates neither (two arrays per round
        // before): the jobs are swapped out with an empty array that keeps its capacity, and the
        // descriptors are made again only when a lane ends.
        var jobs: [UnownedJob] = []
        var fds = Self.descriptors(wake: wake.readEnd, open)
        while true {
            queue.withLock { swap(&$0.jobs, &jobs) }
            for job in jobs { job.runSynchronously(on: executor) }
            jobs.removeAll(keepingCapacity: true)
            do {
                if let (next, connection) = try bufferedMessage(in: open) { frame(next, connection); continue }
            } catch { return }
            for i in fds.indices { fds[i].revents = 0 }
            let idleSince = ContinuousClock.now
            if busyPolling.childPolls(afterIdleOf: lastIdle), payoff.shouldPoll() { payoff.record(paid: pollAwake(&fds)) }
            guard startSleeping() else { continue }
            let ready = poll(&fds, nfds_t(fds.count), -1)
            queue.withLock { $0.sleeping = false }
            lastIdle = ContinuousClock.now - idleSince
            // Interrupted: round the loop, which looks at the queue again before the next wait
            // (not SystemCall.retryingInterrupted, which would wait again at once).
            if ready < 0 { if errno == EINTR { continue } else { return } }
            if fds[0].revents != 0 { wake.drain() }
            var ended: [Int] = []
            for (i, connection) in open.enumerated() where fds[1 + i].revents != 0 {
                let more: Bool
                do { more = try connection.readAvailable() } catch { more = false }
                if !more {
                    if i == 0 { return }
                    ended.append(i)
                }
            }
            for i in ended.reversed() { open.remove(at: i) }
            if !ended.isEmpty { fds = Self.descriptors(wake: wake.readEnd, open) }
        }
    }

    /// What the loop polls: the wake-up pipe, then each open connection.
    private static func descriptors(wake: Int32, _ open: [FrameConnection]) -> [pollfd] {
        [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)] + open.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    }

    /// Polls `fds` with a zero timeout until one has something, a job is enqueued, or the busy-poll
    /// window has passed (``BusyPolling``); the `poll` that follows then returns at once or sleeps.
    /// True if something came within the window (the poll paid).
    private func pollAwake(_ fds: inout [pollfd]) -> Bool {
        let end = DispatchTime.now().uptimeNanoseconds + busyPolling.nanoseconds
        var zero = timespec(tv_sec: 0, tv_nsec: 0)
        repeat {
            if queue.withLock({ !$0.jobs.isEmpty }) { return true }
            if PPoll.call(&fds, nfds_t(fds.count), &zero, nil) != 0 { return true }
        } while DispatchTime.now().uptimeNanoseconds < end
        return false
    }

    /// The first whole message already read on any of `connections`, main socket first.
    private func bufferedMessage(in connections: [FrameConnection]) throws -> (PeerMessage, FrameConnection)? {
        for (i, connection) in connections.enumerated() {
            do {
                if let next = try connection.bufferedMessage() { return (next, connection) }
            } catch {
                if i == 0 { throw error }
            }
        }
        return nil
    }

    /// The loop thread's name in the kernel (`/proc/<pid>/task/<tid>/comm`, `top -H`).
    public static let threadName = "tessera-loop"

    /// `prctl(PR_SET_NAME)`, looked up by name as in ``PluginRunner`` (Swift's Glibc module leaves
    /// out <sys/prctl.h>): Foundation's `Thread.name` does not reach the kernel on Linux.
    private static func nameThread(_ name: String) {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        let PR_SET_NAME: Int32 = 15
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return }
        name.withCString { _ = unsafeBitCast(symbol, to: Prctl.self)(PR_SET_NAME, UInt(bitPattern: $0), 0, 0, 0) }
    }

    /// Marks the loop asleep if no job waits; false (stay awake) if one does.
    private func startSleeping() -> Bool {
        queue.withLock { q in
            guard q.jobs.isEmpty else { return false }
            q.sleeping = true
            return true
        }
    }
}
