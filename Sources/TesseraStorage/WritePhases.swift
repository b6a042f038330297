import Foundation

/// Where record-API writes spent their time, summed over batches, in nanoseconds of the monotonic
/// clock: what ``SQLitePluginStorage/writeBlocking(_:phases:)`` adds up, for the benchmark that
/// sets the record API beside raw SQLite.
public struct WritePhases: Sendable {
    /// Validating the batch and resolving names (before the transaction), and the log's time text.
    public var validate: UInt64 = 0
    /// Writing the plugin's rows.
    public var rows: UInt64 = 0
    /// Writing the change-log rows.
    public var log: UInt64 = 0
    /// Stamping sync changes (synced tables only).
    public var stamp: UInt64 = 0
    /// The rest of the transaction: `BEGIN`, the batch's events, `COMMIT` and its fsync.
    public var commit: UInt64 = 0
    /// The batches written.
    public var batches = 0

    /// Nothing yet.
    public init() {}
}

/// Laps of the monotonic clock, read only when `running` (the untimed path reads no clock).
struct PhaseClock {
    private let running: Bool
    private var last: UInt64

    init(running: Bool) {
        self.running = running
        last = running ? DispatchTime.now().uptimeNanoseconds : 0
    }

    /// Adds the time since the last lap (or the start) to `total`; returns it.
    @discardableResult
    mutating func lap(into total: inout UInt64) -> UInt64 {
        guard running else { return 0 }
        let now = DispatchTime.now().uptimeNanoseconds
        let elapsed = now &- last
        last = now
        total &+= elapsed
        return elapsed
    }
}
