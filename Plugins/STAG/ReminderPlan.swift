import Foundation
import TesseraSDK

/// The reminders that the last-read data asks for, by key: what ``Reminders/reschedule(exams:)``
/// brings the host's schedule in line with.
///
/// A reminder whose time (its moment less the lead) is already past is not scheduled anew, but it
/// is remembered in ``due``: if the host still holds it undelivered (it fell due at this very moment,
/// or while the host was down), it is kept and delivered, never cancelled as "no longer wanted".
struct ReminderPlan {
    let settings: [Reminders.Kind: Reminders.Setting]
    let now: Date
    /// Reminders to schedule (their time is still ahead).
    private(set) var wanted: [String: NotificationRequest] = [:]
    /// Reminders that still apply but whose time has come: kept if pending, not scheduled again.
    private(set) var due: Set<String> = []

    init(settings: [Reminders.Kind: Reminders.Setting], now: Date) {
        self.settings = settings
        self.now = now
    }

    /// Plans the reminder `kind`/`id` at `moment` less the kind's lead, if the kind is switched on.
    mutating func add(_ kind: Reminders.Kind, _ id: String, at moment: Date?, _ title: String, _ body: String, _ message: NotificationMessage,
                      _ payload: JSONValue = [:]) {
        guard let moment, let setting = settings[kind], setting.enabled else { return }
        let key = kind.key + id
        let at = moment.addingTimeInterval(-Double(setting.leadMinutes) * 60)
        guard at > now else { due.insert(key); return }
        wanted[key] = NotificationRequest(key: key, title: title, body: body, message: message, priority: kind.priority,
                                          payload: payload, schedule: .at(at))
    }

    /// Whether a pending notification with `key` should stay: it is planned, or it still applies and is due.
    func keeps(_ key: String) -> Bool { wanted[key] != nil || due.contains(key) }

    /// The reminders of the exam terms (mapped, as `exams` answers them): before an exam one is
    /// registered for and its unregistering deadline; registration opening and closing of the others.
    mutating func addExams(_ exams: JSONValue) {
        for term in exams.arrayValue ?? [] {
            guard let id = term["termId"]?.integerValue.map(String.init) else { continue }
            let name = term["subjectName"]?.stringValue ?? term["subject"]?.stringValue ?? ""
            let when = Self.spoken(term["start"])
            let payload: JSONValue = ["termId": term["termId"] ?? .null, "subject": term["subject"] ?? .null]
            let start = Self.value(term["start"])
            if term["registered"]?.boolValue == true {
                let room = term["room"]?.stringValue
                var exam: [String: NotificationValue] = ["name": .text(name), "at": start]
                exam["room"] = room.map { .text($0) }
                // Two reminders, as the spec asks: a day before (to prepare) and two hours before (to go).
                for kind in [Reminders.Kind.examBefore, .examSoon] {
                    add(kind, id, at: Self.date(term["start"]), "Exam: \(name)", "\(when)\(room.map { ", \($0)" } ?? "")",
                        NotificationMessage(room == nil ? "notify.exam" : "notify.examInRoom", exam), payload)
                }
                add(.unregisterDeadline, id, at: Self.date(term["unregisterBy"]), "Last chance to unregister: \(name)",
                    "Until \(Self.spoken(term["unregisterBy"]))",
                    NotificationMessage("notify.unregisterDeadline", ["name": .text(name), "until": Self.value(term["unregisterBy"])]), payload)
            } else {
                add(.registrationOpens, id, at: Self.date(term["registerFrom"]), "Registration opens: \(name)", "Term \(when)",
                    NotificationMessage("notify.registrationOpens", ["name": .text(name), "at": start]), payload)
                add(.registrationCloses, id, at: Self.date(term["registerBy"]), "Registration closes: \(name)",
                    "Term \(when); until \(Self.spoken(term["registerBy"]))",
                    NotificationMessage("notify.registrationCloses", ["name": .text(name), "at": start, "until": Self.value(term["registerBy"])]), payload)
            }
        }
    }

    /// One reminder per note with a day (as `notes` lists them), at 8:00 that morning in Prague
    /// less the lead: by default the morning before, "today or tomorrow" as the spec asks (§7.1 (j)).
    mutating func addNotes(_ notes: JSONValue) {
        for note in notes.arrayValue ?? [] {
            guard let id = note["id"]?.stringValue, let day = note["day"]?.stringValue,
                  let morning = Self.wallClock.date(from: "\(day) \(Self.noteMorning)") else { continue }
            let title = note["title"]?.stringValue ?? ""
            add(.noteDue, id, at: morning, "Note due: \(title)", "Due \(Self.spokenDay(morning))",
                NotificationMessage("notify.noteDue", ["title": .text(title), "day": .day(day)]), ["noteId": .string(id)])
        }
    }

    /// The time of day a note's day begins for its reminder.
    static let noteMorning = "08:00"

    /// One reminder per class of `events` (a timetable's events) in the next seven days.
    mutating func addClasses(_ events: [JSONValue]) {
        guard let setting = settings[.classBefore], setting.enabled else { return }
        let clock = Self.wallClock
        for event in events {
            guard let day = event["date"]?.stringValue, let start = event["start"]?.stringValue,
                  let moment = clock.date(from: "\(day) \(start.prefix(5))"),
                  moment > now, moment < now.addingTimeInterval(7 * 86_400) else { continue }
            let kind = ClassKind(event["kindShort"]?.stringValue)
            add(.classBefore, "\(day)T\(start.prefix(5))/\(event["subject"]?.stringValue ?? "")", at: moment,
                "\(event["subjectName"]?.stringValue ?? "Class") at \(start.prefix(5))",
                "\(kind?.english ?? event["kind"]?.stringValue ?? ""), room \(event["room"]?.stringValue ?? "")",
                NotificationMessage(kind?.messageKey ?? "notify.class",
                                    ["subject": .text(event["subjectName"]?.stringValue ?? event["subject"]?.stringValue ?? ""),
                                     "at": .instant(moment), "kind": .text(event["kind"]?.stringValue ?? ""),
                                     "room": .text(event["room"]?.stringValue ?? "")]))
        }
    }

    /// The kinds of class every IS/STAG knows, by the short code it sends (`typAkceZkr`): each has
    /// its own message, so a reader sees "Lecture" in their language rather than IS/STAG's Czech
    /// "Přednáška". A kind a university added itself keeps IS/STAG's own name (`notify.class`).
    enum ClassKind: String {
        case lecture = "Př", practical = "Cv", seminar = "Se"

        init?(_ code: String?) {
            guard let code, let kind = ClassKind(rawValue: code) else { return nil }
            self = kind
        }

        var messageKey: String { "notify.\(self)" }

        /// The English title's word (webhooks and e-mail).
        var english: String {
            switch self {
            case .lecture: "Lecture"
            case .practical: "Practical class"
            case .seminar: "Seminar"
            }
        }
    }

    /// A moment as the English text says it, in Prague time: "Tue 24 Mar 10:00" (the readers'
    /// own language and zone come from the message; this is for webhooks and e-mail). Text that
    /// is no moment stays as it came.
    static func spoken(_ value: JSONValue?) -> String {
        guard let text = value?.stringValue else { return "" }
        guard let moment = date(value) else { return text }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = ISO.prague
        formatter.dateFormat = "EEE d MMM HH:mm"
        return formatter.string(from: moment)
    }

    /// A day as the English text says it: "Thu 5 Mar".
    static func spokenDay(_ moment: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = ISO.prague
        formatter.dateFormat = "EEE d MMM"
        return formatter.string(from: moment)
    }

    /// `yyyy-MM-dd HH:mm` in Prague.
    static var wallClock: DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = ISO.prague
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter
    }

    static func date(_ value: JSONValue?) -> Date? {
        value?.stringValue.flatMap { ISO8601DateFormatter().date(from: $0) }
    }

    /// A mapped moment as a message value: an instant, or the text as it came if it does not parse.
    static func value(_ moment: JSONValue?) -> NotificationValue {
        date(moment).map { .instant($0) } ?? .text(moment?.stringValue ?? "")
    }
}
