/// A table of a plugin's database that replicates, as the plugin's manifest will declare it.
///
/// Proposed manifest shape (see docs/sync.md): `"sync": {"tables": {"entries": {"keepConflicts": ["note"]}}}`.
public struct SyncedTable: Sendable, Hashable {
    /// The table's name, as declared in the schema.
    public let name: String
    /// Text columns whose losing value is kept as a visible conflict instead of dropped
    /// (free-text fields such as a diary note, where silently losing a parent's words would hurt).
    public let keepConflicts: Set<String>

    /// A synced table; `keepConflicts` names text columns that keep conflicts.
    public init(_ name: String, keepConflicts: Set<String> = []) {
        self.name = name
        self.keepConflicts = keepConflicts
    }
}
