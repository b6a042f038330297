import Foundation
import Synchronization
import TesseraSyncClient

/// Says once that sync with the hub is failing, rather than at every round.
///
/// Rounds are retried on the host's clock (``SyncSchedule``): a minute after a failure, doubling up
/// to the deployment's period. A virtual clock moved by days (`tessera clock set`) runs every one
/// of those rounds on the way, for every syncing plugin, and each logged the same line: about
/// twenty identical warnings for one unreachable hub. Now the first failure is one line naming the
/// hub and what the device does next; the same trouble is not repeated until a round succeeds
/// (then one line says the hub answers again).
final class SyncTroubleReport: Sendable {
    let hub: String
    /// Seconds between rounds when all is well (the longest wait after failures).
    let every: TimeInterval
    let log: HostLog
    /// The troubles reported since the last success: the hub's own (`""`), and each plugin's.
    private let reported = Mutex<Set<String>>([])

    init(hub: String, every: TimeInterval, log: HostLog) {
        self.hub = hub
        self.every = every
        self.log = log
    }

    /// A round of `plugin` failed with `error`.
    func failed(_ plugin: String, _ error: any Error) {
        let unreachable = (error as? SyncClientError).map { $0.status == 0 && $0.code == "unavailable" } ?? false
        let key = unreachable ? "" : plugin
        guard reported.withLock({ $0.insert(key).inserted }) else { return }
        let next = "this device keeps its changes and tries again in 1 min, then less often, up to every \(Self.duration(every))"
        if unreachable, let error = error as? SyncClientError {
            log(.warning, "sync", "\(error.message); \(next); not repeated until the hub answers")
        } else {
            log(.warning, plugin, "sync with \(hub) failed: \(error); \(next); not repeated until a round succeeds")
        }
    }

    /// A round of `plugin` succeeded: its trouble, and the hub's, are over.
    func succeeded(_ plugin: String) {
        let (hubWasDown, pluginHadTrouble) = reported.withLock { reported in
            (reported.remove("") != nil, reported.remove(plugin) != nil)
        }
        if hubWasDown { log(.info, "sync", "the hub at \(hub) answers again") }
        if pluginHadTrouble { log(.info, plugin, "sync with \(hub) works again") }
    }

    /// `15 min`, `2 h`, `45 s`.
    static func duration(_ seconds: TimeInterval) -> String {
        if seconds >= 3600, seconds.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(seconds / 3600)) h" }
        if seconds >= 60, seconds.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(seconds / 60)) min" }
        return "\(Int(seconds)) s"
    }
}
