import Foundation
import Synchronization
import TesseraClock
import TesseraIsolation
import TesseraManifest
import TesseraSDK
import TesseraStorage
import TesseraSync
import TesseraSyncClient

/// `sync`: the plugin's `sync.tables` replicate through the deployment's hub. Committing opens the
/// sync state in the plugin's database and registers it: from then on every record write to those
/// tables is stamped as cell changes in the write's own transaction, and rounds are scheduled.
/// The plugin's object lists and resolves kept conflicts.
struct SyncProvider: CapabilityProvider {
    let name = "sync"
    let version = SemanticVersion(1, 0, 0)
    let stores: SyncStores
    let clock: any ClockSource
    /// When each plugin's next round is due, if the deployment names a hub.
    let schedule: SyncSchedule?
    /// Brings the timer loop round, so a new schedule is seen.
    let wake: @Sendable () -> Void
    /// The hub and this device's token, for a plugin's space calls.
    let hubAccess: @Sendable () throws -> HubAccess
    /// Tells a plugin that just became active what rounds changed while it was not.
    let tellUntold: @Sendable (String) async -> Void
    /// The hub's name and the device's sync state, where per-plugin roles are kept; `nil` without a hub.
    let roleBook: @Sendable () throws -> (hub: String, state: SyncPeerState)?

    func prepare(_ request: CapabilityRequest) throws -> any CapabilityBinding {
        let manifest = request.manifest
        guard let storage = request.resources.storage, !manifest.syncTables.isEmpty else { return ObjectBinding(granted: nil) }
        let tables = manifest.syncTables.keys.sorted().map { SyncedTable($0, keepConflicts: Set(manifest.syncTables[$0] ?? [])) }
        let id = manifest.id, stores = self.stores, schedule = self.schedule, clock = self.clock
        let wake = self.wake
        let roundSoon: @Sendable () -> Void = { schedule?.changed(id, now: clock.now()); wake() }
        let roles = manifest.syncRoles.isEmpty ? nil : SyncRoleDeclaration.json(manifest.syncRoles)
        let spaces = PluginSpacesChannel(pluginID: id, roles: roles, access: hubAccess, roundSoon: roundSoon)
        let channel = PluginSyncChannel(store: { stores[id] }, changed: { schedule?.changed(id, now: clock.now()) }, spaces: spaces,
                                        mail: PluginHubMail(pluginID: id, access: hubAccess))
        return SyncBinding(provider: self, pluginID: id, storage: storage, tables: tables, channel: channel, roles: roles)
    }
}

/// The generation's sync state, registered at commit.
final class SyncBinding: CapabilityBinding, @unchecked Sendable {
    let provider: SyncProvider
    let pluginID: String
    let storage: SQLitePluginStorage
    let tables: [SyncedTable]
    let channel: PluginSyncChannel
    /// The manifest's `sync.roles` as JSON, if it declares any.
    let roles: JSONValue?
    private var previous: SyncStore?
    private var previousRoles: JSONValue?

    init(provider: SyncProvider, pluginID: String, storage: SQLitePluginStorage, tables: [SyncedTable], channel: PluginSyncChannel,
         roles: JSONValue?) {
        self.provider = provider
        self.pluginID = pluginID
        self.storage = storage
        self.tables = tables
        self.channel = channel
        self.roles = roles
    }

    var granted: GrantedCapability? { GrantedCapability(.sync, channel as any PluginSync) }

    /// A table that cannot be synced (docs/sync.md: its key, NOT NULL without default, UNIQUE,
    /// foreign keys) refuses the generation with the rule named.
    func commit() throws {
        let clock = provider.clock
        let store: SyncStore
        do { store = try SyncStore(database: storage.database, tables: tables, now: { clock.now() }) } catch {
            throw PluginStartFailure(reason: "sync: \(error)")
        }
        previous = provider.stores.replace(pluginID, with: store)
        previousRoles = provider.stores.replaceRoles(pluginID, with: roles)
        stampWrites()
        provider.schedule?.add(pluginID, first: clock.now())
        provider.wake()
    }

    func undo() {
        provider.stores.replace(pluginID, with: previous)
        provider.stores.replaceRoles(pluginID, with: previousRoles)
    }

    /// A plugin that starts is told what rounds changed while it was not active; one swapped in
    /// replaces an active generation, which was told everything.
    func activate(_ activation: Activation) async {
        if !activation.replacing { await provider.tellUntold(pluginID) }
    }

    /// Every write to the plugin's database is stamped by the store registered when it runs.
    private func stampWrites() {
        let stores = provider.stores, schedule = provider.schedule, clock = provider.clock, id = pluginID
        let roleBook = roles == nil ? nil : provider.roleBook
        storage.stampWrites { batch, connection in
            guard let store = stores[id] else { return }
            do {
                let stamped = try store.localChanges(from: batch.changes, in: batch.space ?? "personal", on: connection)
                // Per-plugin roles: refused here, inside the write's transaction, nothing is written.
                if batch.space != nil, let roleBook {
                    let book: (hub: String, state: SyncPeerState)?
                    do { book = try roleBook() } catch {
                        throw PluginError(.unavailable, "sync: this person's roles in the space could not be read (\(error)); nothing of this batch was written")
                    }
                    if let book { try SpaceRoleGuard(hub: book.hub, plugin: id, state: book.state).check(stamped) }
                }
                if !stamped.isEmpty, let schedule { schedule.changed(id, now: clock.now()) }
            } catch let error as SyncError {
                throw PluginError(.conflict, "sync: \(error); nothing of this batch was written")
            } catch let error as HLCError {
                throw PluginError(.unavailable, "sync: \(error); nothing of this batch was written")
            }
        }
    }
}

/// The sync state of each plugin that syncs, by plugin id.
final class SyncStores: Sendable {
    private let stores = Mutex<[String: SyncStore]>([:])
    /// Each plugin's `sync.roles` as JSON, for registering its spaces' rules at the hub.
    private let roleRules = Mutex<[String: JSONValue]>([:])

    /// The `sync.roles` of `id`, if its manifest declares any.
    func roles(of id: String) -> JSONValue? { roleRules.withLock { $0[id] } }

    /// Registers `roles` for `id`; the ones it replaced.
    @discardableResult
    func replaceRoles(_ id: String, with roles: JSONValue?) -> JSONValue? {
        roleRules.withLock { all in
            defer { all[id] = roles }
            return all[id]
        }
    }

    subscript(id: String) -> SyncStore? { stores.withLock { $0[id] } }

    /// Registers `store` for `id` (removes the entry for `nil`); the one it replaced.
    @discardableResult
    func replace(_ id: String, with store: SyncStore?) -> SyncStore? {
        stores.withLock { all in
            defer { all[id] = store }
            return all[id]
        }
    }

    /// The plugins that sync, sorted.
    var plugins: [String] { stores.withLock { $0.keys.sorted() } }
}

extension SyncProvider {
    /// The process tier's sync calls (``SyncMethods``) and spaces calls (``SpacesMethods``),
    /// answered by the sync capability built for this plugin (its tables, its spaces, the hub's
    /// role checks).
    var childCalls: [ChildCallHandler] {
        [ChildCallHandler(SyncMethods.conflicts) { call in .array(try await call.context.capability(.sync).conflicts().map(\.wire)) },
         ChildCallHandler(SyncMethods.resolveConflict, returningNothing: { call in
            let p = call.params
            try await call.context.capability(.sync).resolveConflict(table: try p.wireField("table"), id: try p.wireField("id"),
                                                                      column: try p.wireField("column"), value: try SQLValue(wire: p["value"] ?? .null))
         }),
         ChildCallHandler(SyncMethods.mail) { call in
            try await call.context.capability(.sync).sendMail(try HubMailMessage(wire: call.params)).wire
         }] + Self.spacesCalls
    }

    private static func spaces(_ call: ChildCall) throws -> any PluginSpaces { try call.context.capability(.sync).spaces }
    private static func role(_ p: JSONValue, _ key: String = "role") throws -> SpaceMemberRole { SpaceMemberRole(rawValue: try p.wireField(key)) }

    private static let spacesCalls: [ChildCallHandler] = [
        ChildCallHandler(SpacesMethods.create) { call in try await spaces(call).create(name: try call.params.wireField("name")).wire },
        ChildCallHandler(SpacesMethods.list) { call in .array(try await spaces(call).list().map(\.wire)) },
        ChildCallHandler(SpacesMethods.invite) { call in
            let p = call.params
            return try await spaces(call).invite(to: try p.wireField("space"), role: try role(p), pluginRole: p["pluginRole"]?.stringValue,
                                                 person: p["person"]?.stringValue, expiresIn: p["expiresIn"]?.integerValue.map { Int($0) }).wire
        },
        ChildCallHandler(SpacesMethods.members) { call in try await spaces(call).members(of: try call.params.wireField("space")).wire },
        ChildCallHandler(SpacesMethods.cancelInvitation, returningNothing: { call in
            try await spaces(call).cancelInvitation(try call.params.wireField("invitation"), in: try call.params.wireField("space"))
        }),
        ChildCallHandler(SpacesMethods.invitationsForMe) { call in .array(try await spaces(call).invitationsForMe().map(\.wire)) },
        ChildCallHandler(SpacesMethods.accept) { call in
            if let code = call.params["code"]?.stringValue { return try await spaces(call).accept(code: code).wire }
            return try await spaces(call).accept(invitationID: try call.params.wireField("invitation")).wire
        },
        ChildCallHandler(SpacesMethods.decline, returningNothing: { call in
            try await spaces(call).decline(invitationID: try call.params.wireField("invitation"))
        }),
        ChildCallHandler(SpacesMethods.setRole, returningNothing: { call in
            let p = call.params
            try await spaces(call).setRole(try role(p), pluginRole: p["pluginRole"]?.stringValue, of: try p.wireField("person"),
                                           in: try p.wireField("space"))
        }),
        ChildCallHandler(SpacesMethods.revoke, returningNothing: { call in
            try await spaces(call).revoke(try call.params.wireField("person"), from: try call.params.wireField("space"))
        }),
        ChildCallHandler(SpacesMethods.leave, returningNothing: { call in try await spaces(call).leave(try call.params.wireField("space")) }),
        ChildCallHandler(SpacesMethods.delete, returningNothing: { call in try await spaces(call).delete(try call.params.wireField("space")) }),
        ChildCallHandler(SpacesMethods.currentPerson) { call in try await spaces(call).currentPerson()?.wire ?? .null },
    ]
}
