import TesseraClock
import TesseraManifest
import TesseraSDK

/// `clock`: the host's clock (system or virtual) and the plugin's persisted timers.
struct ClockProvider: CapabilityProvider {
    let name = "clock"
    let version = SemanticVersion(1, 0, 0)
    let source: any ClockSource
    let timers: any TimerStore

    func prepare(_ request: CapabilityRequest) throws -> any CapabilityBinding {
        let clock = PluginClock(pluginID: request.manifest.id, source: source, store: timers, permissions: request.grant)
        return ObjectBinding(granted: GrantedCapability(.clock, clock as any HostClock))
    }
}
