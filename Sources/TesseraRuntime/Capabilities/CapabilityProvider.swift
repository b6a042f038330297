import TesseraManifest
import TesseraSDK
import TesseraStorage

/// One capability the host provides (DESIGN.md §5): its name and version, how it checks a grant,
/// how it builds the scoped object a plugin's context holds, and how that object takes effect and
/// is released.
///
/// The host keeps one provider per capability (``CapabilityProviders``) and iterates them; it has
/// no branch for any one capability. Adding a capability is adding one provider and registering it.
protocol CapabilityProvider: Sendable {
    /// The name manifests `require` and deployments `grant`.
    var name: String { get }
    /// The version this host provides; a manifest's requirement names a range of it.
    var version: SemanticVersion { get }
    /// Checks the operator's grant beyond the deployment schema (which already holds it within the
    /// manifest's request). Throws a ``PluginRefusal`` naming the rule.
    func check(grant: JSONValue, manifest: PluginManifest) throws
    /// Builds the plugin's object for a new generation. It must change nothing another generation
    /// sees: what is shared changes in the binding's ``CapabilityBinding/commit()``.
    func prepare(_ request: CapabilityRequest) throws -> any CapabilityBinding

    /// How the host answers this capability's methods of the capability protocol for a plugin in
    /// the process tier: a handler for each declared method (`TesseraIsolation/Protocol/`), on
    /// the capability object this provider built for the plugin.
    var childCalls: [ChildCallHandler] { get }
}

extension CapabilityProvider {
    func check(grant: JSONValue, manifest: PluginManifest) throws {}
}

/// What a provider is told when it prepares its capability for a new generation.
struct CapabilityRequest {
    /// The new generation's manifest.
    let manifest: PluginManifest
    /// The operator's grant of this capability: its effective permissions.
    let grant: JSONValue
    /// The new instance's storage migrations.
    let migrations: [StorageMigration]
    /// Whether a generation of the plugin serves now (a swap) or not (a start).
    let replacing: Bool
    /// What the generation's providers share; the storage provider, which runs first, puts the
    /// plugin's database here for the others (events, sync).
    let resources: GenerationResources
}

/// What the providers of one generation share while it is built.
final class GenerationResources: @unchecked Sendable {
    /// The plugin's database, when storage is granted. Kept across generations.
    var storage: SQLitePluginStorage?
    /// The serving generation's database, to reuse in a swap.
    let serving: SQLitePluginStorage?
    /// A database opened ahead, on another thread, while the library was checked (a start).
    let preopened: SQLitePluginStorage?

    init(serving: SQLitePluginStorage?, preopened: SQLitePluginStorage?) {
        self.serving = serving
        self.preopened = preopened
    }
}

/// A capability prepared for one generation. The pipeline (``GenerationPipeline``) calls, in order:
/// ``commit()`` when the generation is about to serve (under closed admission in a swap);
/// ``undo()`` if a later step fails, in reverse order; ``committed()`` once every binding
/// committed; ``activate(_:)`` once the slot points at the generation; ``release()`` when the
/// generation stops serving.
protocol CapabilityBinding: Sendable {
    /// The object the plugin's context holds, or `nil` if this capability hands it nothing.
    var granted: GrantedCapability? { get }
    /// Whether ``commit()`` changes the database's schema: then a swap commits before the new
    /// instance starts, inside its pause, and keeps a copy of the database to undo it.
    var changesSchema: Bool { get }
    /// Makes the capability take effect in what is shared (schema, write rules, registries).
    func commit() throws
    /// Takes back what ``commit()`` did; the serving generation finds everything as it was. Throws
    /// when it could not (the database could not be put back): the caller says so, never silently.
    func undo() throws
    /// Every binding of the generation committed: drops what ``undo()`` would have needed.
    func committed()
    /// The slot now points at the generation: registrations that route to it.
    func activate(_ activation: Activation) async
    /// The generation stops serving (stopped, or replaced by a swap).
    func release()
}

extension CapabilityBinding {
    var changesSchema: Bool { false }
    func commit() throws {}
    func undo() throws {}
    func committed() {}
    func activate(_ activation: Activation) async {}
    func release() {}
}

/// What a binding is told when its generation starts serving.
struct Activation: Sendable {
    /// The plugin's slot: calls into the plugin go through its admission.
    let slot: PluginSlot
    /// The new generation's context, with the handlers its instance registered.
    let context: PluginContext
    /// Whether it replaced a serving generation (a swap) rather than starting the plugin.
    let replacing: Bool
}

/// A capability that only hands the plugin an object: nothing to commit, undo or release.
struct ObjectBinding: CapabilityBinding {
    let granted: GrantedCapability?
}

/// The host's providers, in the order they prepare a generation (storage first: events and sync
/// work on the database it opens).
struct CapabilityProviders: Sendable {
    let all: [any CapabilityProvider]
    /// Every method the process tier answers: each provider's, and `log` (built once: every
    /// process-tier plugin of the host shares it).
    let childCalls: ChildCallTable

    init(all: [any CapabilityProvider]) {
        self.all = all
        childCalls = ChildCallTable([ChildCallTable.log] + all.flatMap(\.childCalls))
    }

    /// The provider named `name`, if the host has one.
    subscript(name: String) -> (any CapabilityProvider)? { all.first { $0.name == name } }

    /// Each capability's name and the version provided.
    var versions: [String: SemanticVersion] {
        Dictionary(all.map { ($0.name, $0.version) }, uniquingKeysWith: { first, _ in first })
    }
}
