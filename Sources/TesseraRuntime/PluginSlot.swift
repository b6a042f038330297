import Synchronization
import TesseraLoader
import TesseraManifest
import TesseraSDK

/// One plugin's place in the host: its manifest, its state with the reason, its loaded generations,
/// and the running instance with its context. All mutable state sits behind one lock.
final class PluginSlot: Sendable {
    let id: String
    private let state: Mutex<State>

    struct State {
        var lifecycle: LifecycleState = .discovered
        var reason: String?
        var history: [String] = []
        var manifest: PluginManifest?
        var manifestFile: String?
        var library: VerifiedLibrary?
        var generation: LoadedGeneration?
        var generationNumber = 0
        var retired: [LoadedGeneration] = []
        var instance: (any Plugin)?
        var context: PluginContext?
        var grants: [String: JSONValue] = [:]
        var inflight = 0
    }

    init(id: String) {
        self.id = id
        state = Mutex(State())
    }

    func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        try state.withLock { try body(&$0) }
    }

    /// Moves to `lifecycle`, recording the step in the history (and the reason, for non-happy states).
    func transition(_ lifecycle: LifecycleState, _ note: String) {
        state.withLock {
            $0.lifecycle = lifecycle
            $0.reason = lifecycle.needsReason ? note : nil
            $0.history.append("\(lifecycle.rawValue): \(note)")
        }
    }

    var lifecycle: LifecycleState { state.withLock { $0.lifecycle } }

    /// Admits one call if the plugin is active: its manifest and context. Pair with ``endCall()``.
    func beginCall() -> (PluginManifest, PluginContext)? {
        state.withLock { s in
            guard s.lifecycle == .active, let manifest = s.manifest, let context = s.context else { return nil }
            s.inflight += 1
            return (manifest, context)
        }
    }

    func endCall() { state.withLock { $0.inflight -= 1 } }

    var status: PluginStatus {
        state.withLock { s in
            PluginStatus(
                id: id, name: s.manifest?.name, version: s.manifest?.version.description, state: s.lifecycle,
                reason: s.reason, manifestFile: s.manifest?.file ?? s.manifestFile, libraryPath: s.library?.path,
                sha256: s.library?.sha256,
                stampedABI: s.library.map { "\($0.stamp.sdkABIMajor).\($0.stamp.sdkABIMinor)" },
                buildID: s.library?.buildID, generation: s.generationNumber, retiredGenerations: s.retired.count,
                grants: s.grants, operations: s.manifest?.operations.map(\.name) ?? [], history: s.history)
        }
    }
}
