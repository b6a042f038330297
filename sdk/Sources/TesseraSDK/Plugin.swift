/// What a plugin implements. The host creates it through the ``PluginFactory`` the plugin exports.
///
/// The life of a plugin instance:
/// 1. the host applies ``migrations`` to the plugin's database (when `storage` is granted);
/// 2. it calls ``start(context:)`` once, with only the capabilities the operator granted; the plugin
///    registers its operation and timer handlers on the context there;
/// 3. it dispatches calls to those handlers, concurrently;
/// 4. it calls ``stop()`` once before the instance is dropped.
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
}

extension Plugin {
    /// No migrations.
    public var migrations: [StorageMigration] { [] }
    /// Nothing to stop.
    public func stop() async {}
}
