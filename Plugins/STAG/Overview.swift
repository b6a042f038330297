import Foundation
import TesseraSDK

/// The person's day (spec §5.1.3, the "Přehled" screen): today's date and week parity, the
/// current or next classes (at most two whose end is still ahead, with the count of today's and
/// whether the day is done), the exams one is registered for, the deadlines of the next seven days,
/// and the notes due within a week (overdue ones included). A person with both roles sees the
/// classes they attend and those they teach together, each marked with its `role`.
struct Overview: Sendable {
    let student: Student
    var store: Store { student.store }

    /// How far ahead deadlines and notes are shown.
    static let horizonDays = 7

    func overview() async throws -> JSONValue {
        let now = store.clock.now()
        let hasStudent = try await store.setting("osCislo") != nil, hasTeacher = try await store.setting("ucitIdno") != nil
        guard hasStudent || hasTeacher else { throw STAGFailure.notLoggedIn.pluginError }
        var reads: [JSONValue] = []
        var classes: [JSONValue] = []
        let today = TimetableInput(date: ISO.day(now), day: true)
        if hasStudent, let read = try? await student.timetable(today) { reads.append(read); classes += Self.marked(read, role: "student") }
        if hasTeacher, let read = try? await Teacher(student: student).timetable(today) { reads.append(read); classes += Self.marked(read, role: "teacher") }
        classes.sort(by: Timetable.inOrder)
        let clock = ReminderPlan.wallClock
        let ahead = classes.filter { c in
            guard let day = c["date"]?.stringValue, let end = c["end"]?.stringValue ?? c["start"]?.stringValue,
                  let moment = clock.date(from: "\(day) \(end.prefix(5))") else { return true }
            return moment > now
        }
        var exams: [JSONValue] = [], deadlines: [JSONValue] = []
        if hasStudent, let read = try? await student.exams() {
            reads.append(read)
            (exams, deadlines) = Self.examsAndDeadlines(read["data"]?.arrayValue ?? [], now: now)
        }
        let (week, parity) = Timetable.weekAndParity(of: now)
        let notes = try await dueNotes()
        var answer = Store.combined(reads, data: [
            "date": .string(ISO.day(now)), "week": .integer(Int64(week)), "parity": .string(parity),
            "classes": .array(Array(ahead.prefix(2))), "todayCount": .integer(Int64(classes.count)),
            "doneForToday": .bool(!classes.isEmpty && ahead.isEmpty),
            "exams": .array(exams), "deadlines": .array(deadlines), "notes": notes,
        ])
        if reads.isEmpty { answer[set: "stale"] = true; answer[set: "reason"] = "unavailable" }
        return answer
    }

    private static func marked(_ read: JSONValue, role: String) -> [JSONValue] {
        (read["data"]?["events"]?.arrayValue ?? []).map { var e = $0; e[set: "role"] = .string(role); return e }
    }

    /// The registered exams still ahead, and the deadlines within the horizon, soonest first.
    static func examsAndDeadlines(_ terms: [JSONValue], now: Date) -> ([JSONValue], [JSONValue]) {
        let horizon = now.addingTimeInterval(Double(horizonDays) * 86_400)
        var exams: [JSONValue] = [], deadlines: [JSONValue] = []
        func deadline(_ kind: String, _ term: JSONValue, _ key: String) {
            guard let text = term[key]?.stringValue, let at = ReminderPlan.date(term[key]), at > now, at <= horizon else { return }
            deadlines.append(["kind": .string(kind), "at": .string(text), "termId": term["termId"] ?? .null,
                              "subject": term["subject"] ?? .null, "subjectName": term["subjectName"] ?? .null, "start": term["start"] ?? .null])
        }
        for term in terms {
            if term["status"]?.stringValue == "registered" {
                if let start = ReminderPlan.date(term["start"]), start > now { exams.append(term) }
                if term["canUnregister"]?.boolValue == true { deadline("unregisterDeadline", term, "unregisterBy") }
            } else if term["status"]?.stringValue == "open" {
                deadline("registrationCloses", term, "registerBy")
            } else if term["reasonCode"]?.stringValue == "not_open_yet" {
                deadline("registrationOpens", term, "registerFrom")
            }
        }
        let byStart = { (key: String) in
            { (a: JSONValue, b: JSONValue) in (ReminderPlan.date(a[key]) ?? .distantFuture) < (ReminderPlan.date(b[key]) ?? .distantFuture) }
        }
        return (exams.sorted(by: byStart("start")), deadlines.sorted(by: byStart("at")))
    }

    /// The person's dated notes due within the horizon, overdue ones included.
    private func dueNotes() async throws -> JSONValue {
        guard let notes = try? await Notes(store: store).list(subject: nil).arrayValue else { return [] }
        return .array(notes.filter { ($0["daysRemaining"]?.integerValue).map { $0 <= Int64(Self.horizonDays) } ?? false })
    }
}
