import Foundation
import TesseraSDK

/// The `clock` capability as one plugin sees it: the host's time, and timers scoped to this plugin.
///
/// Permissions (from the grant): `timers` (Boolean, default true) lets the plugin keep timers;
/// `maxTimers` (integer, default 10 000) bounds how many it may have pending. Both are checked on
/// every call.
public final class PluginClock: HostClock {
    let pluginID: String
    let source: any ClockSource
    let store: any TimerStore
    let timersAllowed: Bool
    let maxTimers: Int

    public init(pluginID: String, source: any ClockSource, store: any TimerStore, permissions: JSONValue) {
        self.pluginID = pluginID
        self.source = source
        self.store = store
        self.timersAllowed = permissions["timers"]?.boolValue ?? true
        self.maxTimers = permissions["maxTimers"]?.integerValue.map(Int.init) ?? 10_000
    }

    public func now() -> Date { source.now() }

    public func sleep(until deadline: Date) async throws { try await source.sleep(until: deadline) }

    public func schedule(_ timer: TimerRequest) async throws {
        try checkTimersAllowed()
        guard !timer.key.isEmpty else { throw PluginError(.invalidInput, "a timer needs a non-empty key", field: "key") }
        guard !timer.name.isEmpty else { throw PluginError(.invalidInput, "a timer needs the name of its handler", field: "name") }
        let pending = try store.pending(plugin: pluginID)
        if pending.count >= maxTimers, !pending.contains(where: { $0.key == timer.key }) {
            throw PluginError(.forbidden, "plugin '\(pluginID)' already has \(pending.count) timers, its granted maximum")
        }
        try store.put(StoredTimer(plugin: pluginID, key: timer.key, name: timer.name, fireAt: timer.fireAt, payload: timer.payload))
    }

    public func cancelTimer(key: String) async throws {
        try checkTimersAllowed()
        try store.remove(plugin: pluginID, key: key)
    }

    public func pendingTimers() async throws -> [TimerRequest] {
        try store.pending(plugin: pluginID).map {
            TimerRequest(key: $0.key, name: $0.name, fireAt: $0.fireAt, payload: $0.payload)
        }
    }

    private func checkTimersAllowed() throws {
        guard timersAllowed else {
            throw PluginError(.notGranted, "timers are not granted to plugin '\(pluginID)' (clock permission 'timers' is false)")
        }
    }
}
