import Foundation
import TesseraIsolation
import TesseraLoader
import TesseraManifest
import TesseraSDK

/// The host's entry points to the process tier: the operator's restart of a quarantined plugin, and
/// what its child is. Loading one is the generation pipeline's (``GenerationPipeline/load``).
extension PluginHost {
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

    /// How many calls into a process-tier plugin's serving child outlasted the brief wait on their
    /// lane and were handed to the host's reader thread (docs/isolation.md, "Lanes"); `nil` for a
    /// plugin without a child. For `tessera-bench isolation`.
    public func isolatedCallsHandedToReader(_ pluginID: String) -> Int? {
        (registry[pluginID]?.withState { $0.instance } as? ProcessPlugin)?.callsHandedToReader
    }

    /// Whether the host's callers' polls for a process-tier plugin's answers have been paying, and
    /// how long their polled and slept waits lasted (docs/isolation.md, "Polling that pays or stays
    /// off"); `nil` for a plugin without a child. For `tessera-bench isolation`.
    public func isolatedCallersPollingPayoff(_ pluginID: String) -> PollingPayoff? {
        (registry[pluginID]?.withState { $0.instance } as? ProcessPlugin)?.callersPollingPayoff
    }
}
