import TesseraManifest
import TesseraNotifications
import TesseraSDK

/// `notifications`: schedules kept and delivered by the host, whether or not the plugin is loaded.
struct NotificationsProvider: CapabilityProvider {
    let name = "notifications"
    let version = SemanticVersion(1, 0, 0)
    let scheduler: NotificationScheduler

    func prepare(_ request: CapabilityRequest) throws -> any CapabilityBinding {
        let channel = scheduler.channel(plugin: request.manifest.id, permissions: request.grant)
        return ObjectBinding(granted: GrantedCapability(.notifications, channel as any PluginNotifications))
    }
}
