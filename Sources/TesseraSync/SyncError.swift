/// Why the sync store refused a change, a table, or a request. Every case names what is at fault.
public enum SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A table cannot be synced as it is; `reason` says which rule it breaks.
    case tableNotSyncable(table: String, reason: String)
    /// A change or a request names a table that is not synced here.
    case unknownTable(String)
    /// A change names a column the synced table does not have (or cannot be written).
    case unknownColumn(table: String, column: String)
    /// A change is not well formed (`reason` says how), e.g. a cell written in an even causal length.
    case malformedChange(table: String, row: String, reason: String)
    /// A change or write puts a row in a space other than the one it belongs to.
    case spaceMismatch(table: String, row: String, belongsTo: String, given: String)
    /// A patch names a row that does not exist.
    case rowNotFound(table: String, row: String)
    /// A resolution names a cell that has no conflict.
    case noConflict(table: String, row: String, column: String)
    /// Bytes that are not a batch of the wire encoding; `reason` says where they went wrong.
    case malformedEncoding(String)
    /// Two replicas use the same node (a copied database): a received change carries this
    /// replica's node but is not in its log, or differs from the change the log holds under the
    /// same timestamp and column. Left alone, one of the two changes would be silently dropped.
    case sharedNode(node: String, timestamp: String)

    public var description: String {
        switch self {
        case .tableNotSyncable(let table, let reason):
            return "table \(table) cannot be synced: \(reason)"
        case .unknownTable(let table):
            return "table \(table) is not synced here"
        case .unknownColumn(let table, let column):
            return "synced table \(table) has no writable column \(column)"
        case .malformedChange(let table, let row, let reason):
            return "a change to row \(row) of \(table) is malformed: \(reason)"
        case .spaceMismatch(let table, let row, let belongsTo, let given):
            return "row \(row) of \(table) belongs to space \(belongsTo), not \(given); a row never changes space"
        case .rowNotFound(let table, let row):
            return "table \(table) has no row with id \(row); patch changes existing rows only"
        case .noConflict(let table, let row, let column):
            return "cell \(column) of row \(row) of \(table) has no conflict to resolve"
        case .malformedEncoding(let reason):
            return "not a sync batch: \(reason)"
        case .sharedNode(let node, let timestamp):
            return "two replicas use the node \(node) (a copied database?): the change stamped \(timestamp) is not the one this replica knows by that stamp; give one of them a new sync identity"
        }
    }
}
