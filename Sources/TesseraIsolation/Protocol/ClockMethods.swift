import Foundation
import Synchronization
import TesseraSDK

/// `clock`: the host's clock (virtual or the system's) and the plugin's durable timers.
public enum ClockMethods {
    static let timer = WireSchema.object(["key": WireSchema.string, "name": WireSchema.string, "fireAt": WireSchema.time,
                                                          "payload": WireSchema.any], required: ["key", "name", "fireAt"], of: "TimerRequest")

    public static let now = CapabilityMethodSpec(
        "clock.now", capability: "clock", "The host's time now.", parameters: WireSchema.null, result: WireSchema.time)
    public static let sleep = CapabilityMethodSpec(
        "clock.sleep", capability: "clock", "Answers once the host's clock reaches the time given.",
        parameters: WireSchema.time, result: WireSchema.null)
    public static let schedule = CapabilityMethodSpec(
        "clock.schedule", capability: "clock", "Schedules a durable timer (a key already scheduled is replaced).",
        parameters: timer, result: WireSchema.null)
    public static let cancelTimer = CapabilityMethodSpec(
        "clock.cancelTimer", capability: "clock", "Cancels the timer with this key, if there is one.",
        parameters: WireSchema.string, result: WireSchema.null)
    public static let pendingTimers = CapabilityMethodSpec(
        "clock.pendingTimers", capability: "clock", "The plugin's timers not yet fired.",
        parameters: WireSchema.null, result: WireSchema.array(timer))

    public static let all = [now, sleep, schedule, cancelTimer, pendingTimers]
}

/// ``HostClock`` in the process tier.
final class ClockProxy: HostClock, Sendable {
    let peer: PeerConnection
    /// The host's last answer (at first, its time when it started the plugin): what `now()` says
    /// when the host does not answer.
    private let lastAnswer: Mutex<Date?>

    init(peer: PeerConnection, hostTime: Date?) {
        self.peer = peer
        lastAnswer = Mutex(hostTime)
    }

    /// Synchronous in the SDK, so it blocks this thread for one round trip: the host's clock may be
    /// virtual, and only the host knows its time. The child never reads the wall clock (issue 44:
    /// under a virtual clock that is another time altogether): if the host does not answer — it
    /// refused the call (too many in flight), or the connection is gone and this process ends
    /// soon — the time is the host's last answer; with none at all, the child ends rather than
    /// invent one.
    func now() -> Date {
        do {
            let time = try Date(wire: peer.callBlocking(ClockMethods.now))
            lastAnswer.withLock { $0 = time }
            return time
        } catch {
            if let last = lastAnswer.withLock({ $0 }) { return last }
            FileHandle.standardError.write(Data("the host did not tell the time (\(error)); ending\n".utf8))
            exit(70)  // EX_SOFTWARE: the host sees the plugin's process end
        }
    }
    func sleep(until deadline: Date) async throws {
        _ = try await peer.call(ClockMethods.sleep, deadline.wire)
    }
    func schedule(_ timer: TimerRequest) async throws {
        _ = try await peer.call(ClockMethods.schedule, timer.wire)
    }
    func cancelTimer(key: String) async throws {
        _ = try await peer.call(ClockMethods.cancelTimer, .string(key))
    }
    func pendingTimers() async throws -> [TimerRequest] {
        try (try await peer.call(ClockMethods.pendingTimers).arrayValue ?? []).map(TimerRequest.init(wire:))
    }
}
