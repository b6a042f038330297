import Foundation
import TesseraIsolation
import TesseraLoader
import TesseraManifest
import TesseraSDK

/// Hot swap in the process tier (docs/hot-swap.md, docs/isolation.md): the new build gets a child
/// of its own, and the generation pipeline moves the slot over as for a plugin in the host's
/// process — start in standby (the new child serves no call yet), drain, commit, move the state
/// (exported by the old child, imported by the new one), re-point — and stops the old instance,
/// whose child then exits.
extension PluginHost {
    /// The new generation's factory for a process-tier plugin: gate 1 here on the staged copy,
    /// gates 2 and 3 in a throwaway child. The ``ProcessPlugin`` it hands out starts the serving
    /// child when the pipeline starts it.
    func processTierGeneration(_ source: SwapSource, manifest: PluginManifest, slot: PluginSlot) async throws(PluginError) -> PluginFactory {
        guard case .library(let path) = source else {
            throw PluginError(.unprocessable, "swap refused: plugin '\(manifest.id)' runs in the process tier, so it is swapped to a library build; the old generation keeps serving")
        }
        do {
            let staged = try LibraryLoader.stage(path, in: generations)
            do {
                _ = try FileGate.verify(staged, manifest: manifest, host: .current)
                let sandbox = ChildSandbox(library: staged.path, dataDirectory: options.dataDirectory,
                                           limits: deployment.entry(for: manifest.id)?.limits)
                let plugin = try await ProcessPlugin.launch(manifest: manifest, sandbox: sandbox, clock: clock, policy: options.isolation, log: log) {
                    [weak slot] reason in slot?.transition(.quarantined, reason)
                }
                return PluginFactory { plugin }
            } catch let refusal as GateRefusal {
                throw refusal.naming(path, insteadOf: staged.path)
            }
        } catch {
            throw PluginError(.unprocessable, "swap refused: \(error); the old generation keeps serving")
        }
    }
}
