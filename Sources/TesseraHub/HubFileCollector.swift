import Foundation
import Synchronization
import TesseraClock

/// Removes the hub's files that no synced record refers to any more, on the hub's clock (``DueWork``
/// for the host's timer loop), every ``every`` seconds (docs/hub.md, "Files").
///
/// A file is a candidate when no record of a space that still exists refers to it and it was
/// uploaded more than ``grace`` ago (a device uploads a file's bytes just before it pushes the
/// record that refers to it). As on the host (docs/files.md, "Collection"), a collection scans
/// first, then removes each candidate only if, checked again under the lock every push that
/// writes a reference takes, it is still unreferenced and was not uploaded again: a record pushed
/// after the scan keeps its file. Uploads left unfinished for longer than the grace go too.
public final class HubFileCollector: DueWork {
    public let name = "hub-files"
    let files: HubFiles
    let clock: any ClockSource
    /// Seconds between collections.
    public let every: TimeInterval
    /// How long a file no record refers to is kept after its upload, and an unfinished upload.
    public let grace: TimeInterval
    private let next: Mutex<Date?> = Mutex(nil)

    /// Defaults: a collection every hour; a day's grace.
    public init(files: HubFiles, clock: any ClockSource, every: TimeInterval = 3600, grace: TimeInterval = 86_400) {
        self.files = files
        self.clock = clock
        self.every = every
        self.grace = grace
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

    /// One collection at `now`: the addresses removed. `afterScan` runs between the scan and the
    /// removals (tests push a record that refers to a candidate in that window).
    @discardableResult
    public func collect(now: Date, afterScan: (@Sendable ([String]) async throws -> Void)? = nil) async throws -> [String] {
        let cutoff = Int64((now.timeIntervalSince1970 - grace) * 1000)
        let store = files.store
        let candidates = try await store.transaction { connection in
            // References in deleted spaces refer to nothing any more (their changes are gone too).
            try await connection.execute("DELETE FROM hub_file_refs WHERE space IN (SELECT id FROM hub_spaces WHERE deleted = 1)", [])
            return try await connection.fetchAll("""
                SELECT address FROM hub_files f WHERE created_ms < ?
                AND NOT EXISTS (SELECT 1 FROM hub_file_refs r WHERE r.address = f.address) ORDER BY address
                """, [.integer(cutoff)]).compactMap { $0[0].text }
        }
        try await afterScan?(candidates)
        var removed: [String] = []
        for address in candidates where try await remove(address, before: cutoff) { removed.append(address) }
        try await dropStaleUploads(before: cutoff)
        return removed
    }

    /// Removes one candidate if, under the references' lock, it is still unreferenced and still
    /// uploaded before `cutoff`; its bytes go in the same transaction, so the file and its row
    /// never part.
    private func remove(_ address: String, before cutoff: Int64) async throws -> Bool {
        let blobs = files.blobs
        return try await files.store.transaction { connection in
            try await connection.lock(HubFileReferences.lock)
            let deleted = try await connection.execute("""
                DELETE FROM hub_files WHERE address = ? AND created_ms < ?
                AND NOT EXISTS (SELECT 1 FROM hub_file_refs r WHERE r.address = hub_files.address)
                """, [.text(address), .integer(cutoff)])
            guard deleted > 0 else { return false }
            try await connection.execute("DELETE FROM hub_file_holders WHERE address = ?", [.text(address)])
            blobs.remove(address)
            return true
        }
    }

    /// Uploads started before `cutoff` and never finished: their partial bytes and rows.
    private func dropStaleUploads(before cutoff: Int64) async throws {
        let blobs = files.blobs
        try await files.store.transaction { connection in
            let stale = try await connection.fetchAll("SELECT address, person FROM hub_file_uploads WHERE started_ms < ?", [.integer(cutoff)])
            for row in stale {
                let (address, person) = (row[0].text ?? "", row[1].text ?? "")
                blobs.removePartial(address, person: person)
                try await connection.execute("DELETE FROM hub_file_uploads WHERE address = ? AND person = ?", [.text(address), .text(person)])
            }
        }
    }
}
