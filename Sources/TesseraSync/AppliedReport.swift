/// What a remote batch did, for telling the plugin which of its rows changed.
public struct AppliedReport: Sendable, Hashable {
    /// Changes in the batch.
    public var received = 0
    /// Changes the log already had (delivered before): skipped.
    public var duplicates = 0
    /// Changes new to this replica, now in its log and merkle trie (whether or not they won).
    public var stored = 0
    /// Rows whose content in the plugin's table changed, in table then id order.
    public var rows: [ChangedRow] = []
    /// Cells of keep-conflicts columns that the batch touched and that now show a conflict.
    public var conflictedCells: [CellAddress] = []

    /// An empty report.
    public init() {}
}

/// A row of a plugin's table that a batch changed.
public struct ChangedRow: Sendable, Hashable, Comparable {
    /// How the row changed.
    public enum Change: String, Sendable, Hashable {
        /// Inserted, re-inserted, or some of its cells set.
        case upserted
        /// Deleted.
        case deleted
    }

    /// The table.
    public let table: String
    /// The row's id.
    public let row: String
    /// How it changed.
    public let change: Change

    /// Creates a changed row.
    public init(table: String, row: String, change: Change) {
        self.table = table
        self.row = row
        self.change = change
    }

    public static func < (a: ChangedRow, b: ChangedRow) -> Bool {
        (a.table, a.row) < (b.table, b.row)
    }
}

/// One cell of a synced table.
public struct CellAddress: Sendable, Hashable, Comparable {
    /// The table.
    public let table: String
    /// The row's id.
    public let row: String
    /// The column.
    public let column: String

    /// Creates an address.
    public init(table: String, row: String, column: String) {
        self.table = table
        self.row = row
        self.column = column
    }

    public static func < (a: CellAddress, b: CellAddress) -> Bool {
        (a.table, a.row, a.column) < (b.table, b.row, b.column)
    }
}
