import Foundation
import TesseraRecurrence
@_spi(TesseraHost) import TesseraSDK

/// A notification as the host keeps it: the plugin's request and when it is next due.
public struct ScheduledNotification: Sendable, Hashable {
    /// The plugin that scheduled it.
    public var plugin: String
    /// The request as the plugin made it.
    public var request: NotificationRequest
    /// The next occurrence to deliver; `nil` once none is left.
    public var nextDue: Date?

    /// Creates a schedule row.
    public init(plugin: String, request: NotificationRequest, nextDue: Date?) {
        self.plugin = plugin
        self.request = request
        self.nextDue = nextDue
    }

    /// The recipients one occurrence goes to: the user, or a space (whose members the hub reaches,
    /// docs/notifications.md; without a hub the space is one recipient, `space:<id>`).
    var recipients: [String] { [request.recipient.ledgerName] }

    /// The occurrence after `due`, for a recurring notification.
    func occurrence(after due: Date) throws -> Date? {
        guard case .recurring = request.schedule else { return nil }
        return try Self.recurrence(of: request.schedule)?.next(after: due)
    }

    /// The recurrence of a recurring schedule, checked.
    static func recurrence(of schedule: NotificationSchedule) throws(PluginError) -> Recurrence? {
        guard case .recurring(let text, let start, let zoneName) = schedule else { return nil }
        guard let zone = TimeZone(identifier: zoneName) else {
            throw PluginError(.invalidInput, "'\(zoneName)' is not an IANA time zone (such as Europe/Prague)", field: "schedule.timeZone")
        }
        do {
            return Recurrence(rule: try RecurrenceRule(parsing: text), start: start, timeZone: zone)
        } catch {
            throw PluginError(.invalidInput, "recurrence rule: \(error)", field: "schedule.rule")
        }
    }

    /// The first occurrence at or after `now` (a one-off keeps its instant even if it is past:
    /// it is then delivered at once, marked late).
    static func firstDue(of schedule: NotificationSchedule, now: Date) throws(PluginError) -> Date? {
        switch schedule {
        case .at(let instant):
            return instant
        case .recurring:
            guard let recurrence = try recurrence(of: schedule) else { return nil }
            guard let first = recurrence.first else { return nil }
            return first >= now ? first : recurrence.next(after: now.addingTimeInterval(-0.001))
        @unknown default:
            throw PluginError(.invalidInput, "this host does not know the schedule \(schedule)", field: "schedule")
        }
    }
}

extension NotificationRecipient {
    /// How the ledger and the inbox name the recipient: `user` or `space:<id>`.
    public var ledgerName: String {
        switch self {
        case .user: "user"
        case .space(let id): "space:\(id)"
        case .spaceOthers(let id): "space-others:\(id)"
        @unknown default: "user"
        }
    }

    init(ledgerName: String) {
        if ledgerName.hasPrefix("space:") {
            self = .space(String(ledgerName.dropFirst(6)))
        } else if ledgerName.hasPrefix("space-others:") {
            self = .spaceOthers(String(ledgerName.dropFirst(13)))
        } else {
            self = .user
        }
    }
}

/// One delivered notification in the host's inbox.
public struct InboxEntry: Sendable, Hashable {
    /// Its number in the inbox, increasing in delivery order (SSE uses it as the event id).
    public var id: Int64
    public var plugin: String
    public var key: String
    public var recipient: String
    public var title: String
    public var body: String
    public var payload: JSONValue
    /// The occurrence it belongs to.
    public var dueAt: Date
    /// When the host delivered it.
    public var deliveredAt: Date
    /// Delivered noticeably after its due time (the host was down, or busy).
    public var late: Bool
    /// When it was marked read, if it was.
    public var readAt: Date?
    // The priority's name and the message's JSON text, as the store, the API and the hub carry
    // them (an entry is written and read far more often than its message is rendered).
    var priorityName = NotificationPriority.normal.rawValue
    var messageJSON: String? = nil

    /// How urgently it asks for attention.
    public var priority: NotificationPriority {
        get { NotificationPriority(rawValue: priorityName) ?? .normal }
        set { priorityName = newValue.rawValue }
    }

    /// Its text as a key of the plugin's catalogue and values, for a reader's own language.
    public var message: NotificationMessage? {
        get { messageJSON.flatMap { try? JSONValue(parsing: $0) }.flatMap { NotificationMessage(json: $0) } }
        set { messageJSON = newValue.map { $0.json.serialized() } }
    }

    /// The entry as JSON, for the CLI and the API.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "id": .integer(id), "plugin": .string(plugin), "key": .string(key), "recipient": .string(recipient),
            "title": .string(title), "body": .string(body), "payload": payload,
            "dueAt": .string(dueAt.formatted(.iso8601)), "deliveredAt": .string(deliveredAt.formatted(.iso8601)),
            "late": .bool(late), "priority": .string(priority.rawValue),
        ]
        if let text = messageJSON, let message = try? JSONValue(parsing: text) { object["message"] = message }
        if let readAt { object["readAt"] = .string(readAt.formatted(.iso8601)) }
        return .object(object)
    }
}

