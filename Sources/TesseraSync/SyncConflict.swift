import TesseraSDK

/// A cell of a keep-conflicts column whose writers disagreed: the value it shows, and the values
/// written concurrently that lost by last-writer-wins but are kept rather than dropped.
///
/// Every replica that has received the same changes lists the same conflicts. A conflict lasts
/// until a write supersedes its values: ``SyncStore/resolveConflict(table:row:column:value:)``
/// writes the chosen (or merged) value as a new change that supersedes all of them.
public struct SyncConflict: Sendable, Hashable {
    /// The table.
    public let table: String
    /// The row's id.
    public let row: String
    /// The column.
    public let column: String
    /// The value the cell holds (the last writer's).
    public let current: VersionedValue
    /// The values that lost, oldest first.
    public let others: [VersionedValue]

    /// Creates a conflict.
    public init(table: String, row: String, column: String, current: VersionedValue, others: [VersionedValue]) {
        self.table = table
        self.row = row
        self.column = column
        self.current = current
        self.others = others
    }
}

/// A value and the timestamp of the write that made it.
public struct VersionedValue: Sendable, Hashable {
    /// The value.
    public let value: SQLValue
    /// When (and on which node) it was written.
    public let timestamp: HLCTimestamp

    /// Creates a versioned value.
    public init(value: SQLValue, timestamp: HLCTimestamp) {
        self.value = value
        self.timestamp = timestamp
    }
}
