import Foundation
@_spi(TesseraHost) import TesseraSDK

/// The hub's notification relay (docs/hub.md, "Notifications to a space's members"): a device hands
/// over a notification for a space's members, and fetches those filed for its person.
extension HubConnection {
    /// Hands a notification to the hub for the members of `space`; whether the hub filed it now
    /// (`false`: it had filed this key already, from an earlier attempt).
    public func relayNotification(key: String, notificationKey: String, plugin: String, space: String, excludingSender: Bool, title: String, body: String,
                                  payload: JSONValue, dueAt: Date, late: Bool, priority: NotificationPriority = .normal,
                                  message: NotificationMessage? = nil) async throws -> Bool {
        var json: [String: JSONValue] = [
            "key": .string(key), "notificationKey": .string(notificationKey), "plugin": .string(plugin), "space": .string(space), "excludingSender": .bool(excludingSender),
            "title": .string(title), "body": .string(body), "payload": payload,
            "dueAtMillis": .integer(Int64((dueAt.timeIntervalSince1970 * 1000).rounded())), "late": .bool(late),
            "priority": .string(priority.rawValue),
        ]
        if let message { json["message"] = message.json }
        let answer = try await send("POST", "/v1/hub/notifications", body: Array(JSONValue.object(json).serialized().utf8), contentType: "application/json")
        guard answer.status == 200 || answer.status == 201 else { throw SyncClientError(answer) }
        return answer.status == 201
    }

    /// The notifications filed for this person after `cursor`, the cursor to fetch after next, and
    /// whether more wait. Fetching after a cursor tells the hub this device holds everything up to it.
    public func notifications(after cursor: Int64, limit: Int = 200) async throws -> (notifications: [HubNotification], cursor: Int64, more: Bool) {
        let answer = try await send("GET", "/v1/hub/notifications?after=\(cursor)&limit=\(limit)")
        guard answer.status == 200, let json = try? JSONValue(parsing: answer.body) else { throw SyncClientError(answer) }
        let items = (json["notifications"]?.arrayValue ?? []).map { n in
            HubNotification(id: n["id"]?.integerValue ?? 0, key: n["key"]?.stringValue ?? "",
                            notificationKey: n["notificationKey"]?.stringValue ?? "", plugin: n["plugin"]?.stringValue ?? "",
                            space: n["space"]?.stringValue ?? "", title: n["title"]?.stringValue ?? "", body: n["body"]?.stringValue ?? "",
                            payload: n["payload"] ?? .null,
                            dueAt: Date(timeIntervalSince1970: Double(n["dueAtMillis"]?.integerValue ?? 0) / 1000),
                            late: n["late"]?.boolValue ?? false, sender: n["sender"]?["name"]?.stringValue ?? "",
                            priorityName: n["priority"]?.stringValue.flatMap(NotificationPriority.init(rawValue:))?.rawValue ?? "normal",
                            messageJSON: NotificationMessage(json: n["message"]).map { $0.json.serialized() })
        }
        return (items, json["cursor"]?.integerValue ?? cursor, json["more"]?.boolValue ?? false)
    }

    /// Waits (a long poll of up to `seconds`) until the hub holds a change of `plugin` after
    /// `cursor` in my spaces, or a notification for me after `notificationsAfter`; which came.
    public func waitForChangesOrNotifications(plugin: String, after cursor: Int64, notificationsAfter: Int64,
                                              seconds: Int) async throws -> (changes: Bool, notifications: Bool) {
        let answer = try await send("GET", "/v1/hub/sync/\(plugin)/wait?after=\(cursor)&notificationsAfter=\(notificationsAfter)&seconds=\(seconds)",
                                    timeout: Double(seconds) + timeout)
        guard answer.status == 200, let json = try? JSONValue(parsing: answer.body) else { throw SyncClientError(answer) }
        return (json["changes"]?.boolValue ?? false, json["notifications"]?.boolValue ?? false)
    }
}

/// A notification the hub filed for this device's person.
public struct HubNotification: Sendable, Hashable {
    /// Its number in the person's list at the hub (the fetch cursor).
    public var id: Int64
    /// The sender's idempotency key.
    public var key: String
    /// The plugin's own key of the notification.
    public var notificationKey: String
    public var plugin: String
    public var space: String
    public var title: String
    public var body: String
    public var payload: JSONValue
    /// The occurrence it belongs to.
    public var dueAt: Date
    public var late: Bool
    /// The sender's account name.
    public var sender: String
    // As the hub sends them: the priority's name and the message's JSON text.
    var priorityName = "normal"
    var messageJSON: String? = nil
    /// How urgently it asks for attention.
    public var priority: NotificationPriority { NotificationPriority(rawValue: priorityName) ?? .normal }
    /// The plugin's catalogue message, for the reader's own language.
    public var message: NotificationMessage? {
        messageJSON.flatMap { try? JSONValue(parsing: $0) }.flatMap { NotificationMessage(json: $0) }
    }
}
