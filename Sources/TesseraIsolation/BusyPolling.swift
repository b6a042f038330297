import Foundation

/// Polling a socket without sleeping for a short while before sleeping on it (docs/isolation.md,
/// "Polling before sleeping"), on both ends of a lane: the host's caller waiting for its answer,
/// and the child's event loop waiting for the next call.
///
/// A thread asleep in `poll` costs a wake-up when its frame comes: the kernel's scheduler, and on a
/// virtual machine an interrupt to a halted virtual CPU, which measured from about 6 µs to over
/// 70 µs on the machines this ran on. A round trip has two of them. A thread that polls with a zero
/// timeout first catches a quick frame awake, at the price of the CPU it burns while it polls. So
/// each side polls only while that is likely to pay, and for at most ``window``, by the host's
/// choice as long as a wake-up costs (``WakeUpCost``):
///
/// - the host's caller, while the last call on the plugin's lanes was answered within the brief
///   wait (``CallLanes``); a call that took longer stops it until one is quick again;
/// - the child's loop, while calls come close together: the last time it had nothing to do lasted
///   less than ``recentlyBusy``. So a child polls at most ``window`` per ``recentlyBusy`` (at the
///   host's choice at most 10 % of a core: ``WakeUpCost/ceiling``), however calls are spaced, and
///   not at all while they are sparse.
///
/// And each side polls only while polling pays (``PollingPayoff``, when ``adaptive``): a poll that
/// runs its whole window without the frame coming saved nothing, and a few in a row stop it; and
/// only while the machine has a core free for the other end (``MachineLoad``, when ``readsLoad``).
public struct BusyPolling: Sendable {
    /// The longest a thread polls without sleeping before it sleeps; zero turns polling off.
    public let window: Duration
    /// Whether each side stops polling while its polls do not pay (``PollingPayoff``); always,
    /// but in tests of the window itself.
    public let adaptive: Bool
    /// Whether each side also stops polling while every core is taken (``MachineLoad``); always,
    /// but in tests of the payoff rule, whose outcome must not hang on the machine's load.
    public let readsLoad: Bool

    /// The child polls after a call only if its previous idle spell was shorter than this.
    public static let recentlyBusy: Duration = .milliseconds(1)

    /// Whether the window follows the host's latest measurement of a wake-up (``measured``)
    /// rather than staying as given.
    public private(set) var followsWakeUpCost = false

    /// The host's choice: as long as a wake-up costs on this machine (``WakeUpCost``), so that a
    /// poll that runs out has cost at most a wake-up's worth more than sleeping at once; the
    /// host's callers follow each new measurement, a child keeps the window it was started with.
    /// (Until 2026-12-02 a fixed 50 µs, tuned where a wake-up cost 63–75 µs.)
    public static var measured: BusyPolling {
        var polling = BusyPolling(window: WakeUpCost.measured)
        polling.followsWakeUpCost = true
        return polling
    }

    /// No polling: every wait sleeps at once.
    public static let off = BusyPolling(window: .zero)

    public init(window: Duration, adaptive: Bool = true, readsLoad: Bool = true) {
        self.window = max(.zero, window)
        self.adaptive = adaptive
        self.readsLoad = readsLoad
    }

    /// What each side's ``PollingPayoff`` goes by; `spareCores` must stay free besides the other
    /// end's for a wait to poll (``MachineLoad/hasFreeCore(besides:)``): none for the host's
    /// caller, one for the child's loop.
    func payoff(sparing spareCores: Int = 0) -> PollingPayoff {
        PollingPayoff(adaptive: adaptive, load: readsLoad ? .system : .ignored, sparing: spareCores)
    }

    /// A window of `microseconds` (`nil`: ``measured``; 0: ``off``), as the deployment's policy and
    /// the runner's `--busy-poll-us` give it.
    public init(microseconds: Int?) {
        self = microseconds.map { BusyPolling(window: .microseconds($0)) } ?? .measured
    }

    /// The window in whole microseconds, for the runner's command line.
    public var microseconds: Int { Int(window.nanoseconds / 1_000) }

    /// The window now, in nanoseconds: the latest measurement's when it follows it.
    var nanoseconds: UInt64 { UInt64((followsWakeUpCost ? WakeUpCost.measured : window).nanoseconds) }

    /// Whether the child's loop polls before sleeping, given how long its last idle spell lasted.
    public func childPolls(afterIdleOf lastIdle: Duration) -> Bool {
        window > .zero && lastIdle < Self.recentlyBusy
    }
}

extension Duration {
    /// The whole nanoseconds of a non-negative duration.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

extension BusyPolling: Equatable {
    /// Two that follow the measurement are the same whatever the window was when each was made.
    public static func == (a: BusyPolling, b: BusyPolling) -> Bool {
        a.adaptive == b.adaptive && a.readsLoad == b.readsLoad && a.followsWakeUpCost == b.followsWakeUpCost
            && (a.followsWakeUpCost || a.window == b.window)
    }
}
