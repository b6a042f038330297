import Foundation
import TesseraSDK

/// The module's state and its capabilities. Each feature is an extension in its own file
/// (Account, Guardians, SOS, Checkins, Trips, TripMonitors, Fixes, Alerts); every deadline is a
/// host timer computed from the records (Deadlines.swift), so that a restart, or a watching host
/// that receives the records by sync, arms the same timers and decides the same way.
final class Travel: Sendable {
    let storage: any PluginStorage
    let clock: any HostClock
    let notifications: (any PluginNotifications)?
    let spaces: (any PluginSpaces)?
    /// Trip photos (TripPhotos.swift); `nil` when the operator grants no files.
    let files: (any PluginFiles)?
    let config: TravelConfig
    let log: PluginLog

    init(storage: any PluginStorage, clock: any HostClock, notifications: (any PluginNotifications)?,
         spaces: (any PluginSpaces)?, files: (any PluginFiles)? = nil, config: TravelConfig, log: PluginLog) {
        self.storage = storage
        self.clock = clock
        self.notifications = notifications
        self.spaces = spaces
        self.files = files
        self.config = config
        self.log = log
    }

    var now: Date { clock.now() }

    /// A new record id: time-ordered, so new trips, check-ins and places sit side by side at the end
    /// of every index keyed by id (``RecordID``).
    func newID() -> String { RecordID.timeOrdered(at: clock.now()) }

    // MARK: Reading

    func rows(_ sql: String, _ parameters: [SQLValue] = []) async throws -> [Row] {
        try await storage.query(sql, parameters)
    }

    func row(_ sql: String, _ parameters: [SQLValue] = []) async throws -> Row? {
        try await storage.query(sql, parameters).first
    }

    /// The person this device serves: set up once with `account-setup`.
    struct Me: Sendable {
        var username: String
        var space: String
    }

    func me() async throws -> Me {
        guard let me = try await meIfSetUp() else {
            throw PluginError.refused(.notSetUp, "set up the account first (account-setup: username and PIN)")
        }
        return me
    }

    /// The account, or `nil` when none is set up. A storage error is thrown, not taken for "not set
    /// up": callers then set up again, skip an SOS timer or overwrite the account row.
    func meIfSetUp() async throws -> Me? {
        guard let row = try await row("SELECT username, space_id FROM account WHERE id = 'me'"),
              let name = row["username"].text, let space = row["space_id"].text else { return nil }
        return Me(username: name, space: space)
    }
}

// MARK: Times

/// Instants are stored as ISO 8601 UTC text with milliseconds: they sort as text and read back exactly.
enum Instant {
    static let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    static func text(_ date: Date) -> String { date.formatted(style) }

    /// "08:11 UTC on 2 March 2026": an instant in the English text of a notification, which
    /// webhooks and e-mails show as written. The traveller's host cannot know each reader's time
    /// zone, so the zone is said; the console shows the catalogue message in the reader's own.
    static func spoken(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        let hhmm = String(format: "%02d:%02d", c.hour ?? 0, c.minute ?? 0)
        return "\(hhmm) UTC on \(c.day ?? 1) \(months[(c.month ?? 1) - 1]) \(c.year ?? 1970)"
    }

    static func date(_ text: String?) -> Date? {
        guard let text, !text.isEmpty else { return nil }
        if let date = try? Date(text, strategy: style) { return date }
        return try? Date(text, strategy: .iso8601)
    }

    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}

extension Row {
    func date(_ column: String) -> Date? { Instant.date(self[column].text) }
    func string(_ column: String) -> String { self[column].text ?? "" }
    func double(_ column: String) -> Double? { self[column].real }
}

extension SQLValue {
    init(_ date: Date) { self = .text(Instant.text(date)) }
    init(_ double: Double?) { self = double.map { .real($0) } ?? .null }
    init(_ int: Int?) { self = int.map { .integer(Int64($0)) } ?? .null }
}

extension Optional {
    /// `map` with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
