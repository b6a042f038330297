import TesseraSDK

/// The `events` capability as one plugin sees it: publishing the events its manifest declares.
public final class PluginEventChannel: PluginEvents {
    let pluginID: String
    let declared: Set<String>
    let bus: EventBus

    /// - Parameter declared: the manifest's `emits`.
    public init(pluginID: String, declared: Set<String>, bus: EventBus) {
        self.pluginID = pluginID
        self.declared = declared
        self.bus = bus
    }

    public func publish(_ name: String, _ payload: JSONValue) async throws {
        guard declared.contains(name) else {
            throw PluginError(.forbidden, "plugin '\(pluginID)' publishes '\(name)', which its manifest's emits does not declare (\(declared.sorted().joined(separator: ", ")))",
                              field: "name")
        }
        do {
            try bus.publish(pluginID, name: name, payload: payload)
        } catch {
            throw PluginError(.unavailable, "the host could not store event '\(name)' of '\(pluginID)': \(error)")
        }
    }
}
