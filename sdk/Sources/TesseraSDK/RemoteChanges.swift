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

    /// Creates a set of changes.
    public init(rows: [Row]) { self.rows = rows }
}

/// Handles the rows that sync changed; see ``PluginContext/onRemoteChanges(_:)``.
public typealias RemoteChangesHandler = @Sendable (RemoteChanges) async throws -> Void
