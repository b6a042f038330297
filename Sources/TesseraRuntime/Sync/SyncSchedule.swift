import Foundation
import Synchronization
import TesseraClock

/// When each syncing plugin's next round is due: soon after a local change (a short pause lets a
/// burst of writes go up together), every `every` seconds otherwise, and after a failure again in
/// a minute, doubling up to `every`. Runs on the host's clock with the other due work, so a virtual
/// clock drives it deterministically in tests.
final class SyncSchedule: DueWork, Sendable {
    let name = "sync"
    /// Seconds between rounds when nothing changes locally.
    let every: TimeInterval
    /// The pause after a local change before its round.
    static let afterChange: TimeInterval = 2
    private let due = Mutex<[String: Date]>([:])
    private let failures = Mutex<[String: Int]>([:])
    private let round: @Sendable (String) async -> Bool

    /// `round` runs one plugin's round and says whether it succeeded.
    init(every: TimeInterval, round: @escaping @Sendable (String) async -> Bool) {
        self.every = every
        self.round = round
    }

    /// Starts scheduling `plugin`, its first round at `first`.
    func add(_ plugin: String, first: Date) {
        due.withLock { $0[plugin] = min($0[plugin] ?? first, first) }
    }

    /// A local change in `plugin`: its round moves to `now + afterChange` if that is sooner.
    func changed(_ plugin: String, now: Date) {
        due.withLock { due in
            guard let current = due[plugin] else { return }
            due[plugin] = min(current, now.addingTimeInterval(Self.afterChange))
        }
    }

    /// Another device's change is at the hub: `plugin`'s round is due now. (No pause: the change
    /// is committed there already, and a relayed notification waits behind this round.)
    func changedAtHub(_ plugin: String, now: Date) {
        due.withLock { due in
            guard let current = due[plugin] else { return }
            due[plugin] = min(current, now)
        }
    }

    func nextDue() throws -> Date? { due.withLock { $0.values.min() } }

    /// When `plugin`'s next round is due, if it is scheduled.
    func due(of plugin: String) -> Date? { due.withLock { $0[plugin] } }

    func runDue(now: Date) async throws {
        let ready = due.withLock { $0.filter { $0.value <= now }.keys.sorted() }
        for plugin in ready {
            let succeeded = await round(plugin)
            let failed = failures.withLock { failures -> Int in
                failures[plugin] = succeeded ? 0 : (failures[plugin] ?? 0) + 1
                return failures[plugin]!
            }
            let wait = failed == 0 ? every : min(every, 60 * pow(2, Double(failed - 1)))
            due.withLock { $0[plugin] = now.addingTimeInterval(wait) }
        }
    }
}

/// A weak way back to the host from work the host owns (the sync schedule's rounds), so neither
/// keeps the other alive. Set once, at the end of the host's `init`, before any round can run.
final class HostBox: @unchecked Sendable {
    weak var host: PluginHost?
}
