import TesseraSDK

/// One replicated change: a write of one cell, or a change of a row's life (delete or re-insert).
///
/// The unit is the cell (space, table, row, column) as in Actual Budget, plus cr-sqlite's
/// **causal length** per row for deletes:
/// - A row's causal length counts the row's lives: odd means alive, even means deleted. An insert
///   of an absent row moves it to the next odd number, a delete to the next even one; the higher
///   causal length wins, so a delete and a later re-insert resolve the same way in any order.
/// - A cell write carries the causal length of the life it was made in. Cells compare by
///   `(causalLength, timestamp)`: a cell written in a newer life of the row beats any cell of an
///   older life, and within one life the later timestamp wins (last writer wins).
/// - Every change carries its row's space (whose members may see it).
///
/// All changes made by one record change (a put's cells, its re-insert) share one timestamp, so
/// a change is identified by ``timestamp`` and ``column`` together (``ChangeID``).
public struct SyncChange: Sendable, Hashable {
    /// The space the row belongs to.
    public var space: String
    /// The table, as declared in the plugin's schema.
    public var table: String
    /// The row's id.
    public var row: String
    /// The life of the row: for ``Kind-swift.enum/existence`` the causal length the row moved to,
    /// for a cell the causal length of the life it was written in (always odd).
    public var causalLength: Int64
    /// When and where the change was made.
    public var timestamp: HLCTimestamp
    /// What changed.
    public var kind: Kind

    /// What a change does.
    public enum Kind: Sendable, Hashable {
        /// The row's causal length became the change's ``SyncChange/causalLength``: odd for an
        /// insert (or re-insert), even for a delete.
        case existence
        /// A cell was written.
        ///
        /// `supersedes` is used only for columns that keep conflicts: the timestamps of the values
        /// this write replaces, as the writer saw them (the current value for an ordinary write;
        /// the current value and every conflicting one for a resolution). A value that no write
        /// supersedes and that did not win is kept as a conflict. Empty for other columns.
        case cell(column: String, value: SQLValue, supersedes: [HLCTimestamp])
    }

    /// Creates a change.
    public init(space: String, table: String, row: String, causalLength: Int64, timestamp: HLCTimestamp, kind: Kind) {
        self.space = space
        self.table = table
        self.row = row
        self.causalLength = causalLength
        self.timestamp = timestamp
        self.kind = kind
    }

    /// The column written, or `""` for an existence change (the store refuses synced tables with
    /// a column of that name, so the two never clash).
    public var column: String {
        if case .cell(let column, _, _) = kind { return column }
        return ""
    }

    /// The value written, for a cell.
    public var value: SQLValue? {
        if case .cell(_, let value, _) = kind { return value }
        return nil
    }

    /// Whether an existence change leaves the row alive (odd causal length).
    public var isAlive: Bool { CausalLength.isAlive(causalLength) }

    /// What identifies the change: no two different changes share it.
    public var id: ChangeID { ChangeID(timestamp: timestamp, column: column) }

    /// The change's leaf hash in the merkle trie: MurmurHash3 of the timestamp's text followed by
    /// the column (the timestamp text has a fixed length, so the pair is unambiguous). For an
    /// existence change that is the hash of the timestamp alone, Actual's leaf hash.
    public var merkleHash: UInt32 {
        Murmur3.hash32(Array(timestamp.text.utf8) + Array(column.utf8))
    }
}

/// What identifies a change: its timestamp (one per record change) and its column (`""` for an
/// existence change).
public struct ChangeID: Sendable, Hashable, Comparable {
    /// The change's timestamp.
    public let timestamp: HLCTimestamp
    /// The column, or `""`.
    public let column: String

    /// Creates an id.
    public init(timestamp: HLCTimestamp, column: String) {
        self.timestamp = timestamp
        self.column = column
    }

    /// Timestamp order, then column: the order of the message log.
    public static func < (a: ChangeID, b: ChangeID) -> Bool {
        a.timestamp != b.timestamp ? a.timestamp < b.timestamp : a.column.utf8.lexicographicallyPrecedes(b.column.utf8)
    }
}

/// The arithmetic of causal lengths (cr-sqlite's causal-length set).
public enum CausalLength {
    /// Whether a row with causal length `length` is alive: odd lengths are lives, even ones deaths.
    /// 0 is a row never seen.
    public static func isAlive(_ length: Int64) -> Bool { length % 2 == 1 }

    /// The causal length after inserting a row now at `length`: the next odd number (unchanged if
    /// already alive).
    public static func inserted(_ length: Int64) -> Int64 { isAlive(length) ? length : length + 1 }

    /// The causal length after deleting a row now at `length`: the next even number (unchanged if
    /// already deleted or never seen).
    public static func deleted(_ length: Int64) -> Int64 { isAlive(length) ? length + 1 : length }
}
