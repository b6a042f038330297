import Foundation
import TesseraClock
import TesseraLoader
import TesseraManifest
@_spi(TesseraHost) import TesseraSDK
import TesseraStorage
import TesseraSystem

/// What a swap did.
public struct SwapReport: Sendable {
    /// The plugin's generation number now serving.
    public var generation: Int
    /// How long new calls were held: from closing admission to letting them through.
    public var pause: Duration
    /// The size of the state moved across, in bytes (0 when there was none).
    public var stateBytes: Int
    /// The library now serving, for a library swap.
    public var libraryPath: String?
    /// The retired generations of all plugins now keep more code mapped than the deployment's
    /// `hotSwap.retiredBudgetMB`: restart the host to unmap it.
    public var restartRecommended: Bool
}

extension GenerationOrchestrator {
    /// How long a swap waits for the calls in flight before it gives up and rolls back.
    static let swapDrainTimeout: Duration = .seconds(5)

    /// Swaps a running plugin's code for a new build while the host runs (DESIGN §8), through
    /// the generation pipeline (``GenerationPipeline``).
    ///
    /// In order: re-read the manifest (the new build may bring a new one) and check it against the
    /// deployment; stage the library and run the three gates; build the new instance's context
    /// (nothing shared changes) and start it in standby beside the old one; close admission (new
    /// calls wait) and drain the calls in flight; commit the new generation's capabilities
    /// (migrations, write rules, sync registration); move the in-memory state across
    /// (`exportState` → `importState`, after checking the manifest says it can read that state
    /// schema); re-point the slot, so that calls, timers, events and location fixes reach the new
    /// instance; let the held calls through; stop the old instance and retire its generation (the
    /// library stays mapped: it is never `dlclose`d).
    ///
    /// A new generation whose commit changes the database's schema starts after that commit, inside
    /// the pause, so that its code meets the schema it expects; a copy of the database taken first
    /// puts it back if anything after fails.
    ///
    /// A failing gate, a throwing `start`, calls that do not finish within ``swapDrainTimeout``, a
    /// failing migration or a failing state import roll the swap back: the old generation keeps
    /// serving with its storage, write rules, subscriptions and timers exactly as they were, and
    /// the error says why.
    func swap(_ id: String, to source: SwapSource, drainTimeout: Duration = swapDrainTimeout) async throws(PluginError) -> SwapReport {
        guard let slot = registry[id] else { throw PluginError(.notFound, "no plugin '\(id)' in this host") }
        guard slot.beginSwap() else { throw PluginError(.conflict, "plugin '\(id)' is already being swapped") }
        defer { slot.endSwap() }
        let (current, entry) = try swappable(slot)
        let manifest = try rereadManifest(current)
        let grants = try checkSwapDeployment(manifest, current: current)
        let (factory, generation) = try await newGeneration(source, manifest: manifest, slot: slot)
        let candidate = GenerationCandidate(manifest: manifest, entry: entry, grants: grants, factory: factory, loaded: generation,
                                            generation: slot.withState { $0.generationNumber } + 1)
        try await standby(candidate, slot: slot)

        let clock = ContinuousClock()
        let closedAt = clock.now
        slot.closeAdmission()
        guard await slot.drain(timeout: drainTimeout) else {
            slot.openAdmission()
            await pipeline.abandon(candidate)
            throw PluginError(.conflict, "swap of '\(id)' rolled back: calls in flight did not finish within \(drainTimeout); generation \(slot.withState { $0.generationNumber }) keeps serving")
        }
        let stateBytes: Int
        do {
            stateBytes = try await commitInPause(candidate, replacing: slot)
        } catch {
            slot.openAdmission()
            await pipeline.abandon(candidate)
            throw error
        }
        pipeline.finish(candidate)
        let (old, oldContext, oldBindings) = slot.withState { s -> ((any Plugin)?, PluginContext?, [any CapabilityBinding]) in
            let replaced = (s.instance, s.context, s.bindings)
            s.serve(candidate)
            s.generationNumber += 1
            return replaced
        }
        for binding in oldBindings { binding.release() }
        await pipeline.activate(candidate, in: slot, replacing: true)
        slot.transition(.active, "swapped in generation \(slot.withState { $0.generationNumber }) (\(manifest.version))")
        slot.openAdmission()
        let pause = clock.now - closedAt
        pipeline.seedJobs(candidate)
        await onSharedPool { await old?.stop() }
        oldContext?.removeAllHandlers()
        refreshEventRoutes()
        log(.info, id, "swapped to generation \(slot.withState { $0.generationNumber }) in a \(pause) pause")
        let overBudget = restartRecommended
        if overBudget {
            log(.warning, "host", "retired plugin generations keep more than \(deployment.retiredBudgetBytes / 1_048_576) MiB of code mapped (hotSwap.retiredBudgetMB in \(deployment.file)); restart the host to unmap it")
        }
        return SwapReport(generation: slot.withState { $0.generationNumber }, pause: pause, stateBytes: stateBytes,
                          libraryPath: generation?.stagedPath, restartRecommended: overBudget)
    }

    /// Inside the pause (admission closed, nothing in flight): commits the new generation, starts it
    /// if its schema change kept it from starting in standby, and moves the state across; the byte
    /// count moved. On any failure the commit is undone and the error says the swap rolled back.
    private func commitInPause(_ candidate: GenerationCandidate, replacing slot: PluginSlot) async throws(PluginError) -> Int {
        let id = slot.id
        do {
            try pipeline.commit(candidate)
        } catch {
            throw PluginError(.conflict, "swap of '\(id)' rolled back: the new generation could not commit: \(reason(of: error)); the old generation keeps serving")
        }
        if !candidate.started {
            do { try await pipeline.start(candidate) } catch {
                let failures = pipeline.undo(candidate)
                throw PluginError(.conflict, "swap rolled back: the new generation did not start: \(reason(of: error)); the old generation keeps serving"
                    + Self.undoFailures(failures))
            }
        }
        do {
            return try await moveState(from: slot.withState { $0.instance }, to: candidate.instance)
        } catch {
            let failures = pipeline.undo(candidate)
            throw PluginError(.conflict, "swap of '\(id)' rolled back: state import failed: \(error); the old generation keeps serving"
                + Self.undoFailures(failures))
        }
    }

    /// The running plugin's manifest and deployment entry, if it may be swapped now.
    private func swappable(_ slot: PluginSlot) throws(PluginError) -> (PluginManifest, Deployment.PluginEntry) {
        guard slot.lifecycle == .active, let manifest = slot.withState({ $0.manifest }) else {
            throw PluginError(.unavailable, "plugin '\(slot.id)' is not active (\(slot.lifecycle.rawValue)); only a running plugin is swapped — restart the host to load it")
        }
        guard manifest.hotSwap else {
            throw PluginError(.forbidden, "plugin '\(slot.id)' does not allow hot swap (its manifest says \"hotSwap\": false); restart the host to load a new build")
        }
        guard let entry = deployment.entry(for: slot.id) else { throw PluginError(.notFound, "plugin '\(slot.id)' is not in the deployment") }
        return (manifest, entry)
    }

    /// The manifest as it is on disk now: a new build may come with a new version, operations or state schema.
    private func rereadManifest(_ current: PluginManifest) throws(PluginError) -> PluginManifest {
        let manifest: PluginManifest
        do { manifest = try ManifestReader.read(file: current.file, checked: checkedManifests) } catch {
            throw PluginError(.unprocessable, "swap refused: manifest: \(error)")
        }
        guard manifest.id == current.id else {
            throw PluginError(.unprocessable, "swap refused: \(current.file) now declares '\(manifest.id)', not '\(current.id)'")
        }
        guard manifest.hotSwap else {
            throw PluginError(.forbidden, "swap refused: the new manifest says \"hotSwap\": false")
        }
        return manifest
    }

    /// The deployment's checks on the new manifest, and whether it can read the running state.
    private func checkSwapDeployment(_ manifest: PluginManifest, current: PluginManifest) throws(PluginError) -> [String: JSONValue] {
        let grants: [String: JSONValue]
        do { grants = try checkDeployment(manifest).1 } catch {
            throw PluginError(.forbidden, "swap refused: \(reason(of: error))")
        }
        let from = current.stateSchema ?? 0, to = manifest.stateSchema ?? 0
        if from != to, !manifest.stateMigratesFrom.contains(from) {
            throw PluginError(.conflict, "swap refused: the running generation's state schema is \(from); the new build reads \(([to] + manifest.stateMigratesFrom).map(String.init).joined(separator: ", ")) (manifest state.migratesFrom)")
        }
        return grants
    }

    /// The new generation's factory: through the pipeline's three gates, in the plugin's tier, for a
    /// library; as it is for code linked into this process (in-process tier only).
    private func newGeneration(_ source: SwapSource, manifest: PluginManifest, slot: PluginSlot) async throws(PluginError) -> (PluginFactory, LoadedGeneration?) {
        let tier = isolationTier(of: manifest)
        switch source {
        case .inProcess(let factory):
            guard tier == .inProcess else {
                throw PluginError(.unprocessable, "swap refused: plugin '\(manifest.id)' runs in the process tier, so it is swapped to a library build; the old generation keeps serving")
            }
            return (factory, nil)
        case .library(let path):
            do {
                let build = try await pipeline.load(path, manifest: manifest, tier: tier, limits: deployment.entry(for: manifest.id)?.limits,
                                                    onQuarantine: quarantine(slot))
                return (build.factory, build.inProcess)
            } catch {
                // Well-formed, but the build is refused: 422, not 400.
                throw PluginError(.unprocessable, "swap refused: \(error); the old generation keeps serving")
            }
        }
    }

    /// Builds the new generation's context and, unless its commit changes the schema, starts it
    /// beside the running one (it gets no calls yet). Nothing shared has changed.
    private func standby(_ candidate: GenerationCandidate, slot: PluginSlot) async throws(PluginError) {
        do {
            try pipeline.buildContext(candidate, resources: GenerationResources(serving: slot.withState { $0.storage }, preopened: nil))
            if !candidate.changesSchema { try await pipeline.start(candidate) }
        } catch {
            await pipeline.abandon(candidate)
            throw PluginError(.conflict, "swap rolled back: the new generation did not start: \(reason(of: error)); the old generation keeps serving")
        }
    }

    /// Moves the old instance's state to the new one; the byte count moved.
    private func moveState(from old: (any Plugin)?, to new: (any Plugin)?) async throws -> Int {
        guard let new, let state = try await old?.exportState() else { return 0 }
        try await new.importState(state)
        return state.bytes.count
    }

    /// What a rollback could not take back, for the end of the swap's error.
    static func undoFailures(_ failures: [String]) -> String {
        failures.isEmpty ? "" : " — but not everything could be taken back: " + failures.joined(separator: "; ")
    }

}
