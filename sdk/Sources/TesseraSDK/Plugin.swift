/// What a plugin implements. The host creates it through the ``PluginFactory`` the plugin exports.
///
/// The life of a plugin instance:
/// 1. the host applies ``migrations`` to the plugin's database (when `storage` is granted);
/// 2. it calls ``start(context:)`` once, with only the capabilities the operator granted; the plugin
///    registers its operation and timer handlers on the context there;
/// 3. it dispatches calls to those handlers, concurrently;
/// 4. it calls ``stop()`` once before the instance is dropped.
///
/// When the host swaps in a new build while it runs (hot swap, for manifests with `hotSwap: true`),
/// the new instance goes through 1 and 2 while the old one still serves; then the host holds new
/// calls, waits for the running ones, moves the state across with ``exportState()`` and
/// ``importState(_:)``, lets the held calls through to the new instance, and stops the old one.
///
/// Keep long-lived resources in host capabilities (storage, timers), not in the instance: that is
/// what lets the host swap a plugin's code while it runs.
public protocol Plugin: AnyObject, Sendable {
    /// The plugin's database schema steps, applied by the host before ``start(context:)``.
    var migrations: [StorageMigration] { get }

    /// Starts the plugin: read configuration, take capabilities, register handlers.
    ///
    /// A throw leaves the plugin `failed` with the error as its reason; other plugins go on.
    func start(context: PluginContext) async throws

    /// Stops the plugin. The host has stopped sending calls before this.
    func stop() async

    /// Hands over the in-memory state when this generation is being swapped out (the host has
    /// stopped sending it calls). `nil`, the default, means there is nothing to carry over.
    func exportState() async throws -> PluginState?

    /// Takes over the state the previous generation exported, before the first call reaches this
    /// one. Throwing rolls the swap back: the previous generation keeps serving.
    func importState(_ state: PluginState) async throws
}

extension Plugin {
    /// No migrations.
    public var migrations: [StorageMigration] { [] }
    /// Nothing to stop.
    public func stop() async {}
    /// No in-memory state to carry over.
    public func exportState() async throws -> PluginState? { nil }
    /// Ignores the previous generation's state.
    public func importState(_ state: PluginState) async throws {}
}
