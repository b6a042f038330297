import TesseraClock
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
