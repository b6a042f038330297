import Foundation
import TesseraSDK

/// The reminders the issue lists, each switchable, most with a lead time: before a class (off by
/// default), before an exam one is registered for, registration opening and closing for terms one
/// is not registered for, the unregistering deadline of one's terms, a new term, a new grade, and
/// the ticket expiring soon. Each has a dedupe key; ``reschedule(exams:)`` brings the schedules in
/// line with what was last read, cancelling those that no longer apply (a term registered for, a
/// term gone).
struct Reminders: Sendable {
    let student: Student
    let notifications: (any PluginNotifications)?
    var store: Store { student.store }

    enum Kind: String, CaseIterable, Sendable {
        case classBefore, examBefore, registrationOpens, registrationCloses, unregisterDeadline, newTerm, newGrade, ticketExpiring

        var defaultOn: Bool { self != .classBefore }
        /// Minutes before the moment; 0 for those that are news (new term, new grade).
        var defaultLead: Int {
            switch self {
            case .classBefore: 15
            case .examBefore, .registrationCloses, .unregisterDeadline: 1440
            case .registrationOpens, .newTerm, .newGrade: 0
            case .ticketExpiring: 4320
            }
        }
        /// The prefix of its notifications' keys.
        var key: String { "stag:\(rawValue):" }
    }

    struct Setting: Codable, Sendable { var enabled: Bool; var leadMinutes: Int }

    func settings() async throws -> [Kind: Setting] {
        var all: [Kind: Setting] = [:]
        for kind in Kind.allCases { all[kind] = Setting(enabled: kind.defaultOn, leadMinutes: kind.defaultLead) }
        for row in try await store.storage.query("SELECT id, value FROM settings WHERE id LIKE 'notify:%'") {
            guard let kind = Kind(rawValue: String((row["id"].text ?? "").dropFirst("notify:".count))),
                  let data = row["value"].text?.data(using: .utf8), let setting = try? JSONDecoder().decode(Setting.self, from: data) else { continue }
            all[kind] = setting
        }
        return all
    }

    func status() async throws -> JSONValue {
        let settings = try await settings()
        var pending: [String: JSONValue] = [:]
        for item in try await notifications?.pending() ?? [] { pending[item.request.key] = .string(ISO.utc(item.nextAt)) }
        return ["settings": .object(Dictionary(uniqueKeysWithValues: settings.map { ($0.key.rawValue, ["enabled": .bool($0.value.enabled),
                                                                                                         "leadMinutes": .integer(Int64($0.value.leadMinutes))]) })),
                "pending": .object(pending)]
    }

    /// Changes some kinds' switches or lead times, then reschedules from the cached data.
    func configure(_ changes: [String: JSONValue]) async throws -> JSONValue {
        var settings = try await settings()
        for (name, change) in changes {
            guard let kind = Kind(rawValue: name) else {
                throw PluginError(.invalidInput, "'\(name)' is not a reminder: \(Kind.allCases.map(\.rawValue).joined(separator: ", "))", field: "$.\(name)")
            }
            if let on = change["enabled"]?.boolValue { settings[kind]?.enabled = on }
            if let lead = change["leadMinutes"]?.integerValue {
                guard (0...43_200).contains(lead) else { throw PluginError(.invalidInput, "a lead time is 0–43200 minutes (30 days)", field: "$.\(name).leadMinutes") }
                settings[kind]?.leadMinutes = Int(lead)
            }
        }
        try await store.storage.write { batch in
            for (kind, setting) in settings {
                let text = String(decoding: (try? JSONEncoder().encode(setting)) ?? Data(), as: UTF8.self)
                batch.put("settings", id: "notify:\(kind.rawValue)", ["value": .text(text)])
            }
        }
        let exams = try await store.storage.query("SELECT body FROM cache WHERE id = 'exams'").first?["body"].text.flatMap { try? JSONValue(parsing: $0) }
        try await reschedule(exams: exams ?? [])
        return try await status()
    }

    /// Schedules the reminders of `exams` (the mapped terms), the classes of the next seven days
    /// when that reminder is on, and the ticket's expiry.
    func reschedule(exams: JSONValue) async throws {
        guard let notifications else { return }
        let settings = try await settings(), now = store.clock.now()
        var wanted: [String: NotificationRequest] = [:]
        func add(_ kind: Kind, _ id: String, at moment: Date?, _ title: String, _ body: String, _ payload: JSONValue) {
            guard let moment, let setting = settings[kind], setting.enabled else { return }
            let at = moment.addingTimeInterval(-Double(setting.leadMinutes) * 60)
            guard at > now else { return }
            wanted[kind.key + id] = NotificationRequest(key: kind.key + id, title: title, body: body, payload: payload, schedule: .at(at))
        }
        for term in exams.arrayValue ?? [] {
            guard let id = term["termId"]?.integerValue.map(String.init) else { continue }
            let name = term["subjectName"]?.stringValue ?? term["subject"]?.stringValue ?? ""
            let when = term["start"]?.stringValue ?? ""
            let payload: JSONValue = ["termId": term["termId"] ?? .null, "subject": term["subject"] ?? .null]
            if term["registered"]?.boolValue == true {
                add(.examBefore, id, at: Self.date(term["start"]), "Exam: \(name)", "\(when)\(term["room"]?.stringValue.map { ", \($0)" } ?? "")", payload)
                add(.unregisterDeadline, id, at: Self.date(term["unregisterBy"]), "Last chance to unregister: \(name)", "Until \(term["unregisterBy"]?.stringValue ?? "")", payload)
            } else {
                add(.registrationOpens, id, at: Self.date(term["registerFrom"]), "Registration opens: \(name)", "Term \(when)", payload)
                add(.registrationCloses, id, at: Self.date(term["registerBy"]), "Registration closes: \(name)", "Term \(when); until \(term["registerBy"]?.stringValue ?? "")", payload)
            }
        }
        if settings[.classBefore]?.enabled == true { try await addClasses(into: &wanted, settings[.classBefore]!, now: now) }
        if let expires = try await store.setting("ticketExpires").flatMap(ISO.parseUTC) {
            add(.ticketExpiring, "ticket", at: expires, "IS/STAG login expires soon", "Log in again before \(ISO.prague(expires)) to keep your data fresh.", [:])
        }
        for request in wanted.values { try await notifications.schedule(request) }
        let managed = Set([Kind.classBefore, .examBefore, .registrationOpens, .registrationCloses, .unregisterDeadline, .ticketExpiring].map(\.key))
        for item in try await notifications.pending() where wanted[item.request.key] == nil {
            if managed.contains(where: { item.request.key.hasPrefix($0) }) { try await notifications.cancel(key: item.request.key) }
        }
    }

    /// One reminder per class in the next seven days (this week's and next week's timetable).
    private func addClasses(into wanted: inout [String: NotificationRequest], _ setting: Setting, now: Date) async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = ISO.prague
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        for offset: TimeInterval in [0, 7 * 86_400] {
            let week = try? await student.timetable(TimetableInput(date: ISO.day(now.addingTimeInterval(offset)), day: nil))
            for event in week?["data"]?["events"]?.arrayValue ?? [] {
                guard let day = event["date"]?.stringValue, let start = event["start"]?.stringValue,
                      let moment = formatter.date(from: "\(day) \(start.prefix(5))"), moment > now, moment < now.addingTimeInterval(7 * 86_400) else { continue }
                let at = moment.addingTimeInterval(-Double(setting.leadMinutes) * 60)
                guard at > now else { continue }
                let key = Kind.classBefore.key + "\(day)T\(start.prefix(5))/\(event["subject"]?.stringValue ?? "")"
                wanted[key] = NotificationRequest(key: key, title: "\(event["subjectName"]?.stringValue ?? "Class") at \(start.prefix(5))",
                                                  body: "\(event["kind"]?.stringValue ?? ""), \(event["room"]?.stringValue ?? "")", schedule: .at(at))
            }
        }
    }

    static func date(_ value: JSONValue?) -> Date? {
        value?.stringValue.flatMap { ISO8601DateFormatter().date(from: $0) }
    }
}
