import Foundation
import TesseraSDK

/// The reminders the issue lists, each switchable, most with a lead time: before a class (off by
/// default), before an exam one is registered for, registration opening and closing for terms one
/// is not registered for, the unregistering deadline of one's terms, a new term, a new grade, and
/// the ticket expiring soon, and a note's due day (spec §7.1 (j)). Each has a dedupe key; ``reschedule(exams:)`` brings the schedules in
/// line with what was last read, cancelling those that no longer apply (a term registered for, a
/// term gone).
struct Reminders: Sendable {
    let student: Student
    let notifications: (any PluginNotifications)?
    var store: Store { student.store }

    enum Kind: String, CaseIterable, Sendable {
        case classBefore, examBefore, examSoon, registrationOpens, registrationCloses, unregisterDeadline, newTerm, newGrade, ticketExpiring, loginExpired
        /// A note's day: its moment is 8:00 that morning in Prague (``ReminderPlan/noteMorning``),
        /// so the default lead of a day says it the morning before.
        case noteDue

        var defaultOn: Bool { self != .classBefore }
        /// Minutes before the moment; 0 for those that are news (new term, new grade).
        var defaultLead: Int {
            switch self {
            case .classBefore: 15
            case .examBefore, .registrationCloses, .unregisterDeadline, .noteDue: 1440
            case .examSoon: 120
            case .registrationOpens, .newTerm, .newGrade, .loginExpired: 0
            case .ticketExpiring: 4320
            }
        }
        /// A deadline or a login that needs the person soon is time-sensitive; the rest can wait.
        var priority: NotificationPriority {
            switch self {
            case .registrationCloses, .unregisterDeadline, .ticketExpiring, .loginExpired, .examSoon: .timeSensitive
            case .classBefore, .examBefore, .registrationOpens, .newTerm, .newGrade, .noteDue: .normal
            }
        }
        /// The prefix of its notifications' keys.
        var key: String { "stag:\(rawValue):" }
    }

    struct Setting: Codable, Sendable { var enabled: Bool; var leadMinutes: Int }

    func settings() async throws -> [Kind: Setting] { try await Self.settings(in: store) }

    /// Each kind's switch and lead: the defaults, overridden by the `notify:<kind>` settings rows.
    static func settings(in store: Store) async throws -> [Kind: Setting] {
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
        // Encoded before the write: a setting that cannot be encoded fails the call, never
        // stores an empty value.
        let texts = try settings.map { kind, setting in (kind, String(decoding: try JSONEncoder().encode(setting), as: UTF8.self)) }
        try await store.storage.write { batch in
            for (kind, text) in texts {
                batch.put("settings", id: "notify:\(kind.rawValue)", ["value": .text(text)])
            }
        }
        try await rescheduleFromCache()
        return try await status()
    }

    /// Reschedules from the exam terms last cached (after a settings change, a registration, a
    /// note saved or deleted).
    func rescheduleFromCache() async throws {
        try await reschedule(exams: try await store.cached("exams") ?? [])
    }

    /// The kinds whose reminders ``reschedule(exams:)`` owns: it cancels theirs that no longer apply.
    /// (News, a new term or grade, is announced once and left alone.)
    static let planned: [Kind] = [.classBefore, .examBefore, .examSoon, .registrationOpens, .registrationCloses, .unregisterDeadline, .ticketExpiring, .noteDue]

    /// Brings the host's schedule in line with `exams` (the mapped terms), the classes of the next
    /// seven days when that reminder is on, and the ticket's expiry. A reminder still pending whose
    /// time has come is kept: it is delivered, not lost to the refresh that runs at the same moment.
    func reschedule(exams: JSONValue) async throws {
        guard let notifications else { return }
        var plan = ReminderPlan(settings: try await settings(), now: store.clock.now())
        plan.addExams(exams)
        // Classes that could not be read (IS/STAG unreachable and no kept week) leave the class
        // reminders as they are: taken for "no classes", they would all be cancelled.
        var classesUnknown = false
        if plan.settings[.classBefore]?.enabled == true {
            if let classes = await classesOfTheNextSevenDays() { plan.addClasses(classes) } else { classesUnknown = true }
        }
        // The notes are the logged-in person's; logged out there are none to read, and logging out
        // cancelled their reminders already.
        let notes = try? await Notes(store: store).list(subject: nil)
        if let notes { plan.addNotes(notes) }
        // An expired ticket (IS/STAG answered 401) needs no "expires soon": the person was told it expired.
        if try await store.setting("ticketExpiredAt") == nil, let expires = try await store.setting("ticketExpires").flatMap(ISO.parseUTC) {
            plan.add(.ticketExpiring, "ticket", at: expires, "IS/STAG login expires soon",
                     "Log in again before \(ISO.prague(expires)) to keep your data fresh.",
                     NotificationMessage("notify.ticketExpiring", ["expires": .instant(expires)]))
        }
        let pending = try await notifications.pending()
        let current = Dictionary(pending.map { ($0.request.key, $0.request) }, uniquingKeysWith: { first, _ in first })
        for request in plan.wanted.values where current[request.key] != request { try await notifications.schedule(request) }
        let owned = Self.planned.filter { !(classesUnknown && $0 == .classBefore) && !(notes == nil && $0 == .noteDue) }.map(\.key)
        for item in pending where !plan.keeps(item.request.key) && owned.contains(where: { item.request.key.hasPrefix($0) }) {
            try await notifications.cancel(key: item.request.key)
        }
    }

    /// Cancels every reminder and announcement of this module (logout: they were the last person's).
    func cancelAll() async throws {
        guard let notifications else { return }
        for item in try await notifications.pending() where item.request.key.hasPrefix("stag:") {
            try await notifications.cancel(key: item.request.key)
        }
    }

    /// The classes of this week and next (the student's and, for a teacher, the teacher's); `nil`
    /// when the student's timetable could not be read. (The teacher's is `nil` for a person who
    /// is not a teacher, so its failure counts as no classes.)
    private func classesOfTheNextSevenDays() async -> [JSONValue]? {
        let now = store.clock.now()
        var events: [JSONValue] = []
        for offset: TimeInterval in [0, 7 * 86_400] {
            let input = TimetableInput(date: ISO.day(now.addingTimeInterval(offset)), day: nil)
            guard let week = try? await student.timetable(input) else { return nil }
            events += week["data"]?["events"]?.arrayValue ?? []
            let teaching = try? await Teacher(student: student).timetable(input)
            events += teaching?["data"]?["events"]?.arrayValue ?? []
        }
        return events
    }
}
