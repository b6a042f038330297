import TesseraSDK
import TesseraSync

/// The `sync` capability a plugin sees: its store's kept conflicts, listed and resolved. A
/// resolution is a local write, so the next round follows soon after it, as for any other.
struct PluginSyncChannel: PluginSync {
    /// The plugin's sync state as registered now (it is registered when the generation commits).
    let store: @Sendable () -> SyncStore?
    let changed: @Sendable () -> Void
    /// The plugin's shared spaces at the hub.
    let spaces: any PluginSpaces
    /// Mail through the hub for the device's person (SDK 1.6).
    let mail: PluginHubMail

    private func registered() throws -> SyncStore {
        guard let store = store() else { throw PluginError(.unavailable, "sync is not enabled for this plugin yet") }
        return store
    }

    func conflicts() async throws -> [CellConflict] {
        try registered().conflicts().map {
            CellConflict(table: $0.table, id: $0.row, column: $0.column, current: $0.current.value, others: $0.others.map(\.value))
        }
    }

    func resolveConflict(table: String, id: String, column: String, value: SQLValue) async throws {
        do {
            try registered().resolveConflict(table: table, row: id, column: column, value: value)
        } catch SyncError.noConflict {
            throw PluginError(.notFound, "\(table)/\(id).\(column) has no conflict (resolved already?)", field: "$.id")
        }
        changed()
    }

    func sendMail(_ message: HubMailMessage) async throws -> HubMailReceipt {
        try await mail.send(message)
    }
}
