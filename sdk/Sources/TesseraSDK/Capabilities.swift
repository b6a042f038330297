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

/// A capability object the host grants a plugin, with the key it is granted under.
///
/// The object is kept in a box typed by the key's `Value`, so that handing it to the plugin is a
/// class check rather than a protocol-conformance lookup: the Swift runtime forgets its
/// conformance cache on every `dlopen`, and a lookup then scans every loaded image.
public struct GrantedCapability: Sendable {
    /// The capability's name.
    public let name: String
    private let box: any AnyCapabilityBox

    /// Grants `value` under `key`, e.g. `GrantedCapability(.storage, database)`.
    public init<Value: Sendable>(_ key: CapabilityKey<Value>, _ value: Value) {
        name = key.name
        box = CapabilityBox(value)
    }

    /// The object, if it was granted as a `Value`.
    func value<Value>(as type: Value.Type) -> Value? {
        (box as? CapabilityBox<Value>)?.value
    }
}

/// What every capability box is, whatever it holds.
protocol AnyCapabilityBox: AnyObject, Sendable {}

/// Holds one capability object with its granted type (``GrantedCapability/init(_:_:)`` requires it
/// to be `Sendable`).
final class CapabilityBox<Value>: AnyCapabilityBox, @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
