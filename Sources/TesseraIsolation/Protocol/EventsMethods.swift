import TesseraSDK

/// `events`: events the plugin publishes to the plugins subscribed to them.
public enum EventsMethods {
    public static let publish = CapabilityMethodSpec(
        "events.publish", capability: "events", "Publishes an event its manifest declares, with a JSON payload.",
        parameters: WireSchema.object(["name": WireSchema.string, "payload": WireSchema.any], required: ["name"]),
        result: WireSchema.null)

    public static let all = [publish]
}

/// ``PluginEvents`` in the process tier.
struct EventsProxy: PluginEvents {
    let peer: PeerConnection
    func publish(_ name: String, _ payload: JSONValue) async throws {
        _ = try await peer.call(EventsMethods.publish, ["name": .string(name), "payload": payload])
    }
}
