import Foundation
import TesseraSDK

/// A timer the host keeps for a plugin.
public struct StoredTimer: Sendable, Hashable {
    public var plugin: String
    public var key: String
    public var name: String
    public var fireAt: Date
    public var payload: JSONValue
    /// For a recurring timer (a manifest job), the period in seconds.
    public var everySeconds: Int64?
    /// How many times its handler has failed in a row.
    public var attempts: Int

    public init(plugin: String, key: String, name: String, fireAt: Date, payload: JSONValue = .null,
                everySeconds: Int64? = nil, attempts: Int = 0) {
        self.plugin = plugin
        self.key = key
        self.name = name
        self.fireAt = fireAt
        self.payload = payload
        self.everySeconds = everySeconds
        self.attempts = attempts
    }
}

/// Where timers and the virtual clock's time are kept, so they survive restarts and a sequence of
/// CLI calls shares one clock.
public protocol TimerStore: Sendable {
    /// Inserts or replaces the timer with this plugin and key.
    func put(_ timer: StoredTimer) throws
    /// Inserts the timer unless one with this plugin and key exists; returns whether it inserted.
    func putIfAbsent(_ timer: StoredTimer) throws -> Bool
    /// Removes a timer; removing an unknown one is not an error.
    func remove(plugin: String, key: String) throws
    /// What follows a firing: replaces `fired` with `next` (removes it for `nil`), but only if the
    /// timer kept under its plugin and key is still the one that fired. A handler that scheduled
    /// its own key again (a new time or payload) keeps what it scheduled.
    func settle(_ fired: StoredTimer, next: StoredTimer?) throws
    /// A plugin's timers, earliest first.
    func pending(plugin: String) throws -> [StoredTimer]
    /// Timers due at or before `time`, earliest first (ties by plugin, then key).
    func due(by time: Date, limit: Int) throws -> [StoredTimer]
    /// The virtual clock's persisted time, if one was saved.
    func loadVirtualNow() throws -> Date?
    /// Persists the virtual clock's time.
    func saveVirtualNow(_ time: Date) throws
}
