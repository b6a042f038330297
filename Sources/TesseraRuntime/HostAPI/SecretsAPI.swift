import Foundation

/// Plugins' secrets by name, for `tessera secrets` (values are never shown).
extension PluginHost {
    /// Every kept secret's owner and name, and when it was last set.
    public func secretNames() throws -> [(plugin: String, name: String, updatedAt: Date)] {
        try secrets.allNames()
    }

    /// The names of `plugin`'s secrets.
    public func secretNames(plugin: String) throws -> [String] {
        try secrets.names(plugin: plugin).map(\.name)
    }

    /// Removes one secret; whether it existed.
    public func removeSecret(plugin: String, name: String) throws -> Bool {
        try secrets.remove(plugin: plugin, name: name)
    }
}
