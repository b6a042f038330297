import Foundation
import Synchronization
import TesseraSDK

/// Waiting for changes (a long poll): a device asks "tell me when my spaces hold a change of
/// this plugin after my cursor", and the hub answers as soon as they do, or when the wait is up.
/// So the other members' devices learn of a change in seconds rather than at their next
/// periodic round.
///
/// A push on this replica wakes the waiters at once (``HubChangeSignal``); a push on another
/// replica over the same PostgreSQL database is seen by the recheck every ``waitRecheckSeconds``.
extension HubStore {
    /// The longest wait a device may ask for, and how often a waiter looks again on its own.
    public static let maxWaitSeconds = 60
    public static let waitRecheckSeconds = 2

    /// Whether `person`'s spaces hold a change of `plugin` after `cursor`, waiting up to `seconds`
    /// (wall time: a long poll) for one to arrive.
    public func waitForChanges(plugin: String, person: String, after cursor: Int64, seconds: Int) async throws(HubError) -> Bool {
        try await waitForChanges(plugin: plugin, person: person, after: cursor, notificationsAfter: nil, seconds: seconds).changes
    }

    /// The same, answering also as soon as `person` has a relayed notification after
    /// `notificationsAfter` (when given): which of the two came.
    public func waitForChanges(plugin: String, person: String, after cursor: Int64, notificationsAfter: Int64?,
                               seconds: Int) async throws(HubError) -> (changes: Bool, notifications: Bool) {
        try Self.checkPlugin(plugin)
        guard cursor >= 0 else { throw HubError(.invalidInput, "invalid_cursor", "a cursor is 0 or a number a pull returned", field: "after") }
        let deadline = ContinuousClock.now + .seconds(min(max(seconds, 0), Self.maxWaitSeconds))
        while true {
            if waitsEnded.isSet { return (false, false) }
            let generation = changeSignal.generation
            let changes = try await hasChanges(plugin: plugin, person: person, after: cursor)
            var notifications = false
            if let notificationsAfter { notifications = try await hasNotifications(person: person, after: notificationsAfter) }
            if changes || notifications { return (changes, notifications) }
            let left = deadline - ContinuousClock.now
            if left <= .zero { return (false, false) }
            await changeSignal.wait(after: generation, atMost: min(left, .seconds(Self.waitRecheckSeconds)))
        }
    }

    func hasChanges(plugin: String, person: String, after cursor: Int64) async throws(HubError) -> Bool {
        try await transaction { connection in
            let spaces = try await Self.readableSpaces(of: person, on: connection)
            // One look along each space's index range: a change of another person's is never read.
            for space in spaces {
                if try await connection.fetchOne("SELECT 1 FROM hub_changes WHERE plugin = ? AND space = ? AND seq > ? LIMIT 1",
                                                 [.text(plugin), .text(space), .integer(cursor)]) != nil { return true }
            }
            return false
        }
    }
}

extension HubStore {
    /// Ends every wait now with "nothing new", and every wait asked for later at once: the hub is
    /// stopping, and a graceful stop waits for every response, which a device's wait could hold
    /// for 25 s (issue 46: a hub took 10–30 s to stop). The device asks again, elsewhere or later.
    public func endWaits() {
        waitsEnded.set()
        changeSignal.fire()
    }
}

/// A flag that is only ever set: the hub is stopping.
final class HubStopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// Wakes whoever waits for changes when a push stored some: a counter that moves on, and the
/// waiters of the count they saw.
public final class HubChangeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
        /// Waits whose time ran out before they began waiting.
        var expired: Set<UUID> = []
    }
    private let state = Mutex(State())

    public init() {}

    var generation: UInt64 { state.withLock { $0.generation } }

    /// Moves the count on and wakes every waiter.
    func fire() {
        let woken = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.generation &+= 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        woken.forEach { $0.resume() }
    }

    /// Returns when the count moves past `generation`, or after `limit`.
    func wait(after generation: UInt64, atMost limit: Duration) async {
        let id = UUID()
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            self?.wake(id)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.generation != generation || state.expired.remove(id) != nil { return true }
                state.waiters[id] = continuation
                return false
            }
            if ready { continuation.resume() }
        }
        timer.cancel()
        state.withLock { _ = $0.expired.remove(id) }
    }

    private func wake(_ id: UUID) {
        let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let continuation = state.waiters.removeValue(forKey: id) else {
                state.expired.insert(id)  // not waiting yet: it will not start
                return nil
            }
            return continuation
        }
        waiting?.resume()
    }
}
