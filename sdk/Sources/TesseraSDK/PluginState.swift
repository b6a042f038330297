/// A plugin's in-memory state as versioned bytes, carried from the running generation to the new
/// one when the host swaps the plugin's code while it runs.
///
/// Durable data never moves in a swap: it stays in the host's storage. This is for what a plugin
/// keeps in memory only (caches it would rather not rebuild, counters, a session). `schema` is the
/// manifest's `state.schema` of the generation that exported it; the importing generation declares
/// the schemas it can read in `state.migratesFrom` and converts them.
///
/// ```swift
/// func exportState() async throws -> PluginState? {
///     try PluginState(schema: 2, encoding: counters.snapshot())
/// }
/// func importState(_ state: PluginState) async throws {
///     switch state.schema {
///     case 2: counters.restore(try state.decode(as: Snapshot.self))
///     case 1: counters.restore(Snapshot(migrating: try state.decode(as: SnapshotV1.self)))
///     default: throw PluginError(.invalidInput, "cannot read state schema \(state.schema)")
///     }
/// }
/// ```
public struct PluginState: Sendable, Hashable {
    /// The state's schema version (the exporting generation's manifest `state.schema`).
    public var schema: Int
    /// The state itself, in whatever encoding the plugin chose.
    public var bytes: [UInt8]

    /// Creates a state from bytes.
    public init(schema: Int, bytes: [UInt8]) {
        self.schema = schema
        self.bytes = bytes
    }

    /// Creates a state holding `value` as JSON.
    public init<Value: Encodable>(schema: Int, encoding value: Value) throws {
        self.schema = schema
        self.bytes = Array(try JSONValue(encoding: value).serialized().utf8)
    }

    /// Decodes a state made with ``init(schema:encoding:)``.
    public func decode<Value: Decodable>(as type: Value.Type) throws -> Value {
        try JSONValue(parsing: bytes).decode(as: type)
    }
}
