/// Which write a cell holds: the life of the row it was written in, and its timestamp.
///
/// The order of these is the whole conflict rule for cells: a write in a newer life of the row
/// (higher causal length) wins over any write of an older life; within a life the later timestamp
/// wins. Timestamps of different changes never tie (node ids differ, and one node never repeats a
/// reading), so this is a total order on writes, and "keep the greatest" is commutative, associative
/// and idempotent: any delivery order, with duplicates, ends with the same winner.
struct CellVersion: Sendable, Hashable, Comparable {
    /// The causal length of the row when the cell was written (odd).
    let causalLength: Int64
    /// The write's timestamp as its collatable text (``HLCTimestamp/text``). Kept as text because
    /// the byte order of these texts is the timestamps' order: a winner loaded from
    /// `_tessera_sync_cells` is compared as stored, without parsing it (a parse per patched row was
    /// a sixth of a remote patch's cost).
    let timestampText: String

    /// The write's timestamp, parsed from its text.
    var timestamp: HLCTimestamp {
        get throws { try HLCTimestamp(parsing: timestampText) }
    }

    static func < (a: CellVersion, b: CellVersion) -> Bool {
        a.causalLength != b.causalLength ? a.causalLength < b.causalLength : a.timestampText < b.timestampText
    }
}
