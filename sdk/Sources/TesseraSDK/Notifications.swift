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
    /// How urgently it asks for attention (SDK 1.8); every sink carries it.
    public var priority: NotificationPriority = .normal
    /// The same text as a key of the plugin's message catalogue and typed values (SDK 1.8), so
    /// that each reader sees it in their own language and time zone. ``title`` and ``body`` stay:
    /// they are what a sink that cannot render the message (a webhook, an e-mail, a reader whose
    /// language the catalogue lacks) shows.
    public var message: NotificationMessage?

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

    /// Creates a request with a priority and a catalogue message (SDK 1.8).
    ///
    /// ```swift
    /// NotificationRequest(
    ///     key: "overdue-\(trip.id)", title: "Radka has not arrived", body: "She was due at 22:30.",
    ///     message: NotificationMessage("alert.overdue", ["name": .text("Radka"), "due": .instant(eta)]),
    ///     priority: .critical, recipient: .spaceOthers(space), schedule: .at(eta))
    /// ```
    public init(key: String, title: String, body: String, message: NotificationMessage?, priority: NotificationPriority,
                payload: JSONValue = .null, recipient: NotificationRecipient = .user, schedule: NotificationSchedule) {
        self.init(key: key, title: title, body: body, payload: payload, recipient: recipient, schedule: schedule)
        self.message = message
        self.priority = priority
    }
}

/// How urgently a notification asks for a person's attention (SDK 1.8).
///
/// The host carries it to every sink: the inbox and its stream (the console shows it), webhooks
/// (a `priority` field), the hub's relay to a space's members, and the members' own channels (an
/// e-mail's subject and importance). A phone app maps it to its platform's levels (on iOS
/// `critical` and `timeSensitive` interruption levels; on Android a high-importance channel).
public enum NotificationPriority: String, Sendable, Hashable, CaseIterable {
    /// Tells the person something; it can wait until they look.
    case normal
    /// Asks for an answer soon, such as a check-in prompt: shown at once, above normal ones.
    case timeSensitive = "time-sensitive"
    /// Someone may need help now, such as an SOS or a missed arrival: the loudest the sink allows.
    case critical
}

/// A notification's text as a key of the plugin's message catalogue and typed values (SDK 1.8).
///
/// The console looks up `<key>.title` and `<key>.body` in the catalogue beside the plugin's page
/// (`ui/messages/<language>.json`, docs/console.md), fills `{name}` placeholders from ``values``
/// and formats each value for the reader: an instant as a time in the reader's time zone, a
/// distance in km or m, a number with the reader's separators. Where the catalogue has no such key
/// the request's own title and body are shown.
public struct NotificationMessage: Sendable, Hashable {
    /// The catalogue key, without the `.title` / `.body` suffix: `alert.overdue`.
    public var key: String
    /// The values the catalogue's `{name}` placeholders take.
    public var values: [String: NotificationValue]

    /// Creates a message: a catalogue key and its placeholders' values.
    public init(_ key: String, _ values: [String: NotificationValue] = [:]) {
        self.key = key
        self.values = values
    }
}

/// One value of a ``NotificationMessage``, typed so that each reader sees it formatted their way.
public enum NotificationValue: Sendable, Hashable {
    /// Text shown as it is: a name, a place.
    case text(String)
    /// A number, shown with the reader's separators.
    case number(Double)
    /// An instant, shown as a time (and the date, when it is not today) in the reader's time zone.
    case instant(Date)
    /// A calendar day, `yyyy-MM-dd`, shown as the reader writes dates.
    case day(String)
    /// A distance in metres, shown in m or km.
    case meters(Double)
    /// A duration in seconds, shown in minutes, hours or days.
    case seconds(Double)
}

extension NotificationMessage {
    /// The JSON form every sink carries: `{"key": …, "values": {name: {"text": …} | {"number": …} |
    /// {"instant": milliseconds since 1970} | {"day": "yyyy-MM-dd"} | {"meters": …} | {"seconds": …}}}`.
    /// Host-only (the inbox, the hub and the process tier keep it), hence SPI.
    @_spi(TesseraHost)
    public var json: JSONValue {
        var values: [String: JSONValue] = [:]
        for (name, value) in self.values {
            switch value {
            case .text(let text): values[name] = ["text": .string(text)]
            case .number(let number): values[name] = ["number": .number(number)]
            case .instant(let date): values[name] = ["instant": .integer(Int64((date.timeIntervalSince1970 * 1000).rounded()))]
            case .day(let day): values[name] = ["day": .string(day)]
            case .meters(let meters): values[name] = ["meters": .number(meters)]
            case .seconds(let seconds): values[name] = ["seconds": .number(seconds)]
            }
        }
        return ["key": .string(key), "values": .object(values)]
    }

    /// Reads the JSON form back; `nil` for anything else (a message is never worth failing a
    /// delivery for: the title and body remain).
    @_spi(TesseraHost)
    public init?(json: JSONValue?) {
        guard let json, let key = json["key"]?.stringValue, !key.isEmpty else { return nil }
        var values: [String: NotificationValue] = [:]
        for (name, value) in json["values"]?.objectValue ?? [:] {
            if let text = value["text"]?.stringValue { values[name] = .text(text) }
            else if let number = value["number"]?.doubleValue { values[name] = .number(number) }
            else if let millis = value["instant"]?.doubleValue { values[name] = .instant(Date(timeIntervalSince1970: millis / 1000)) }
            else if let day = value["day"]?.stringValue { values[name] = .day(day) }
            else if let meters = value["meters"]?.doubleValue { values[name] = .meters(meters) }
            else if let seconds = value["seconds"]?.doubleValue { values[name] = .seconds(seconds) }
            else { return nil }
        }
        self.init(key, values)
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
