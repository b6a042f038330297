import TesseraSDK

/// Starting, swapping, reloading and stopping plugins: each is the ``GenerationOrchestrator``'s,
/// which takes every change of generation through the one pipeline.
extension PluginHost {
    /// How far ``start(until:)`` takes the plugins.
    public enum StartDepth: Sendable {
        /// Only the checks that run no plugin code: manifest, deployment, grants, gate 1.
        case validated
        /// All the way to `active` (or the state where each one stopped).
        case active
    }

    /// Discovers the manifests, then brings every enabled plugin up, one after another. Never throws
    /// for a plugin: each failure parks that plugin with its reason.
    public func start(until depth: StartDepth = .active) async { await generations.start(until: depth) }

    /// Stops every active plugin (most recently listed first) and leaves them `stopped`.
    public func stop() async { await generations.stop() }

    /// How long a swap waits for the calls in flight before it gives up and rolls back.
    public static let swapDrainTimeout = GenerationOrchestrator.swapDrainTimeout

    /// Swaps a running plugin's code for a new build while the host runs (DESIGN §8; the steps are
    /// ``GenerationOrchestrator``'s `swap`). A failing gate, a throwing `start`, calls that do not
    /// finish within `drainTimeout`, a failing migration or a failing state import roll the swap
    /// back: the old generation keeps serving exactly as it was, and the error says why.
    public func swap(_ id: String, to source: SwapSource, drainTimeout: Duration = swapDrainTimeout) async throws(PluginError) -> SwapReport {
        try await generations.swap(id, to: source, drainTimeout: drainTimeout)
    }

    /// Reads the deployment file again and applies what changed in its plugins, while the host
    /// serves (docs/operating.md, "Reloading"). All or nothing before anything changes; then only
    /// the plugins whose entry changed are touched.
    public func reload() async throws(PluginError) -> ReloadReport { try await generations.reload() }

    /// The database file of plugin `id`: `<data>/plugins/<id>/storage.sqlite`.
    public func storagePath(_ id: String) -> String { generations.storagePath(id) }
}
