import Foundation
import TesseraClock
import TesseraLoader
import TesseraManifest
import TesseraSDK
import TesseraStorage

/// Where a swap's new generation comes from.
public enum SwapSource: Sendable {
    /// A plugin library on disk: staged at its content-addressed path and put through the three gates.
    case library(String)
    /// Code linked into this process (tests, TesseraTesting): no gates.
    case inProcess(PluginFactory)
}

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

extension PluginHost {
    /// How long a swap waits for the calls in flight before it gives up and rolls back.
    public static let swapDrainTimeout: Duration = .seconds(5)

    /// Swaps a running plugin's code for a new build while the host runs (DESIGN §8).
    ///
    /// In order: re-read the manifest (the new build may bring a new one) and check it against the
    /// deployment; stage the library at its content-addressed path and run the three gates; make
    /// the new instance, migrate its storage and start it in standby beside the old one; close
    /// admission (new calls wait) and drain the calls in flight; move the in-memory state across
    /// (`exportState` → `importState`, after checking the manifest says it can read that state
    /// schema); re-point the slot, so that calls, timers, events and location fixes reach the new
    /// instance; let the held calls through; stop the old instance and retire its generation (the
    /// library stays mapped: it is never `dlclose`d).
    ///
    /// A failing gate, a throwing `start`, calls that do not finish within
    /// ``swapDrainTimeout``, or a failing state import roll the swap back: the old generation keeps
    /// serving, and the error says why.
    public func swap(_ id: String, to source: SwapSource, drainTimeout: Duration = swapDrainTimeout) async throws(PluginError) -> SwapReport {
        guard let slot = registry[id] else { throw PluginError(.notFound, "no plugin '\(id)' in this host") }
        guard slot.beginSwap() else { throw PluginError(.conflict, "plugin '\(id)' is already being swapped") }
        defer { slot.endSwap() }
        let (current, entry) = try swappable(slot)
        let manifest = try rereadManifest(current)
        let grants = try checkSwapDeployment(manifest, current: current)
        let (factory, generation) = try newGeneration(source, manifest: manifest)
        let (instance, context, storage) = try await standby(factory, slot: slot, manifest: manifest, entry: entry, grants: grants)

        let clock = ContinuousClock()
        let closedAt = clock.now
        slot.closeAdmission()
        guard await slot.drain(timeout: drainTimeout) else {
            slot.openAdmission()
            await instance.stop()
            throw PluginError(.conflict, "swap of '\(id)' rolled back: calls in flight did not finish within \(drainTimeout); generation \(slot.withState { $0.generationNumber }) keeps serving")
        }
        let stateBytes: Int
        do {
            stateBytes = try await moveState(from: slot.withState { $0.instance }, to: instance)
        } catch {
            slot.openAdmission()
            await instance.stop()
            throw PluginError(.conflict, "swap of '\(id)' rolled back: state import failed: \(error); the old generation keeps serving")
        }
        let old = slot.withState { s -> (any Plugin)? in
            let old = s.instance
            if let previous = s.generation { s.retired.append(previous) }
            s.manifest = manifest
            s.grants = grants
            s.instance = instance
            s.context = context
            s.storage = storage ?? s.storage
            if let generation { s.generation = generation; s.library = generation.library }
            s.generationNumber += 1
            return old
        }
        location.unsubscribe(id)
        subscribeToLocation(slot, context: context, grants: grants)
        slot.transition(.active, "swapped in generation \(slot.withState { $0.generationNumber }) (\(manifest.version))")
        slot.openAdmission()
        let pause = clock.now - closedAt
        await old?.stop()
        events.setSubscriptions(eventSubscriptions())
        events.kick()
        for job in manifest.jobs {  // jobs the new manifest adds
            _ = try? timerStore.putIfAbsent(StoredTimer(plugin: id, key: "job:\(job.name)", name: job.name,
                                                       fireAt: self.clock.now().addingTimeInterval(TimeInterval(job.everySeconds)),
                                                       everySeconds: job.everySeconds))
        }
        log(.info, id, "swapped to generation \(slot.withState { $0.generationNumber }) in a \(pause) pause")
        let overBudget = restartRecommended
        if overBudget {
            log(.warning, "host", "retired plugin generations keep more than \(deployment.retiredBudgetBytes / 1_048_576) MiB of code mapped (hotSwap.retiredBudgetMB in \(deployment.file)); restart the host to unmap it")
        }
        return SwapReport(generation: slot.withState { $0.generationNumber }, pause: pause, stateBytes: stateBytes,
                          libraryPath: generation?.stagedPath, restartRecommended: overBudget)
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
        do { manifest = try ManifestReader.read(file: current.file) } catch {
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

    /// The new generation's factory, through the three gates for a library.
    private func newGeneration(_ source: SwapSource, manifest: PluginManifest) throws(PluginError) -> (PluginFactory, LoadedGeneration?) {
        switch source {
        case .inProcess(let factory):
            return (factory, nil)
        case .library(let path):
            do {
                let staged = try LibraryLoader.stage(path, in: generations)
                let library = try FileGate.verify(staged, manifest: manifest, host: .current)
                let generation = try LibraryLoader.load(library, manifest: manifest)
                return (generation.factory, generation)
            } catch {
                // Well-formed, but the build is refused: 422, not 400.
                throw PluginError(.unprocessable, "swap refused: \(error); the old generation keeps serving")
            }
        }
    }

    /// Makes the new instance and starts it beside the running one (it gets no calls yet).
    private func standby(_ factory: PluginFactory, slot: PluginSlot, manifest: PluginManifest, entry: Deployment.PluginEntry,
                         grants: [String: JSONValue]) async throws(PluginError) -> (any Plugin, PluginContext, SQLitePluginStorage?) {
        let instance = factory.makePlugin()
        do {
            let (context, storage) = try makeContext(for: instance, manifest: manifest, entry: entry, grants: grants) {
                try slot.withState { $0.storage } ?? openStorage(manifest.id)
            }
            try await instance.start(context: context)
            return (instance, context, storage)
        } catch {
            await instance.stop()
            throw PluginError(.conflict, "swap rolled back: the new generation did not start: \(reason(of: error)); the old generation keeps serving")
        }
    }

    /// Moves the old instance's state to the new one; the byte count moved.
    private func moveState(from old: (any Plugin)?, to new: any Plugin) async throws -> Int {
        guard let state = try await old?.exportState() else { return 0 }
        try await new.importState(state)
        return state.bytes.count
    }

    private func reason(of error: any Error) -> String {
        switch error {
        case let e as Refusal: e.reason
        case let e as StartFailure: e.reason
        case let e as DisabledPlugin: e.reason
        default: "\(error)"
        }
    }
}
