/// Rows of a plugin's synced tables that changed because of changes from elsewhere — the person's
/// other devices, or other members of a shared space — after a sync round applied them.
///
/// The rows are already in the plugin's tables when its handler runs; the plugin reads them with
/// SQL as usual, and reschedules or recomputes what depends on them (a reminder for a diary entry
/// written on the other parent's phone).
public struct RemoteChanges: Sendable, Hashable {
    /// One changed row.
    public struct Row: Sendable, Hashable {
        /// The table.
        public let table: String
        /// The row's `id`.
        public let id: String
        /// Whether the row is gone (deleted elsewhere) rather than inserted or updated.
        public let deleted: Bool

        /// Creates a row reference.
        public init(table: String, id: String, deleted: Bool) {
            self.table = table
            self.id = id
            self.deleted = deleted
        }
    }

    /// The rows that changed, in table and id order.
    public let rows: [Row]

    /// A change of this device's that the hub refused, and that was taken back (SDK 1.3).
    ///
    /// The row already shows what the space holds without it (it is also in ``RemoteChanges/rows``);
    /// tell the person why, e.g. "you can only view this space".
    public struct Refusal: Sendable, Hashable {
        /// The table.
        public let table: String
        /// The row's `id`.
        public let id: String
        /// The column, or "" for the row's creation or deletion.
        public let column: String
        /// The hub's reason code, e.g. `read_only` (a viewer's write).
        public let reason: String

        /// Creates a refusal.
        public init(table: String, id: String, column: String, reason: String) {
            self.table = table
            self.id = id
            self.column = column
            self.reason = reason
        }
    }

    /// The refused changes of this device that were taken back, in table, id and column order
    /// (SDK 1.3; empty from older hosts).
    public let refused: [Refusal]

    /// Shared spaces this device no longer belongs to (left, removed by an owner, or deleted),
    /// whose rows were removed (SDK 1.3). Their rows are in ``RemoteChanges/rows`` as deleted.
    public let droppedSpaces: [String]

    /// Creates a set of changes.
    public init(rows: [Row]) { self.init(rows: rows, refused: [], droppedSpaces: []) }

    /// Creates a set of changes with refusals and dropped spaces (SDK 1.3).
    public init(rows: [Row], refused: [Refusal], droppedSpaces: [String]) {
        self.rows = rows
        self.refused = refused
        self.droppedSpaces = droppedSpaces
    }
}

/// Handles the rows that sync changed; see ``PluginContext/onRemoteChanges(_:)``.
public typealias RemoteChangesHandler = @Sendable (RemoteChanges) async throws -> Void
