import Foundation
import TesseraSDK

/// The refresh job: reads exam terms and grades, and for each one not seen before notifies (one
/// notification per key) and emits `exam-upcoming` / `grade-published`. The first run after a
/// login records what is there without announcing it, so a login does not flood the inbox.
struct Refresher: Sendable {
    let student: Student
    let notifications: (any PluginNotifications)?
    let emitsEvents: Bool
    var reminders: Reminders { Reminders(student: student, notifications: notifications) }

    /// `exam-upcoming`'s payload: `{termId, subject, subjectName, start, room?, registered}`.
    static func examEvent(_ term: JSONValue) -> JSONValue {
        var payload: [String: JSONValue] = ["termId": term["termId"] ?? .null, "subject": term["subject"] ?? .null,
                                            "subjectName": term["subjectName"] ?? .null, "start": term["start"] ?? .null,
                                            "registered": term["registered"] ?? false]
        if let room = term["room"] { payload["room"] = room }
        return .object(payload)
    }

    func run() async throws -> JSONValue {
        let exams = try await student.exams()
        let grades = try await student.grades()
        if exams["stale"]?.boolValue == true || grades["stale"]?.boolValue == true {
            return ["newTerms": 0, "newGrades": 0, "stale": true, "reason": exams["reason"] ?? grades["reason"] ?? .null]
        }
        let storage = student.store.storage
        let seen = Set(try await storage.query("SELECT id FROM seen").compactMap { $0["id"].text })
        let baseline = !seen.contains("baseline")
        let now = ISO.utc(student.store.clock.now())
        var announcements: [(key: String, title: String, body: String, event: String, payload: JSONValue)] = []
        for term in exams["data"]?.arrayValue ?? [] {
            guard let id = term["termId"]?.integerValue, !seen.contains("term:\(id)") else { continue }
            announcements.append(("term:\(id)", "New exam term: \(term["subjectName"]?.stringValue ?? "")",
                                  "\(term["subject"]?.stringValue ?? "") on \(term["start"]?.stringValue ?? "")", "exam-upcoming", Self.examEvent(term)))
        }
        for grade in grades["data"]?.arrayValue ?? [] {
            let key = "grade:\(grade["subject"]?.stringValue ?? "")/\(grade["year"]?.stringValue ?? "")/\(grade["kind"]?.stringValue ?? "")/\(grade["attempt"]?.stringValue ?? "")/\(grade["grade"]?.stringValue ?? "")"
            guard !seen.contains(key) else { continue }
            let payload: JSONValue = ["subject": grade["subject"] ?? .null, "subjectName": grade["subjectName"] ?? .null,
                                      "grade": grade["grade"] ?? .null, "date": grade["date"] ?? .null]
            announcements.append((key, "New grade: \(grade["subjectName"]?.stringValue ?? "")",
                                  "\(grade["subject"]?.stringValue ?? ""): \(grade["grade"]?.stringValue ?? "")", "grade-published", payload))
        }
        // The seen marks and the events commit together, so a crash cannot announce twice or lose one.
        try await storage.write { batch in
            if baseline { batch.put("seen", id: "baseline", ["kind": .text("baseline"), "seen_at": .text(now)]) }
            for a in announcements {
                batch.put("seen", id: a.key, ["kind": .text(a.event), "seen_at": .text(now)])
                if !baseline && emitsEvents { batch.emit(a.event, a.payload) }
            }
        }
        let switches = try await reminders.settings()
        if !baseline, let notifications {
            for a in announcements where switches[a.event == "exam-upcoming" ? .newTerm : .newGrade]?.enabled != false {
                try await notifications.schedule(NotificationRequest(key: "stag:\(a.key)", title: a.title, body: a.body,
                                                                     payload: a.payload, schedule: .at(student.store.clock.now())))
            }
        }
        try await reminders.reschedule(exams: exams["data"] ?? [])
        let terms = announcements.filter { $0.event == "exam-upcoming" }.count
        return ["newTerms": .integer(Int64(baseline ? 0 : terms)), "newGrades": .integer(Int64(baseline ? 0 : announcements.count - terms)),
                "baseline": .bool(baseline), "stale": false]
    }
}
