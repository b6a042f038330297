import TesseraSDK

/// `notifications`: the plugin's scheduled notifications, delivered by the host.
public enum NotificationsMethods {
    static let request = WireSchema.object([
        "key": WireSchema.string, "title": WireSchema.string, "body": WireSchema.string, "payload": WireSchema.any,
        "recipient": ["description": "\"user\", {\"space\": id} or {\"spaceOthers\": id}"],
        "schedule": ["description": "{\"at\": time} or {\"rule\", \"startingAt\", \"timeZone\"}"],
        "priority": WireSchema.string, "message": WireSchema.any,
    ], required: ["key", "title", "body", "recipient", "schedule"], of: "NotificationRequest")

    public static let schedule = CapabilityMethodSpec(
        "notifications.schedule", capability: "notifications", "Schedules a notification (a key already scheduled is replaced).",
        parameters: request, result: WireSchema.null)
    public static let cancel = CapabilityMethodSpec(
        "notifications.cancel", capability: "notifications", "Cancels the notification with this key, if there is one.",
        parameters: WireSchema.string, result: WireSchema.null)
    public static let pending = CapabilityMethodSpec(
        "notifications.pending", capability: "notifications", "The plugin's notifications still to be delivered, each with its next time.",
        parameters: WireSchema.null,
        result: WireSchema.array(WireSchema.object(["request": request, "nextAt": WireSchema.time], required: ["request", "nextAt"], of: "PendingNotification")))

    public static let all = [schedule, cancel, pending]
}

/// ``PluginNotifications`` in the process tier.
struct NotificationsProxy: PluginNotifications {
    let peer: PeerConnection
    func schedule(_ notification: NotificationRequest) async throws {
        _ = try await peer.call(NotificationsMethods.schedule, notification.wire)
    }
    func cancel(key: String) async throws {
        _ = try await peer.call(NotificationsMethods.cancel, .string(key))
    }
    func pending() async throws -> [PendingNotification] {
        try (try await peer.call(NotificationsMethods.pending).arrayValue ?? []).map(PendingNotification.init(wire:))
    }
}
