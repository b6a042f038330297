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
    var store: Store { student.store }

    /// `exam-upcoming`'s payload: `{termId, subject, subjectName, start, room?, registered}`.
    static func examEvent(_ term: JSONValue) -> JSONValue {
        var payload: [String: JSONValue] = ["termId": term["termId"] ?? .null, "subject": term["subject"] ?? .null,
                                            "subjectName": term["subjectName"] ?? .null, "start": term["start"] ?? .null,
                                            "registered": term["registered"] ?? false]
        if let room = term["room"] { payload["room"] = room }
        return .object(payload)
    }

    /// The hourly job. Logged out, or with a ticket IS/STAG refused, there is nothing it can read:
    /// it does nothing (rather than fail, be retried and in the end be dropped) and the job keeps its
    /// hour, so the first hour after the next login refreshes again.
    func runScheduled() async throws -> JSONValue {
        guard try await student.client() != nil, try await store.setting("userName") != nil else { return ["skipped": "not_logged_in"] }
        if try await store.setting("ticketExpiredAt") != nil { return ["skipped": "ticket_expired"] }
        return try await run()
    }

    /// What a login reads at once (spec §2.2 and §7.3's initial sync): the profile, subjects,
    /// this week's and next week's timetable, then a refresh (exam terms and grades as the baseline,
    /// the reminders). For a teacher, their timetable and terms. A failure here does not undo the
    /// login: the answer says what could not be read, and the hourly job tries again.
    func initialSync() async -> JSONValue {
        do {
            let now = store.clock.now()
            let weeks = [0, 7 * 86_400.0].map { TimetableInput(date: ISO.day(now.addingTimeInterval($0)), day: nil) }
            if try await store.setting("osCislo") != nil {
                for read in [try await student.profile(), try await student.subjects()] where read["stale"]?.boolValue == true { return Self.failed(read) }
                for week in weeks { _ = try await student.timetable(week) }
            }
            if try await store.setting("ucitIdno") != nil {
                let teacher = Teacher(student: student)
                for week in weeks { _ = try await teacher.timetable(week) }
                let terms = try await teacher.exams()
                if terms["stale"]?.boolValue == true { return Self.failed(terms) }
            }
            let refreshed = try await run()
            if refreshed["stale"]?.boolValue == true { return Self.failed(refreshed) }
            return ["synced": true]
        } catch let error as PluginError {
            return ["synced": false, "reason": .string(error.message)]
        } catch {
            return ["synced": false, "reason": .string("\(error)")]
        }
    }

    private static func failed(_ read: JSONValue) -> JSONValue {
        ["synced": false, "reason": read["message"] ?? read["reason"] ?? "unavailable"]
    }

    /// One refresh: for a student, exam terms and grades (new ones announced); for a teacher, the
    /// terms they examine; then the reminders.
    func run() async throws -> JSONValue {
        guard try await store.setting("osCislo") != nil else {
            if try await store.setting("ucitIdno") == nil { throw STAGFailure.notLoggedIn.pluginError }
            let terms = try await Teacher(student: student).exams()
            try await reminders.reschedule(exams: [])
            return ["newTerms": 0, "newGrades": 0, "stale": terms["stale"] ?? false]
        }
        let exams = try await student.exams()
        let grades = try await student.grades()
        if exams["stale"]?.boolValue == true || grades["stale"]?.boolValue == true {
            return ["newTerms": 0, "newGrades": 0, "stale": true, "reason": exams["reason"] ?? grades["reason"] ?? .null,
                    "message": exams["message"] ?? grades["message"] ?? .null]
        }
        let news = try await announce(exams: exams["data"] ?? [], grades: grades["data"] ?? [])
        try await reminders.reschedule(exams: exams["data"] ?? [])
        try await scheduleQuickRefresh(exams["data"] ?? [])
        return news
    }

    /// How often the terms are read while a registration is about to open (spec: places go fast).
    static let quickRefresh: TimeInterval = 5 * 60
    static let quickRefreshKey = "refresh-soon"

    /// While registration for a term the student is not registered for opens within the hour, or
    /// opened in the last 15 minutes, the next read is `quickRefresh` away (a one-off timer on the
    /// same handler as the hourly job, replaced by each read); otherwise the hourly job is enough.
    private func scheduleQuickRefresh(_ exams: JSONValue) async throws {
        let now = store.clock.now()
        let opensSoon = (exams.arrayValue ?? []).contains { term in
            guard term["registered"]?.boolValue != true, let opens = ReminderPlan.date(term["registerFrom"]) else { return false }
            return opens > now.addingTimeInterval(-15 * 60) && opens <= now.addingTimeInterval(3600)
        }
        if opensSoon {
            try await store.clock.schedule(TimerRequest(key: Self.quickRefreshKey, name: "refresh", fireAt: now.addingTimeInterval(Self.quickRefresh)))
        } else {
            try await store.clock.cancelTimer(key: Self.quickRefreshKey)
        }
    }

    /// Records the terms and grades not seen before and, after the baseline, announces them.
    private func announce(exams: JSONValue, grades: JSONValue) async throws -> JSONValue {
        try await store.adoptForSync()
        guard let owner = try await store.owner() else { return ["newTerms": 0, "newGrades": 0, "stale": false] }
        // The person's marks, by their key (the id without the owner).
        let seen = Set(try await store.storage.query("SELECT id FROM seen WHERE owner = ?", [.text(owner)])
            .compactMap { $0["id"].text?.dropFirst(owner.count + 1) }.map(String.init))
        let baseline = !seen.contains("baseline")
        let now = ISO.utc(store.clock.now())
        var announcements: [Announcement] = []
        for term in exams.arrayValue ?? [] {
            guard let id = term["termId"]?.integerValue, !seen.contains("term:\(id)") else { continue }
            let message = NotificationMessage("notify.newTerm", ["name": .text(term["subjectName"]?.stringValue ?? ""),
                                                                 "subject": .text(term["subject"]?.stringValue ?? ""), "at": ReminderPlan.value(term["start"])])
            announcements.append(Announcement(key: "term:\(id)", title: "New exam term: \(term["subjectName"]?.stringValue ?? "")",
                                              body: "\(term["subject"]?.stringValue ?? "") on \(term["start"]?.stringValue ?? "")",
                                              event: "exam-upcoming", payload: Self.examEvent(term), message: message))
        }
        let average = await weightedAverage(grades)
        let averageText = average.map { "; weighted average now \(Results.format($0))" } ?? ""
        for grade in grades.arrayValue ?? [] {
            let key = "grade:\(grade["subject"]?.stringValue ?? "")/\(grade["year"]?.stringValue ?? "")/\(grade["kind"]?.stringValue ?? "")/\(grade["attempt"]?.stringValue ?? "")/\(grade["grade"]?.stringValue ?? "")"
            guard !seen.contains(key) else { continue }
            let payload: JSONValue = ["subject": grade["subject"] ?? .null, "subjectName": grade["subjectName"] ?? .null,
                                      "grade": grade["grade"] ?? .null, "date": grade["date"] ?? .null]
            var values: [String: NotificationValue] = ["name": .text(grade["subjectName"]?.stringValue ?? ""),
                                                       "subject": .text(grade["subject"]?.stringValue ?? ""), "grade": .text(grade["grade"]?.stringValue ?? "")]
            values["average"] = average.map { .number(($0 * 100).rounded() / 100) }
            announcements.append(Announcement(key: key, title: "New grade: \(grade["subjectName"]?.stringValue ?? "")",
                                              body: "\(grade["subject"]?.stringValue ?? ""): \(grade["grade"]?.stringValue ?? "")\(averageText)",
                                              event: "grade-published", payload: payload,
                                              message: NotificationMessage(average == nil ? "notify.newGrade" : "notify.newGradeAverage", values)))
        }
        // The seen marks and the events commit together, so a crash cannot announce twice or lose one.
        try await store.storage.write { batch in
            if baseline { batch.put("seen", id: owner + "|baseline", ["owner": .text(owner), "kind": .text("baseline"), "seen_at": .text(now)]) }
            for a in announcements {
                batch.put("seen", id: owner + "|" + a.key, ["owner": .text(owner), "kind": .text(a.event), "seen_at": .text(now)])
                if !baseline && emitsEvents { batch.emit(a.event, a.payload) }
            }
        }
        let switches = try await reminders.settings()
        if !baseline, let notifications {
            for a in announcements {
                let kind: Reminders.Kind = a.event == "exam-upcoming" ? .newTerm : .newGrade
                guard switches[kind]?.enabled != false else { continue }
                try await notifications.schedule(NotificationRequest(key: "stag:\(a.key)", title: a.title, body: a.body, message: a.message,
                                                                     priority: kind.priority, payload: a.payload, schedule: .at(store.clock.now())))
            }
        }
        let terms = announcements.filter { $0.event == "exam-upcoming" }.count
        return ["newTerms": .integer(Int64(baseline ? 0 : terms)), "newGrades": .integer(Int64(baseline ? 0 : announcements.count - terms)),
                "baseline": .bool(baseline), "stale": false]
    }

    /// The weighted average for a new grade's notification, from the cached subjects' credits.
    private func weightedAverage(_ grades: JSONValue) async -> Double? {
        let subjects = (try? await store.cached("subjects")) ?? []
        return Results.statistics(grades: grades.arrayValue ?? [], subjects: subjects.arrayValue ?? []).weightedAverage
    }

    private struct Announcement { let key, title, body, event: String; let payload: JSONValue; let message: NotificationMessage }
}
