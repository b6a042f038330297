import Foundation

/// The host's clock, granted as the `clock` capability. Plugins never read the wall clock directly.
///
/// The provider is the operator's choice: the system clock, or a virtual clock that only moves when
/// it is set or advanced (`tessera clock advance 6d`). Advancing fires everything that falls due, in
/// time order, so a month of a programme runs in milliseconds and the same way every time.
public protocol HostClock: Sendable {
    /// The current instant.
    func now() -> Date

    /// Suspends until `deadline` on this clock. On a virtual clock this resumes when the clock is
    /// advanced to or past `deadline`.
    func sleep(until deadline: Date) async throws

    /// Schedules a timer that the host keeps (it survives restarts and does not need this plugin to
    /// stay loaded). When it falls due, the host calls the handler registered with
    /// ``PluginContext/onTimer(_:_:)`` under the timer's ``TimerRequest/name``.
    ///
    /// Scheduling again with the same ``TimerRequest/key`` replaces the earlier timer.
    func schedule(_ timer: TimerRequest) async throws

    /// Cancels the timer with this key. Cancelling an unknown key is not an error.
    func cancelTimer(key: String) async throws

    /// This plugin's timers that have not fired yet, earliest first.
    func pendingTimers() async throws -> [TimerRequest]
}

extension HostClock {
    /// Suspends for `duration` on this clock.
    public func sleep(for duration: Duration) async throws {
        try await sleep(until: now().addingTimeInterval(duration.timeInterval))
    }
}

extension Duration {
    /// This duration in seconds, as Foundation's `TimeInterval`.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// A timer a plugin asks the host to keep.
public struct TimerRequest: Sendable, Hashable {
    /// Identifies the timer among this plugin's timers; scheduling the same key again replaces it.
    public var key: String
    /// The handler to call, as registered with ``PluginContext/onTimer(_:_:)``.
    public var name: String
    /// When it falls due.
    public var fireAt: Date
    /// Data handed to the handler.
    public var payload: JSONValue

    /// Creates a timer request.
    public init(key: String, name: String, fireAt: Date, payload: JSONValue = .null) {
        self.key = key
        self.name = name
        self.fireAt = fireAt
        self.payload = payload
    }
}

/// A timer that fell due, as handed to its handler.
public struct TimerFiring: Sendable, Hashable {
    /// The timer's key.
    public var key: String
    /// The handler name.
    public var name: String
    /// When it was due.
    public var dueAt: Date
    /// The clock's time when the handler runs. Later than ``dueAt`` after downtime.
    public var firedAt: Date
    /// The payload given when it was scheduled.
    public var payload: JSONValue

    /// Creates a firing.
    public init(key: String, name: String, dueAt: Date, firedAt: Date, payload: JSONValue) {
        self.key = key
        self.name = name
        self.dueAt = dueAt
        self.firedAt = firedAt
        self.payload = payload
    }
}
