/// Names a capability and the Swift type a plugin receives for it.
///
/// ```swift
/// let storage = try context.capability(.storage)
/// ```
public struct CapabilityKey<Value>: Sendable, Hashable {
    /// The capability's name, as the manifest's `requires` and the deployment's `grants` spell it.
    public let name: String

    /// Creates a key. Hosts and SDK extensions define keys; plugins use them.
    public init(_ name: String) { self.name = name }
}

extension CapabilityKey where Value == any PluginStorage {
    /// The plugin's own database.
    public static var storage: CapabilityKey<any PluginStorage> { .init("storage") }
}

extension CapabilityKey where Value == any HostClock {
    /// The host's clock and timers.
    public static var clock: CapabilityKey<any HostClock> { .init("clock") }
}
