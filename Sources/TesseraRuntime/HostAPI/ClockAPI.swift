import Foundation

/// The host's clock, for the edges: what time it is there, and the loop that fires due work.
extension PluginHost {
    /// The time on the host's clock (the virtual clock's, where the deployment uses one).
    public var now: Date { clock.now() }

    /// Fires due timers, notifications, events and sync rounds on the system clock until cancelled
    /// (`tessera serve`); a virtual clock fires only when advanced.
    public func runTimers() async { await timers.run() }
}
