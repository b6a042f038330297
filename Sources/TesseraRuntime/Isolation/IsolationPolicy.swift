import Foundation
import TesseraSDK

/// How the host treats plugins in the process tier when their process crashes or a call runs too
/// long (docs/isolation.md, "Restart policy"). Times are on the host's clock, so a virtual clock
/// drives them in tests.
public struct IsolationPolicy: Sendable {
    /// The first restart waits this long after a crash; each further crash in the window doubles it.
    public var firstBackoff: TimeInterval
    /// The longest wait before a restart.
    public var maximumBackoff: TimeInterval
    /// This many crashes within ``crashWindow`` quarantine the plugin until an operator restarts it.
    public var quarantineAfter: Int
    public var crashWindow: TimeInterval
    /// A call into the plugin that has not returned after this long is answered with
    /// `plugin_timeout` and the process is killed (an operation's `timeoutSeconds` overrides it).
    public var callTimeout: TimeInterval
    /// The most file writers a child may hold open in the host at once; one more is refused
    /// `unavailable` until it finishes or cancels one. Each open writer is a temporary file and a
    /// descriptor in the host, so a plugin that only opens would otherwise exhaust them.
    public var maxOpenFileWriters: Int
    /// The most capability calls from one child the host answers at once; one more is refused
    /// `unavailable` at once (no task is started for it), so a flood from a child costs the host
    /// a bounded number of tasks and memory.
    public var maxCapabilityCallsInFlight: Int
    /// How many lanes each child gets (docs/isolation.md, "Lanes"): `nil` for the host's choice (one
    /// per caller that may wait on a lane at once), 0 for none (every call's answer is read by the
    /// reader thread; the benchmark compares the two in one run).
    public var callLanes: Int?
    /// How long, in microseconds, both ends of a lane poll without sleeping before they sleep
    /// (docs/isolation.md, "Polling before sleeping"): `nil` for the host's choice (as long as a
    /// wake-up costs on this machine, measured at run time: `WakeUpCost`), 0 for none.
    public var busyPollMicroseconds: Int?

    public init(firstBackoff: TimeInterval = 1, maximumBackoff: TimeInterval = 60, quarantineAfter: Int = 5,
                crashWindow: TimeInterval = 600, callTimeout: TimeInterval = 30,
                maxOpenFileWriters: Int = 16, maxCapabilityCallsInFlight: Int = 256, callLanes: Int? = nil,
                busyPollMicroseconds: Int? = nil) {
        self.firstBackoff = firstBackoff
        self.maximumBackoff = maximumBackoff
        self.quarantineAfter = quarantineAfter
        self.crashWindow = crashWindow
        self.callTimeout = callTimeout
        self.maxOpenFileWriters = maxOpenFileWriters
        self.maxCapabilityCallsInFlight = maxCapabilityCallsInFlight
        self.callLanes = callLanes
        self.busyPollMicroseconds = busyPollMicroseconds
    }

    /// The wait before restarting after the `n`th crash in the window (1, 2, 4, … seconds, capped).
    func backoff(afterCrash n: Int) -> TimeInterval {
        min(maximumBackoff, firstBackoff * pow(2, Double(max(0, n - 1))))
    }
}

extension PluginError.Code {
    /// The plugin's process died while the call was in flight (HTTP 502; CLI exit code 7).
    public static let pluginCrashed = PluginError.Code(rawValue: "plugin_crashed")
    /// The call ran past its deadline; the plugin's process was killed (HTTP 504; CLI exit code 8).
    public static let pluginTimeout = PluginError.Code(rawValue: "plugin_timeout")
}
