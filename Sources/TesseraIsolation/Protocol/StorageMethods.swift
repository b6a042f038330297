import TesseraSDK

/// `storage`: the plugin's own database, with the plugin's SQL rules and quota checked by the host.
public enum StorageMethods {
    public static let write = CapabilityMethodSpec(
        "storage.write", capability: "storage", "Applies a batch of puts, patches and deletes in one transaction.",
        parameters: WireSchema.object(["changes": WireSchema.array(WireSchema.value("a put, patch or delete", required: ["op", "table", "id"]))],
                                      required: ["changes"], of: "WriteBatch"),
        result: WireSchema.null)
    public static let query = CapabilityMethodSpec(
        "storage.query", capability: "storage", "Runs one read-only statement with its parameters and returns the rows.",
        parameters: WireSchema.object(["sql": WireSchema.string, "parameters": WireSchema.array(WireSchema.sqlValue)], required: ["sql"]),
        result: WireSchema.array(WireSchema.object(["c": WireSchema.array(WireSchema.string), "v": WireSchema.array(WireSchema.sqlValue)],
                                                   required: ["c", "v"], of: "Row")))

    public static let all = [write, query]
}

/// ``PluginStorage`` in the process tier.
struct StorageProxy: PluginStorage {
    let peer: PeerConnection
    func write(_ batch: WriteBatch) async throws {
        _ = try await peer.call(StorageMethods.write, batch.wire)
    }
    func query(_ sql: String, _ parameters: [SQLValue]) async throws -> [Row] {
        let rows = try await peer.call(StorageMethods.query, ["sql": .string(sql), "parameters": .array(parameters.map(\.wire))])
        return try (rows.arrayValue ?? []).map(Row.init(wire:))
    }
}
