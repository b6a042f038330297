import TesseraSync

/// What the device's sync holds, for `tessera sync`.
extension PluginHost {
    /// The kept conflicts of `pluginID`'s synced tables (empty if it does not sync).
    public func syncConflicts(of pluginID: String) throws -> [SyncConflict] {
        try hub.syncStores[pluginID]?.conflicts() ?? []
    }

    /// The spaces `pluginID`'s rows belong to on this device.
    public func syncSpaces(of pluginID: String) throws -> [String] {
        try hub.syncStores[pluginID]?.spaces() ?? []
    }
}
