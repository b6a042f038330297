import Foundation
import TesseraClock
import TesseraLoader
import TesseraManifest
import TesseraStorage
import TesseraSystem
@_spi(TesseraHost) import TesseraSDK

/// Starting and stopping: every enabled plugin through the pipeline to `active`, at the host's start
/// and for a plugin a reload enables.
extension GenerationOrchestrator {
    /// Discovers the manifests, then brings every enabled plugin up, one after another. Never throws
    /// for a plugin: each failure parks that plugin with its reason.
    func start(until depth: PluginHost.StartDepth = .active) async {
        let opening = depth == .active ? openExistingDatabases() : [:]
        let catalog = ManifestCatalog(directories: deployment.manifestDirectories, checked: checkedManifests)
        for error in catalog.unattributed {
            log(.warning, "host", "ignored a manifest with no readable id: \(error)")
        }
        // Deployment order first, then plugins that have a manifest but no deployment entry.
        let ids = deployment.plugins.map(\.id) + catalog.ids.filter { deployment.entry(for: $0) == nil }
        for id in ids {
            let slot = registry.slot(for: id)
            if let only = options.onlyPlugins, !only.contains(id) { continue }
            await bringUp(slot, catalog: catalog, depth: depth, storageOpening: opening[id])
        }
        refreshEventRoutes()
    }

    /// Starts opening, one after another on a thread of their own, the databases that exist of
    /// the plugins the deployment enables with storage, in its order: opening one costs about as
    /// much as reading, checking and loading a small plugin, so each is opened while the
    /// manifests are read and the plugins before it start. A plugin that is then refused only has
    /// its database closed again; no database is created here.
    func openExistingDatabases() -> [String: StorageOpening] {
        var opening: [String: StorageOpening] = [:]
        let queue = DispatchQueue(label: "tessera.host.storage-opening")
        for entry in deployment.plugins where entry.enabled && entry.grants["storage"] != nil {
            if let only = options.onlyPlugins, !only.contains(entry.id) { continue }
            opening[entry.id] = openExistingStorage(entry.id, on: queue)
        }
        return opening
    }

    /// Takes one plugin from `discovered` as far as it goes.
    func bringUp(_ slot: PluginSlot, catalog: ManifestCatalog, depth: PluginHost.StartDepth,
                 storageOpening opened: StorageOpening? = nil) async {
        let id = slot.id
        guard let entry = catalog.entry(for: id) else {
            slot.transition(.rejected, catalog.missingReason(for: id, in: deployment.manifestDirectories))
            return
        }
        let manifest: PluginManifest
        switch entry {
        case .invalid(let file, let error):
            slot.withState { $0.manifestFile = file }
            slot.transition(.rejected, "manifest: \(error)")
            return
        case .valid(let m):
            manifest = m
        }
        slot.withState { $0.manifest = manifest }
        slot.transition(.discovered, "manifest \(manifest.file), version \(manifest.version)")
        do {
            let (pluginEntry, grants) = try checkDeployment(manifest)
            // Opening an existing database takes about as long as verifying and mapping the library,
            // so it runs on another thread meanwhile. A database that does not exist yet is created
            // only once the plugin passed its gates, so a refused plugin leaves no file behind.
            let storageOpening = depth == .active && grants["storage"] != nil ? opened ?? openExistingStorage(manifest.id) : nil
            if let quota = grants["storage"]?["quotaMB"]?.integerValue { storageOpening?.limitSizeWhenOpened(toMegabytes: Int(quota)) }
            slot.withState { $0.grants = grants }
            guard let (factory, loaded) = try await factory(for: slot, manifest: manifest, depth: depth) else { return }
            slot.transition(.resolved, "capabilities: \(grants.keys.sorted().joined(separator: ", "))")
            let candidate = GenerationCandidate(manifest: manifest, entry: pluginEntry, grants: grants, factory: factory, loaded: loaded,
                                                generation: slot.withState { $0.generationNumber })
            try await startFirstGeneration(candidate, in: slot, preopened: await storageOpening?.value)
        } catch let disabled as DisabledPlugin {
            slot.transition(.disabled, disabled.reason)
        } catch let refusal as PluginRefusal {
            slot.transition(.rejected, refusal.reason)
            log(.warning, id, "rejected: \(refusal.reason)")
        } catch let refusal as GateRefusal {
            slot.transition(.rejected, refusal.description)
            log(.warning, id, "rejected: \(refusal)")
        } catch let failure as PluginStartFailure {
            slot.transition(.failed, failure.reason)
            log(.error, id, "failed: \(failure.reason)")
        } catch {
            slot.transition(.rejected, "\(error)")
            log(.warning, id, "rejected: \(error)")
        }
    }

    /// Gates 1–3 for a library plugin (`validated`, then `loaded`), in its tier, or none for one
    /// linked into this process; the factory that makes its instances, or `nil` when `depth` stops
    /// at `validated`.
    func factory(for slot: PluginSlot, manifest: PluginManifest, depth: PluginHost.StartDepth) async throws -> (PluginFactory, LoadedGeneration?)? {
        if let inProcess = options.inProcessPlugins[manifest.id] {
            // Linked into this process (a plugin's own tests): no library to find, check or load.
            slot.transition(.validated, "in-process: no library gates")
            if depth == .validated { return nil }
            slot.withState { $0.generationNumber += 1 }
            return (inProcess, nil)
        }
        let path = try locateLibrary(manifest)
        if depth == .validated {
            let library = try FileGate.verify(path: path, manifest: manifest, host: .current)
            slot.withState { $0.library = library }
            slot.transition(.validated, Self.gate1Note(library))
            return nil
        }
        let tier = isolationTier(of: manifest)
        let build = try await pipeline.load(path, manifest: manifest, tier: tier, limits: deployment.entry(for: manifest.id)?.limits,
                                            onQuarantine: quarantine(slot)) { library in
            slot.withState { $0.library = library }
            slot.transition(.validated, Self.gate1Note(library))
        }
        slot.withState { $0.generation = build.inProcess; $0.generationNumber += 1 }
        slot.transition(.loaded, tier == .process ? "gates 2 and 3 passed in a child process (process tier): \(build.stagedPath)"
                                                  : "gates 2 and 3 passed: loaded \(build.stagedPath)")
        return (build.factory, build.inProcess)
    }

    /// What a process-tier plugin's supervisor does when it gives up restarting the child.
    ///
    /// It finds the slot through the registry, which it holds weakly (the supervisor must not keep
    /// the host's plugins alive), rather than holding the slot weakly: a weak reference gives its
    /// object a side table for its counts, and every call retains and releases the slot several
    /// times, each then through that table (`tessera-bench edge`, docs/benchmarks.md).
    func quarantine(_ slot: PluginSlot) -> @Sendable (String) -> Void {
        let id = slot.id
        return { [weak registry] reason in registry?[id]?.transition(.quarantined, reason) }
    }

    /// What the history says of a library that passed gate 1.
    static func gate1Note(_ library: VerifiedLibrary) -> String {
        "gate 1 passed: sha256 \(library.sha256.prefix(12)), SDK ABI \(library.stamp.sdkABIMajor).\(library.stamp.sdkABIMinor)"
    }

    /// `starting` → `active` for a plugin's first generation: its context, then its commit
    /// (migrations, write rules, sync registration), then its `start`, then its registrations.
    /// Nothing serves yet, so the commit comes first and `start` sees the migrated schema. A start
    /// that throws leaves the commit in place: the plugin is `failed`, and its tables still sync.
    func startFirstGeneration(_ candidate: GenerationCandidate, in slot: PluginSlot, preopened: SQLitePluginStorage?) async throws {
        let manifest = candidate.manifest
        slot.transition(.starting, "generation \(slot.withState { $0.generationNumber })")
        try pipeline.buildContext(candidate, resources: GenerationResources(serving: nil, preopened: preopened))
        try pipeline.commit(candidate)
        pipeline.finish(candidate)
        do { try await pipeline.start(candidate) } catch {
            await pipeline.abandon(candidate)
            throw error
        }
        let handlers = candidate.context?.hostHandlers
        let missing = manifest.operations.map(\.name).filter { handlers?.operation($0) == nil }
        slot.withState { $0.serve(candidate) }
        let note = missing.isEmpty ? "serving \(manifest.operations.count) operations"
            : "serving; no handler registered for \(missing.joined(separator: ", "))"
        slot.transition(.active, note)
        await pipeline.activate(candidate, in: slot, replacing: false)
        pipeline.seedJobs(candidate)
        events.kick()  // what it missed while it was not active
        log(.info, manifest.id, "active (\(manifest.version), generation \(slot.withState { $0.generationNumber }))")
    }

    /// The database file of plugin `id`: `<data>/plugins/<id>/storage.sqlite`.
    func storagePath(_ id: String) -> String {
        Self.storagePath(id, dataDirectory: options.dataDirectory)
    }

    static func storagePath(_ id: String, dataDirectory: String) -> String {
        ((dataDirectory as NSString).appendingPathComponent("plugins/\(id)") as NSString).appendingPathComponent("storage.sqlite")
    }

    static func openStorage(_ id: String, dataDirectory: String, clock: any ClockSource) throws -> SQLitePluginStorage {
        try SQLitePluginStorage(pluginID: id, path: storagePath(id, dataDirectory: dataDirectory), now: { clock.now() })
    }

    /// Opens the plugin's database on another thread if it exists already; `nil` otherwise (and if
    /// opening fails, so that the open is retried, and its error reported, in order).
    ///
    /// The open blocks (file-system calls), so it runs on `queue`, not on a thread of Swift
    /// concurrency's pool, which has only as many threads as cores.
    func openExistingStorage(_ id: String, on queue: DispatchQueue? = nil) -> StorageOpening? {
        guard access(storagePath(id), F_OK) == 0 else { return nil }
        let data = options.dataDirectory, clock = self.clock
        let queue = queue ?? DispatchQueue(label: "tessera.host.storage-opening.\(id)")
        let opening = StorageOpening()
        // Only a head start: a database that fails to open here is opened again when the
        // generation starts, where the failure is the plugin's and is reported.
        queue.async { opening.opened(try? Self.openStorage(id, dataDirectory: data, clock: clock)) }
        return opening
    }

    /// Stops every active plugin (most recently listed first) and leaves them `stopped`.
    func stop() async {
        for slot in registry.all.reversed() where slot.lifecycle == .active {
            slot.transition(.draining, "host stopping")
            let (instance, context, bindings) = slot.withState { ($0.instance, $0.context, $0.bindings) }
            for binding in bindings { binding.release() }
            await onSharedPool { await instance?.stop() }
            context?.removeAllHandlers()
            slot.withState { $0.instance = nil; $0.context = nil; $0.bindings = [] }
            slot.transition(.stopped, "host stopped")
        }
    }
}
