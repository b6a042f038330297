import TesseraSDK

/// `secrets`: the plugin's own secrets, kept encrypted by the host. A secret crosses the socket
/// as its text: the socket joins the host and this plugin's process only, and frames are never logged.
public enum SecretsMethods {
    public static let get = CapabilityMethodSpec(
        "secrets.get", capability: "secrets", "The secret with this name, or null.",
        parameters: WireSchema.string, result: WireSchema.nullable(WireSchema.string))
    public static let store = CapabilityMethodSpec(
        "secrets.store", capability: "secrets", "Stores a secret under a name (replacing one of that name).",
        parameters: WireSchema.object(["name": WireSchema.string, "secret": WireSchema.string], required: ["name", "secret"]),
        result: WireSchema.null)
    public static let remove = CapabilityMethodSpec(
        "secrets.remove", capability: "secrets", "Removes the secret with this name, if there is one.",
        parameters: WireSchema.string, result: WireSchema.null)
    public static let names = CapabilityMethodSpec(
        "secrets.names", capability: "secrets", "The names of the plugin's secrets.",
        parameters: WireSchema.null, result: WireSchema.array(WireSchema.string))

    public static let all = [get, store, remove, names]
}

/// ``PluginSecrets`` in the process tier.
struct SecretsProxy: PluginSecrets {
    let peer: PeerConnection
    func secret(named name: String) async throws -> Secret? {
        let answer = try await peer.call(SecretsMethods.get, .string(name))
        return try answer == .null ? nil : Secret(wire: answer)
    }
    func store(_ secret: Secret, named name: String) async throws {
        _ = try await peer.call(SecretsMethods.store, ["name": .string(name), "secret": secret.wire])
    }
    func removeSecret(named name: String) async throws {
        _ = try await peer.call(SecretsMethods.remove, .string(name))
    }
    func secretNames() async throws -> [String] {
        (try await peer.call(SecretsMethods.names).arrayValue ?? []).compactMap(\.stringValue)
    }
}
