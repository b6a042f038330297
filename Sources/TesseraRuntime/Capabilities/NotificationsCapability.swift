import TesseraIsolation
import TesseraManifest
import TesseraNotifications
import TesseraSDK

/// `notifications`: schedules kept and delivered by the host, whether or not the plugin is loaded.
struct NotificationsProvider: CapabilityProvider {
    let name = "notifications"
    let version = SemanticVersion(1, 0, 0)
    let scheduler: NotificationScheduler
    /// Whether a plugin syncs now (its sync state is registered).
    let syncs: @Sendable (String) -> Bool

    func prepare(_ request: CapabilityRequest) throws -> any CapabilityBinding {
        let id = request.manifest.id, syncs = self.syncs
        let channel = scheduler.channel(plugin: id, permissions: request.grant, syncs: { syncs(id) })
        return ObjectBinding(granted: GrantedCapability(.notifications, channel as any PluginNotifications))
    }
}

extension NotificationsProvider {
    /// The process tier's notification calls (``NotificationsMethods``).
    var childCalls: [ChildCallHandler] {
        [ChildCallHandler(NotificationsMethods.schedule, returningNothing: { call in
            try await call.context.capability(.notifications).schedule(try NotificationRequest(wire: call.params))
         }),
         ChildCallHandler(NotificationsMethods.cancel, returningNothing: { call in
            try await call.context.capability(.notifications).cancel(key: call.params.stringValue ?? "")
         }),
         ChildCallHandler(NotificationsMethods.pending) { call in
            .array(try await call.context.capability(.notifications).pending().map(\.wire))
         }]
    }
}
