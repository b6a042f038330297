import TesseraLoader
import TesseraManifest
import TesseraSDK
import TesseraStorage

/// Where a new generation's code comes from.
public enum SwapSource: Sendable {
    /// A plugin library on disk: staged at its content-addressed path and put through the three gates.
    case library(String)
    /// Code linked into this process (tests, TesseraTesting): no gates.
    case inProcess(PluginFactory)
}

/// A generation on its way to serving, as ``GenerationPipeline`` builds it step by step. Until it
/// commits, nothing another generation sees has changed; ``GenerationPipeline/undo(_:)`` takes
/// back what a commit did, and ``GenerationPipeline/abandon(_:)`` stops an instance never served.
final class GenerationCandidate: @unchecked Sendable {
    let manifest: PluginManifest
    let entry: Deployment.PluginEntry
    let grants: [String: JSONValue]
    /// Makes the instance: the library's, after the gates, or linked in.
    let factory: PluginFactory
    /// The loaded library, for a library plugin.
    let loaded: LoadedGeneration?
    /// The generation number it will serve as (its log lines carry it).
    let generation: Int
    private(set) var instance: (any Plugin)?
    private(set) var context: PluginContext?
    private(set) var bindings: [any CapabilityBinding] = []
    /// The plugin's database, when storage is granted.
    private(set) var storage: SQLitePluginStorage?
    /// The instance's `start` returned.
    var started = false
    /// How many bindings committed, in order (the ones ``GenerationPipeline/undo(_:)`` takes back).
    var committedCount = 0

    init(manifest: PluginManifest, entry: Deployment.PluginEntry, grants: [String: JSONValue], factory: PluginFactory,
         loaded: LoadedGeneration?, generation: Int) {
        self.generation = generation
        self.manifest = manifest
        self.entry = entry
        self.grants = grants
        self.factory = factory
        self.loaded = loaded
    }

    /// Whether committing changes the database's schema (pending migrations).
    var changesSchema: Bool { bindings.contains { $0.changesSchema } }

    func built(instance: any Plugin, context: PluginContext, bindings: [any CapabilityBinding], storage: SQLitePluginStorage?) {
        self.instance = instance
        self.context = context
        self.bindings = bindings
        self.storage = storage
    }
}
