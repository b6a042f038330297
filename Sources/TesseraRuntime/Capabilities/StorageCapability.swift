import Foundation
import TesseraIsolation
import TesseraManifest
import TesseraSDK
import TesseraStorage

/// `storage`: the plugin's own SQLite database (`<data>/plugins/<id>/storage.sqlite`), migrated
/// to the instance's schema, capped at the grant's `quotaMB`.
struct StorageProvider: CapabilityProvider {
    let name = "storage"
    let version = SemanticVersion(1, 0, 0)
    /// Opens a plugin's database (the host's clock stamps its change log).
    let open: @Sendable (_ pluginID: String) throws -> SQLitePluginStorage

    func prepare(_ request: CapabilityRequest) throws -> any CapabilityBinding {
        let resources = request.resources
        let storage = try resources.preopened ?? resources.serving ?? open(request.manifest.id)
        let pending: Int
        do { pending = try storage.pendingMigrations(request.migrations) } catch {
            throw PluginStartFailure(reason: "storage: \(error)")
        }
        resources.storage = storage
        return StorageBinding(storage: storage, migrations: request.migrations, pending: pending,
                              quota: request.grant["quotaMB"]?.integerValue, keepsCopy: request.replacing)
    }
}

/// The database as one generation sees it. Committing applies its pending migrations and quota;
/// in a swap, a copy taken first lets ``undo()`` put the serving generation's database back.
final class StorageBinding: CapabilityBinding, @unchecked Sendable {
    let storage: SQLitePluginStorage
    let migrations: [StorageMigration]
    let pending: Int
    let quota: Int64?
    let keepsCopy: Bool
    private var copy: StorageSnapshot?

    init(storage: SQLitePluginStorage, migrations: [StorageMigration], pending: Int, quota: Int64?, keepsCopy: Bool) {
        self.storage = storage
        self.migrations = migrations
        self.pending = pending
        self.quota = quota
        self.keepsCopy = keepsCopy
    }

    var granted: GrantedCapability? { GrantedCapability(.storage, storage as any PluginStorage) }
    var changesSchema: Bool { pending > 0 }

    func commit() throws {
        do {
            // `prepare` ran migrate's checks already; with nothing pending there is nothing to apply.
            if pending > 0 {
                if keepsCopy { copy = try storage.snapshot() }
                try storage.migrate(migrations)
            }
            if let quota { try storage.limitSize(toMegabytes: Int(quota)) }
        } catch {
            do { try undo() } catch let failed {
                throw PluginStartFailure(reason: "storage: \(error); and \(failed)")
            }
            throw PluginStartFailure(reason: "storage: \(error)")
        }
    }

    /// Puts the database back from the copy taken before the migrations. A copy that could not be
    /// put back is kept (its path is in the error), for the operator to restore by hand.
    func undo() throws {
        guard let copy else { return }
        do { try storage.restore(copy) } catch {
            throw UndoFailure(description: "the database \(storage.path) could not be put back as it was before the migrations (\(error)); "
                + "the copy taken before them is kept at \(copy.path): stop the host and put it in place of the database")
        }
        self.copy = nil
    }

    func committed() {
        copy?.discard()
        copy = nil
    }
}

/// A commit that could not be taken back, in a sentence that says what is left and what to do.
struct UndoFailure: Error, CustomStringConvertible {
    let description: String
}

extension StorageProvider {
    /// The process tier's storage calls (``StorageMethods``), on the plugin's own database.
    var childCalls: [ChildCallHandler] {
        [ChildCallHandler(StorageMethods.write, returningNothing: { call in
            try await call.context.capability(.storage).write(try WriteBatch(wire: call.params))
         }),
         ChildCallHandler(StorageMethods.query) { call in
            let parameters = try (call.params["parameters"]?.arrayValue ?? []).map(SQLValue.init(wire:))
            let rows = try await call.context.capability(.storage).query(call.params["sql"]?.stringValue ?? "", parameters)
            return .array(rows.map(\.wire))
         }]
    }
}
