import Foundation
import TesseraSDK

/// Reminders (UC12, UC27, UC28): one-shot at an exact time for a vaccination or a doctor visit,
/// and daily at each dosing time of a medication (an RRULE the host evaluates). They are this
/// device's alone (N7: never shared), so `reminders` is a table that does not sync; the host's
/// notifications capability keeps the schedule and delivers with or without the module loaded.
extension Diary {
    struct ReminderInput: Decodable, Sendable { var recordId: String; var remindAt: String? }

    /// A local moment that is still ahead, as an instant.
    func futureInstant(_ text: String, field: String) throws -> Date {
        let instant = try dates.instant(text, field: field)
        guard instant > clock.now() else { throw BabyError.outOfRange(field, "\(text) has passed (now is \(dates.moment(of: clock.now())))") }
        return instant
    }

    func setOneShotReminder(recordID: String, childID: String, kind: String, at: Date, title: String, body: String,
                            message: NotificationMessage) async throws -> JSONValue {
        let notifications = try requireNotifications()
        try await cancelReminders(recordID: recordID)
        let key = "baby-\(recordID)"
        // The row first: a crash in between leaves a row whose cancel finds nothing, never a
        // notification the module no longer knows of.
        try await storage.write { $0.put("reminders", id: key, ["record_id": .text(recordID), "child_id": .text(childID), "kind": .text(kind),
                                                                 "fire_at": .text(at.formatted(.iso8601))]) }
        try await notifications.schedule(NotificationRequest(key: key, title: title, body: body, message: message, priority: .normal,
                                                             payload: ["recordId": .string(recordID), "childId": .string(childID)],
                                                             schedule: .at(at)))
        return ["at": .string(dates.moment(of: at))]
    }

    /// One daily notification per dose, at its time of day from `from` (a day) until `until`.
    func setMedicationReminders(recordID: String, childID: String, name: String, doses: [Dose], from: String, until: String?) async throws -> JSONValue {
        let notifications = try requireNotifications()
        try await cancelReminders(recordID: recordID)
        let child = try await childName(childID)
        // From the plan's first day, but never in the past: a dose already due today is not
        // delivered late. Occurrences take their seconds from the start, so it is a whole minute.
        let now = clock.now(), minute = (now.timeIntervalSince1970 / 60).rounded(.up) * 60
        let start = max(try dates.instant(from + "T00:00", field: "from"), Date(timeIntervalSince1970: minute))
        var scheduled: [JSONValue] = []
        for (index, dose) in doses.enumerated() {
            let (hour, minute) = try dates.parseTime(dose.time, field: "doses[\(index)].time")
            var rule = "FREQ=DAILY;BYHOUR=\(hour);BYMINUTE=\(minute)"
            if let until { rule += ";UNTIL=" + until.replacingOccurrences(of: "-", with: "") }
            let key = "baby-\(recordID)-dose\(index)"
            try await storage.write { $0.put("reminders", id: key, ["record_id": .text(recordID), "child_id": .text(childID), "kind": "medication", "rule": .text(rule)]) }
            try await notifications.schedule(NotificationRequest(
                key: key, title: "Lék (\(child)): \(name)", body: "\(dose.dose) v \(dose.time)",
                // The time of day stays text: it is the dose's time in the configured zone, whoever reads it.
                message: NotificationMessage("notify.medication", ["child": .text(child), "name": .text(name), "dose": .text(dose.dose), "time": .text(dose.time)]),
                priority: .normal,
                payload: ["recordId": .string(recordID), "childId": .string(childID), "dose": .integer(Int64(index))],
                schedule: .recurring(rule: rule, startingAt: start, timeZone: config.timeZone.identifier)))
            scheduled.append(["time": .string(dose.time), "rule": .string(rule)])
        }
        return .array(scheduled)
    }

    func cancelReminders(recordID: String) async throws {
        try await cancel(try await query("SELECT id FROM reminders WHERE record_id = ?", [.text(recordID)]))
    }

    func cancelReminders(childID: String) async throws {
        try await cancel(try await query("SELECT id FROM reminders WHERE child_id = ?", [.text(childID)]))
    }

    private func cancel(_ rows: [Row]) async throws {
        guard !rows.isEmpty else { return }
        for row in rows { try await notifications?.cancel(key: row["id"].text ?? "") }
        try await storage.write { batch in for row in rows { batch.delete("reminders", id: row["id"].text ?? "") } }
    }

    /// This device's reminders, each with its next time from the host's schedule.
    func listReminders() async throws -> JSONValue {
        let scheduled = try await notifications?.pending() ?? []
        let pending = Dictionary(scheduled.map { ($0.request.key, $0.nextAt) }, uniquingKeysWith: { a, _ in a })
        let rows = try await query("SELECT * FROM reminders ORDER BY fire_at, id")
        return ["reminders": .array(rows.map { row in
            let key = row["id"].text ?? ""
            return ["key": .string(key), "recordId": row["record_id"].jsonValue, "childId": row["child_id"].jsonValue, "kind": row["kind"].jsonValue,
                    "rule": row["rule"].text.flatMap { $0.isEmpty ? nil : JSONValue.string($0) } ?? .null,
                    "next": pending[key].map { .string(dates.moment(of: $0)) } ?? .null]
        })]
    }

    /// Sets (or with no `remindAt`, clears) the reminder of a vaccination or doctor visit on this
    /// device. Any member may: reminders are personal (§5).
    func setReminder(_ input: ReminderInput) async throws -> JSONValue {
        let (childID, kind, title, body, message) = try await reminderSubject(input.recordId)
        guard let remindAt = input.remindAt else {
            try await cancelReminders(recordID: input.recordId)
            return ["recordId": .string(input.recordId), "reminder": .null]
        }
        let at = try futureInstant(remindAt, field: "remindAt")
        return ["recordId": .string(input.recordId),
                "reminder": try await setOneShotReminder(recordID: input.recordId, childID: childID, kind: kind, at: at, title: title, body: body, message: message)]
    }

    private func reminderSubject(_ id: String) async throws -> (String, String, String, String, NotificationMessage) {
        if let item = try await query("SELECT child_id, name, occurred_at FROM health_items WHERE id = ? AND kind = 'vaccination'", [.text(id)]).first {
            let name = item["name"].text ?? "", date = item["occurred_at"].text ?? "", childID = item["child_id"].text ?? ""
            let child = try await childName(childID)
            return (childID, "vaccination", "Očkování (\(child)): \(name)", "\(name) (\(date))", vaccinationMessage(child: child, name: name, date: date))
        }
        if let visit = try await query("SELECT child_id, contact_id, occurred_at FROM records WHERE id = ? AND type = 'doctor_visit'", [.text(id)]).first {
            let doctor = try await query("SELECT name FROM contacts WHERE id = ?", [visit["contact_id"]]).first?["name"].text ?? ""
            let at = visit["occurred_at"].text ?? "", childID = visit["child_id"].text ?? ""
            let child = try await childName(childID)
            return (childID, "doctorVisit", "Návštěva lékaře (\(child)): \(doctor)", at, visitMessage(child: child, doctor: doctor, at: at))
        }
        throw BabyError.notFound("vaccination or doctor visit", id)
    }

    /// Each reminder names the child (issue 41, defect 4): a parent of two, or a grandparent
    /// sharing several diaries, must know whose vaccination it is.
    func vaccinationMessage(child: String, name: String, date: String) -> NotificationMessage {
        NotificationMessage("notify.vaccination", ["child": .text(child), "name": .text(name), "date": messageValue(dayOrMoment: date)])
    }

    func visitMessage(child: String, doctor: String, at: String) -> NotificationMessage {
        NotificationMessage("notify.doctorVisit", ["child": .text(child), "doctor": .text(doctor), "at": messageValue(dayOrMoment: at)])
    }

    /// The child's name, for a reminder's words ("" for a child no longer here).
    func childName(_ childID: String) async throws -> String {
        try await query("SELECT name FROM children WHERE id = ?", [.text(childID)]).first?["name"].text ?? ""
    }

    /// A stored day stays a day; a local moment becomes an instant, shown in each reader's zone.
    private func messageValue(dayOrMoment text: String) -> NotificationValue {
        if text.count == 10 { return .day(text) }
        return (try? dates.instant(text, field: "date")).map { .instant($0) } ?? .text(text)
    }

    func with(reminder: JSONValue, on item: JSONValue) async throws -> JSONValue {
        guard case .object(var members) = item else { return item }
        members["reminder"] = reminder
        return .object(members)
    }

    /// Refuses before anything is written when reminders cannot be kept.
    func checkRemindersGranted() throws { _ = try requireNotifications() }

    private func requireNotifications() throws -> any PluginNotifications {
        guard let notifications else { throw BabyError.unprocessable("the operator has not granted notifications to this module", code: "reminders_unavailable") }
        return notifications
    }
}
