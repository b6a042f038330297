import Foundation
import TesseraSDK

/// A medication's regular plan: a dose at a time of day (UC28).
struct Dose: Codable, Sendable, Hashable {
    var time: String
    var dose: String
}

/// Illnesses and injuries (UC24) as containers of symptoms (UC25), temperatures (UC26), doctor
/// visits (UC27) and medications (UC28). Symptoms, temperatures and visits may stand alone and be
/// assigned to a problem later, also retroactively; a medication always belongs to one.
extension Diary {
    struct NewProblem: Decodable, Sendable { var childId: String; var kind: String; var name: String; var startDate: String; var note: String? }
    struct ProblemEnd: Decodable, Sendable { var id: String; var endDate: String? }
    struct NewSymptom: Decodable, Sendable {
        var childId: String; var name: String; var at: String; var note: String?; var photo: String?; var problemId: String?
    }
    struct NewTemperature: Decodable, Sendable { var childId: String; var celsius: Double; var at: String; var problemId: String?; var note: String? }
    struct NewVisit: Decodable, Sendable {
        var childId: String; var doctorId: String; var at: String; var problemId: String?; var note: String?; var remindAt: String?
    }
    struct NewMedication: Decodable, Sendable {
        var problemId: String; var name: String; var doses: [Dose]; var from: String?; var until: String?; var notify: Bool?; var note: String?
    }
    struct NotifyInput: Decodable, Sendable { var id: String; var notify: Bool }
    struct Assignment: Decodable, Sendable { var id: String; var problemId: String? }

    func openProblem(_ input: NewProblem) async throws -> JSONValue {
        let kind = try Validate.oneOf(input.kind, ["illness", "injury"], field: "kind")
        let name = try Validate.name(input.name, field: "name")
        return try await addRecord(childID: input.childId, type: .healthProblem, date: input.startDate, dateField: "startDate", note: input.note,
                                   values: ["kind": .text(kind), "name": .text(name)])
    }

    /// Ends a problem (or with no `endDate`, reopens it); medication reminders stop with it.
    func closeProblem(_ input: ProblemEnd) async throws -> JSONValue {
        let row = try await changeableRecord(input.id)
        guard row["type"].text == RecordType.healthProblem.rawValue else { throw BabyError.notFound("health problem", input.id) }
        let end = try input.endDate.map { try dates.parseDayOrMoment($0, field: "endDate") } ?? ""
        if !end.isEmpty, end < (row["occurred_at"].text ?? "") { throw BabyError.outOfRange("endDate", "\(end) is before the start \(row["occurred_at"].text ?? "")") }
        try await write(in: row["child_id"].text) { $0.patch("records", id: input.id, ["ended_at": .text(end)]) }
        if !end.isEmpty { try await stopMedicationReminders(problemID: input.id) }
        return try await record(input.id)
    }

    /// A problem another device changed: if it has ended, its medications stop reminding here.
    func problemMayHaveEnded(_ id: String) async throws {
        guard try await !query("SELECT 1 FROM records WHERE id = ? AND type = 'health_problem' AND ended_at <> ''", [.text(id)]).isEmpty else { return }
        try await stopMedicationReminders(problemID: id)
    }

    private func stopMedicationReminders(problemID: String) async throws {
        for medication in try await query("SELECT id FROM records WHERE problem_id = ? AND type = 'medication'", [.text(problemID)]) {
            try await cancelReminders(recordID: medication["id"].text ?? "")
        }
    }

    func addSymptom(_ input: NewSymptom) async throws -> JSONValue {
        let name = try Validate.name(input.name, field: "name")
        let problem = try await problemLink(input.problemId, childID: input.childId)
        return try await addRecord(childID: input.childId, type: .symptom, date: input.at, dateField: "at", note: input.note,
                                   photos: input.photo.map { [$0] }, values: ["name": .text(name), "problem_id": .text(problem)])
    }

    func addTemperature(_ input: NewTemperature) async throws -> JSONValue {
        let celsius = try Fever.checked(input.celsius, field: "celsius")
        let problem = try await problemLink(input.problemId, childID: input.childId)
        return try await addRecord(childID: input.childId, type: .temperature, date: input.at, dateField: "at", note: input.note,
                                   values: ["value": .real(celsius), "problem_id": .text(problem)])
    }

    /// UC27: a visit names a saved doctor (a contact of kind doctor) and may carry a reminder.
    func addVisit(_ input: NewVisit) async throws -> JSONValue {
        guard let doctor = try await query("SELECT name, kind, child_id FROM contacts WHERE id = ?", [.text(input.doctorId)]).first,
              doctor["child_id"].text == input.childId else { throw BabyError.notFound("doctor", input.doctorId) }
        guard doctor["kind"].text == "doctor" else { throw BabyError.invalid("doctorId", "'\(doctor["name"].text ?? "")' is a general contact, not a doctor") }
        let problem = try await problemLink(input.problemId, childID: input.childId)
        let remindAt = try input.remindAt.map { try futureInstant($0, field: "remindAt") }
        if remindAt != nil { try checkRemindersGranted() }
        let visit = try await addRecord(childID: input.childId, type: .doctorVisit, date: input.at, dateField: "at", note: input.note,
                                        values: ["contact_id": .text(input.doctorId), "problem_id": .text(problem)])
        guard let remindAt, let id = visit["id"]?.stringValue else { return visit }
        let child = try await childName(input.childId)
        let reminder = try await setOneShotReminder(recordID: id, childID: input.childId, kind: "doctorVisit", at: remindAt,
                                                    title: "Návštěva lékaře (\(child)): \(doctor["name"].text ?? "")", body: input.at,
                                                    message: visitMessage(child: child, doctor: doctor["name"].text ?? "", at: input.at))
        return try await with(reminder: reminder, on: visit)
    }

    func addMedication(_ input: NewMedication) async throws -> JSONValue {
        guard let problem = try await query("SELECT child_id, occurred_at FROM records WHERE id = ? AND type = 'health_problem'", [.text(input.problemId)]).first
        else { throw BabyError.notFound("health problem", input.problemId) }
        let childID = problem["child_id"].text ?? ""
        let name = try Validate.name(input.name, field: "name")
        try checkDoses(input.doses)
        let from = input.from ?? dates.today(clock.now())
        _ = try dates.parseDay(from, field: "from")
        if let until = input.until {
            _ = try dates.parseDay(until, field: "until")
            guard until >= from else { throw BabyError.outOfRange("until", "\(until) is before from \(from)") }
        }
        if input.notify == true { try checkRemindersGranted() }
        let dosesJSON = try JSONValue(encoding: input.doses).serialized()
        var medication = try await addRecord(childID: childID, type: .medication, date: from, dateField: "from", note: input.note,
                                             values: ["name": .text(name), "problem_id": .text(input.problemId), "doses": .text(dosesJSON),
                                                      "ended_at": .text(input.until ?? "")])
        try await remember(name, field: "medication")
        if input.notify == true, let id = medication["id"]?.stringValue {
            let reminders = try await setMedicationReminders(recordID: id, childID: childID, name: name, doses: input.doses, from: from, until: input.until)
            medication = try await with(reminder: reminders, on: medication)
        }
        return medication
    }

    /// A dosing plan as the module takes it: at least one dose, each a time of day and a dose.
    func checkDoses(_ doses: [Dose]) throws {
        guard !doses.isEmpty else { throw BabyError.invalid("doses", "a medication needs at least one dose") }
        for (index, dose) in doses.enumerated() {
            _ = try dates.parseTime(dose.time, field: "doses[\(index)].time")
            _ = try Validate.name(dose.dose, field: "doses[\(index)].dose")
        }
    }

    /// Turns a medication's dosing reminders on or off on this device.
    func setMedicationNotify(_ input: NotifyInput) async throws -> JSONValue {
        guard let row = try await query("SELECT * FROM records WHERE id = ? AND type = 'medication'", [.text(input.id)]).first else {
            throw BabyError.notFound("medication", input.id)
        }
        guard input.notify else {
            try await cancelReminders(recordID: input.id)
            return ["id": .string(input.id), "notify": false]
        }
        let doses = try JSONValue(parsing: row["doses"].text ?? "[]").decode(as: [Dose].self)
        let until = row["ended_at"].text.flatMap { $0.isEmpty ? nil : $0 }
        let from = max(row["occurred_at"].text ?? "", dates.today(clock.now()))
        let reminders = try await setMedicationReminders(recordID: input.id, childID: row["child_id"].text ?? "", name: row["name"].text ?? "",
                                                         doses: doses, from: from, until: until)
        return ["id": .string(input.id), "notify": true, "reminder": reminders]
    }

    /// Assigns a symptom, temperature or visit to a problem of the same child, or unassigns it.
    func assign(_ input: Assignment) async throws -> JSONValue {
        let row = try await changeableRecord(input.id)
        let type = RecordType(rawValue: row["type"].text ?? "")
        guard [.symptom, .temperature, .doctorVisit].contains(type) else {
            throw BabyError.invalid("id", "only a symptom, temperature or doctor visit can be assigned to a health problem")
        }
        let childID = row["child_id"].text ?? ""
        let problem = try await problemLink(input.problemId, childID: childID)
        try await write(in: childID) { $0.patch("records", id: input.id, ["problem_id": .text(problem)]) }
        return try await record(input.id)
    }

    /// UC24's screen: the problem, its medications, temperatures (the chart's series), symptoms
    /// and doctor visits.
    func problemDetail(_ id: String) async throws -> JSONValue {
        guard let problem = try await query("SELECT * FROM records WHERE id = ? AND type = 'health_problem'", [.text(id)]).first else {
            throw BabyError.notFound("health problem", id)
        }
        let rows = try await query("SELECT * FROM records WHERE problem_id = ? ORDER BY occurred_at, id", [.text(id)])
        let notified = Set(try await query("SELECT record_id FROM reminders WHERE kind = 'medication'").compactMap { $0["record_id"].text })
        let photos = try await photoRows(of: ([problem] + rows).compactMap { $0["id"].text })
        func json(_ row: Row) -> JSONValue { Self.recordJSON(row, photos: photos[row["id"].text ?? ""]) }
        func list(_ type: RecordType) -> [JSONValue] { rows.filter { $0["type"].text == type.rawValue }.map(json) }
        let medications = rows.filter { $0["type"].text == RecordType.medication.rawValue }.map { row -> JSONValue in
            guard case .object(var members) = json(row) else { return .null }
            members["notify"] = .bool(notified.contains(row["id"].text ?? ""))
            return .object(members)
        }
        return ["problem": json(problem), "medications": .array(medications), "temperatures": .array(list(.temperature)),
                "symptoms": .array(list(.symptom)), "doctorVisits": .array(list(.doctorVisit))]
    }

    /// The problem a record is assigned to: "" for none; otherwise it must be a health problem of
    /// the same child.
    private func problemLink(_ problemID: String?, childID: String) async throws -> String {
        guard let problemID, !problemID.isEmpty else { return "" }
        guard try await query("SELECT 1 FROM records WHERE id = ? AND type = 'health_problem' AND child_id = ?", [.text(problemID), .text(childID)]).first != nil
        else { throw BabyError.notFound("health problem", problemID) }
        return problemID
    }
}
