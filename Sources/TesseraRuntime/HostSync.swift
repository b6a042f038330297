import Foundation
import Synchronization
import TesseraManifest
import TesseraSDK
import TesseraStorage
import TesseraSync

extension PluginHost {
    /// Opens the sync state of a plugin granted `sync` whose manifest lists synced tables, in its
    /// own database, and stamps every later record write to those tables as cell changes in the
    /// write's own transaction. A table that cannot be synced (docs/sync.md: its key, NOT NULL
    /// without default, UNIQUE, foreign keys) stops the plugin with the rule named.
    func enableSync(_ manifest: PluginManifest, storage: SQLitePluginStorage) throws {
        let tables = manifest.syncTables.keys.sorted().map { SyncedTable($0, keepConflicts: Set(manifest.syncTables[$0] ?? [])) }
        let clock = self.clock
        let store: SyncStore
        do { store = try SyncStore(database: storage.database, tables: tables, now: { clock.now() }) } catch {
            throw StartFailure(reason: "sync: \(error)")
        }
        storage.stampWrites { batch, connection in
            do {
                _ = try store.localChanges(from: batch.changes, in: batch.space ?? "personal", on: connection)
            } catch let error as SyncError {
                throw PluginError(.conflict, "sync: \(error); nothing of this batch was written")
            } catch let error as HLCError {
                throw PluginError(.unavailable, "sync: \(error); nothing of this batch was written")
            }
        }
        syncStores.withLock { $0[manifest.id] = store }
    }

    /// The sync state of a plugin that syncs, for the device's sync client and for tests.
    public func syncStore(of pluginID: String) -> SyncStore? {
        syncStores.withLock { $0[pluginID] }
    }
}
