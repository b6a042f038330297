import Foundation

/// Notifications the host keeps and delivers for a plugin, granted as the `notifications` capability.
///
/// The host persists every schedule, fires it on its clock (system or virtual), and delivers each
/// occurrence exactly once per recipient through the deployment's sinks (the host's inbox, a
/// webhook, the log). Delivery does not need the plugin loaded at that moment, and what fell due
/// while the host was down is delivered when it comes back, marked late.
///
/// ```swift
/// let notifications = try context.capability(.notifications)
/// try await notifications.schedule(NotificationRequest(
///     key: "weekly-review", title: "Weekly review", body: "Ten minutes for the week behind you.",
///     schedule: .recurring(rule: "FREQ=WEEKLY;BYDAY=FR;BYHOUR=8;BYMINUTE=0",
///                          startingAt: programmeStart, timeZone: "Europe/Prague")))
/// ```
public protocol PluginNotifications: Sendable {
    /// Schedules a notification. Scheduling again with the same ``NotificationRequest/key``
    /// replaces the earlier one; it never adds a second.
    ///
    /// - Throws: ``PluginError`` with code `invalidInput` for a recurrence rule or time zone the
    ///   host cannot read (the message names the part at fault).
    func schedule(_ notification: NotificationRequest) async throws

    /// Cancels the notification with this key, and any occurrences of it not delivered yet.
    /// Cancelling an unknown key is not an error.
    func cancel(key: String) async throws

    /// This plugin's notifications that still have an occurrence to deliver, soonest first.
    func pending() async throws -> [PendingNotification]
}

extension CapabilityKey where Value == any PluginNotifications {
    /// Notifications delivered by the host.
    public static var notifications: CapabilityKey<any PluginNotifications> { .init("notifications") }
}

/// A notification a plugin asks the host to deliver.
public struct NotificationRequest: Sendable, Hashable {
    /// The dedupe key: identifies the notification among this plugin's; scheduling the same key
    /// again replaces it.
    public var key: String
    /// The title, one line.
    public var title: String
    /// The body text.
    public var body: String
    /// Data for the receiving app (e.g. which screen to open).
    public var payload: JSONValue
    /// Who receives it.
    public var recipient: NotificationRecipient
    /// When it is delivered.
    public var schedule: NotificationSchedule

    /// Creates a request, addressed to the plugin's user unless `recipient` says otherwise.
    public init(key: String, title: String, body: String, payload: JSONValue = .null,
                recipient: NotificationRecipient = .user, schedule: NotificationSchedule) {
        self.key = key
        self.title = title
        self.body = body
        self.payload = payload
        self.recipient = recipient
        self.schedule = schedule
    }
}

/// Who receives a notification.
public enum NotificationRecipient: Sendable, Hashable {
    /// The person this host serves.
    case user
    /// Every member of a shared space, on each of their devices, relayed through the hub (the
    /// person this host serves included): its id, a lowercase UUID. Needs the `spaces` permission
    /// and the plugin to sync.
    case space(String)
    /// Every member of a shared space but the person this host serves (SDK 1.4; an alert about the
    /// traveller need not wake the traveller's own phone).
    case spaceOthers(String)
}

/// When a notification is delivered.
public enum NotificationSchedule: Sendable, Hashable {
    /// Once, at an instant.
    case at(Date)
    /// On every occurrence of an RFC 5545 recurrence rule (`FREQ=…;…`, without the `RRULE:`
    /// prefix), counted from `startingAt` and evaluated in the IANA time zone `timeZone`, so that
    /// "every Friday at 08:00 Europe/Prague" stays at 08:00 local time across daylight-saving
    /// changes. Supported parts: FREQ (DAILY, WEEKLY, MONTHLY, YEARLY), INTERVAL, COUNT, UNTIL,
    /// BYDAY (with ordinals such as `2TU`, `-1FR`), BYMONTHDAY (negative counts from the month's
    /// end), BYMONTH, BYHOUR, BYMINUTE. Parts the rule leaves out take their value from `startingAt`.
    case recurring(rule: String, startingAt: Date, timeZone: String)
}

/// A scheduled notification with its next occurrence.
public struct PendingNotification: Sendable, Hashable {
    /// The notification as scheduled.
    public var request: NotificationRequest
    /// When it is next delivered.
    public var nextAt: Date

    /// Creates a pending notification.
    public init(request: NotificationRequest, nextAt: Date) {
        self.request = request
        self.nextAt = nextAt
    }
}
