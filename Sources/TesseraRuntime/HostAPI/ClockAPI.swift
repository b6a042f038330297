import Foundation

/// The loop that fires due work on the host's clock (`PluginHost.clock` says what time it is there).
extension PluginHost {
    /// Fires due timers, notifications, events and sync rounds on the system clock until cancelled
    /// (`tessera serve`); a virtual clock fires only when advanced.
    public func runTimers() async { await timers.run() }
}
