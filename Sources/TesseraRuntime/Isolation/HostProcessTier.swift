import Foundation
import TesseraIsolation
import TesseraLoader
import TesseraManifest
import TesseraSDK

/// The host's entry points to the process tier: which plugins run there, how one is loaded, and
/// the operator's restart of a quarantined one.
extension PluginHost {
    /// Where a plugin's code runs: the deployment entry's `isolation` if it says, else the manifest's.
    func isolationTier(of manifest: PluginManifest) -> Isolation {
        deployment.entry(for: manifest.id)?.isolation ?? manifest.isolation
    }

    /// Gate 1 here on the staged copy; gates 2 and 3 in a child process, which also reads the
    /// instance's migrations. The factory hands out the ``ProcessPlugin`` that stands for it.
    func processTierFactory(_ path: String, manifest: PluginManifest, slot: PluginSlot) async throws -> PluginFactory {
        let staged = try LibraryLoader.stage(path, in: generations)
        let library: VerifiedLibrary
        do { library = try FileGate.verify(staged, manifest: manifest, host: .current) } catch {
            throw error.naming(path, insteadOf: staged.path)
        }
        slot.transition(.validated, Self.gate1Note(library))
        slot.withState { $0.library = library; $0.generationNumber += 1 }
        let plugin: ProcessPlugin
        do {
            let sandbox = ChildSandbox(library: staged.path, dataDirectory: options.dataDirectory,
                                       limits: deployment.entry(for: manifest.id)?.limits)
            plugin = try await ProcessPlugin.launch(manifest: manifest, sandbox: sandbox, clock: clock, policy: options.isolation, log: log) {
                [weak slot] reason in slot?.transition(.quarantined, reason)
            }
        } catch let refusal as GateRefusal {
            throw refusal.naming(path, insteadOf: staged.path)
        }
        slot.transition(.loaded, "gates 2 and 3 passed in a child process (process tier): \(staged.path)")
        return PluginFactory { plugin }
    }

    /// Restarts a plugin of the process tier now, clearing its crash record: how an operator
    /// lifts a quarantine (`POST /v1/plugins/{id}/restart`).
    public func restartIsolated(_ pluginID: String) async throws(PluginError) {
        guard let slot = registry[pluginID] else { throw PluginError(.notFound, "no plugin '\(pluginID)' in this host") }
        guard let plugin = slot.withState({ $0.instance }) as? ProcessPlugin else {
            throw PluginError(.conflict, "plugin '\(pluginID)' does not run in the process tier; only those are restarted")
        }
        do { try await plugin.operatorRestart() } catch {
            throw PluginError(.unavailable, "plugin '\(pluginID)' did not restart: \(error)")
        }
        slot.transition(.active, "restarted by the operator: \(plugin.isolationNote)")
    }

    /// What a process-tier plugin's child sandbox enforces (docs/isolation.md, "The sandbox").
    func isolatedSandbox(_ pluginID: String) -> SandboxReport? {
        (registry[pluginID]?.withState { $0.instance } as? ProcessPlugin)?.sandboxReport
    }

    /// The process id of a process-tier plugin's serving child, if one serves.
    public func isolatedProcessID(_ pluginID: String) -> Int32? {
        (registry[pluginID]?.withState { $0.instance } as? ProcessPlugin)?.childPID
    }
}
