import Synchronization

/// Whether polling before sleeping has been paying, on one side of a lane (issue 48;
/// docs/isolation.md, "Polling that pays or stays off").
///
/// A poll pays when the frame comes while the thread polls: it saved a wake-up. It does not when
/// the window runs out first, and then the thread has burnt the whole window for nothing and
/// sleeps anyway. That is the common case on a busy machine: with two cores shared with other
/// work, the host and the child are rarely on a CPU at the same time, so the answer a poller waits
/// for cannot be computed while it polls. So each side keeps score: after
/// ``missesBeforeStopping`` polls in a row that did not pay, or as many misses among the last
/// ``recentPolls`` polls as pays (on a loaded machine some polls pay and most do not, so misses
/// seldom come three in a row), it stops polling, and then polls only one wait in ``probeEvery``,
/// to learn whether it pays again (the machine got quieter); one that pays turns polling back on,
/// with a clean slate. Stopped, a side costs at most one window per ``probeEvery`` waits more than
/// polling off.
///
/// And before any of that, the machine's load: while more threads are runnable than there are
/// cores (``MachineLoad``), no wait polls, not even a probe; the score is left as it was. The
/// child's loop asks for a core more than that (``BusyPolling/payoff(sparing:)``): a poll of
/// its that pays saves it a wake-up, but its spinning takes a core from the host between two
/// calls, and on an idle 2-core machine that cost more than the wake-ups saved.
public final class PollingPayoff: Sendable {
    /// Polls in a row that ran their whole window for nothing, after which polling stops.
    public static let missesBeforeStopping = 3
    /// While stopped, one wait in this many polls anyway.
    public static let probeEvery = 32
    /// How many of the latest polls are looked at: polling stops once half of them missed.
    public static let recentPolls = 8

    private struct State {
        var missesInARow = 0
        /// The latest polls since polling (re)started, newest in the lowest bit: 1 for a miss.
        var recent: UInt32 = 0
        var stopped = false
        var waitsSinceStopped = 0
        var paid = 0
        var missed = 0

        var recentMisses: Int { (recent & (1 << PollingPayoff.recentPolls - 1)).nonzeroBitCount }
    }

    private let state = Mutex(State())
    /// Whether the score and the load decide at all; without it every wait polls (``BusyPolling/adaptive``).
    private let adaptive: Bool
    /// Whether a core is free for the other end (``MachineLoad``).
    private let load: MachineLoad
    /// Cores that must stay free besides the other end's (``MachineLoad/hasFreeCore(besides:)``).
    private let spareCores: Int

    /// A score that decides when `adaptive`, by `load` with `spareCores` left free besides the
    /// other end's core.
    public init(adaptive: Bool = true, load: MachineLoad = .system, sparing spareCores: Int = 0) {
        self.adaptive = adaptive
        self.load = load
        self.spareCores = spareCores
    }

    /// Whether the next wait polls before it sleeps.
    public func shouldPoll() -> Bool {
        guard adaptive else { return true }
        guard load.hasFreeCore(besides: spareCores) else { return false }
        return state.withLock { s in
            guard s.stopped else { return true }
            s.waitsSinceStopped += 1
            return s.waitsSinceStopped % Self.probeEvery == 0
        }
    }

    /// What a wait that polled came to: the frame came while it polled (`paid`), or the window
    /// ran out first.
    public func record(paid: Bool) {
        state.withLock { s in
            if paid {
                s.paid += 1
                s.missesInARow = 0
                if s.stopped {
                    // A probe that paid: polling resumes, judged from here on.
                    s.stopped = false
                    s.recent = 0
                    s.waitsSinceStopped = 0
                    return
                }
            } else {
                s.missed += 1
                s.missesInARow += 1
            }
            s.recent = s.recent << 1 | (paid ? 0 : 1)
            if s.missesInARow >= Self.missesBeforeStopping || 2 * s.recentMisses >= Self.recentPolls {
                s.stopped = true
            }
        }
    }

    /// Whether polling is stopped now (the last polls did not pay).
    public var isStopped: Bool { adaptive && state.withLock { $0.stopped } }

    /// The polls that paid and that did not, so far.
    public var counts: (paid: Int, missed: Int) { state.withLock { ($0.paid, $0.missed) } }
}
