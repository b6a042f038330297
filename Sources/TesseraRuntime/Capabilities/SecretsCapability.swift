import TesseraClock
import TesseraIsolation
import TesseraManifest
import TesseraSDK
import TesseraSecrets

/// `secrets`: values kept apart from the plugin's records, in `<data>/secrets.sqlite`.
struct SecretsProvider: CapabilityProvider {
    let name = "secrets"
    let version = SemanticVersion(1, 0, 0)
    let store: SecretStore
    let clock: any ClockSource

    func prepare(_ request: CapabilityRequest) throws -> any CapabilityBinding {
        let clock = self.clock
        let channel = PluginSecretChannel(pluginID: request.manifest.id, store: store, now: { clock.now() })
        return ObjectBinding(granted: GrantedCapability(.secrets, channel as any PluginSecrets))
    }
}

extension SecretsProvider {
    /// The process tier's secret calls (``SecretsMethods``).
    var childCalls: [ChildCallHandler] {
        [ChildCallHandler(SecretsMethods.get) { call in
            try await call.context.capability(.secrets).secret(named: call.params.stringValue ?? "")?.wire ?? .null
         },
         ChildCallHandler(SecretsMethods.store, returningNothing: { call in
            try await call.context.capability(.secrets).store(try Secret(wire: call.params["secret"] ?? .null),
                                                               named: call.params["name"]?.stringValue ?? "")
         }),
         ChildCallHandler(SecretsMethods.remove, returningNothing: { call in
            try await call.context.capability(.secrets).removeSecret(named: call.params.stringValue ?? "")
         }),
         ChildCallHandler(SecretsMethods.names) { call in
            .array(try await call.context.capability(.secrets).secretNames().map(JSONValue.string))
         }]
    }
}
