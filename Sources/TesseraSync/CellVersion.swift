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
    /// The write's timestamp.
    let timestamp: HLCTimestamp

    static func < (a: CellVersion, b: CellVersion) -> Bool {
        a.causalLength != b.causalLength ? a.causalLength < b.causalLength : a.timestamp < b.timestamp
    }
}
