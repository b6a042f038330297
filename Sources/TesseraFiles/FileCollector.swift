import Foundation
import Synchronization
import TesseraClock

/// Removes files no record links to, on the host's clock (it is ``DueWork`` for the
/// ``TimerScheduler``), every ``every`` seconds. Links to records that were deleted are dropped
/// first, so deleting the last record that refers to a file lets it go.
///
/// A file is a candidate when it has no link and was put more than ``grace`` ago: a file just put
/// is given time to be linked to the record that will refer to it. A collection first scans for
/// candidates, then removes each one only if, checked again under the store's lock, it still has
/// no link and was not put again since: a link (or a put) written after the scan started keeps
/// its file (docs/files.md, "Collection").
public final class FileCollector: DueWork {
    public let name = "files"
    let store: FileStore
    let clock: any ClockSource
    /// Seconds between collections.
    public let every: TimeInterval
    /// How long a file put but not linked is kept.
    public let grace: TimeInterval
    /// Whether a plugin's record (table, id) exists; `nil` when it cannot tell (no storage, no
    /// such table). A link to a record that is gone is removed before the scan.
    let recordExists: (@Sendable (_ plugin: String, _ table: String, _ id: String) -> Bool?)?
    private let next: Mutex<Date?> = Mutex(nil)

    /// Defaults: a collection every hour; a day's grace for a file not yet linked.
    public init(store: FileStore, clock: any ClockSource, every: TimeInterval = 3600, grace: TimeInterval = 86_400,
                recordExists: (@Sendable (_ plugin: String, _ table: String, _ id: String) -> Bool?)? = nil) {
        self.store = store
        self.clock = clock
        self.every = every
        self.grace = grace
        self.recordExists = recordExists
    }

    public func nextDue() throws -> Date? {
        let now = clock.now()
        return next.withLock { next in
            if next == nil { next = now.addingTimeInterval(every) }
            return next
        }
    }

    public func runDue(now: Date) async throws {
        defer { next.withLock { $0 = now.addingTimeInterval(every) } }
        try await collect(now: now)
    }

    /// One collection at `now`; the files removed, as `plugin/address`. `afterScan` runs between
    /// the scan and the removals (tests use it to write a link in that window).
    @discardableResult
    public func collect(now: Date, afterScan: (@Sendable ([String]) async throws -> Void)? = nil) async throws -> [String] {
        let cutoff = now.addingTimeInterval(-grace)
        if let recordExists { _ = try store.pruneLinks(exists: recordExists) }
        let candidates = try store.unreferenced(before: cutoff)
        try await afterScan?(candidates.map { "\($0.plugin)/\($0.address)" })
        var removed: [String] = []
        for candidate in candidates where try store.collect(plugin: candidate.plugin, address: candidate.address, before: cutoff) {
            removed.append("\(candidate.plugin)/\(candidate.address)")
        }
        return removed
    }
}
