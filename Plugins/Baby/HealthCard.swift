import Foundation
import TesseraSDK

/// The health card (UC9–UC13): blood group and insurer on `health_cards` (one row per child, its
/// id the child's), and allergies, past diseases and vaccinations each a row of `health_items`,
/// so that two parents adding allergies offline both keep theirs (§4.8, §9.8 question 1).
/// Owners and parents change it; guardians only read it.
extension Diary {
    static let bloodGroups = ["0+", "0-", "A+", "A-", "B+", "B-", "AB+", "AB-"]
    static let severities = ["mild", "moderate", "severe"]

    struct CardChange: Decodable, Sendable {
        var childId: String
        var bloodGroup: String?
        var insurer: String?
    }

    struct NewAllergy: Decodable, Sendable { var childId: String; var allergen: String; var severity: String; var note: String? }
    struct NewDisease: Decodable, Sendable { var childId: String; var name: String; var month: String; var note: String? }
    struct NewVaccination: Decodable, Sendable { var childId: String; var name: String; var date: String; var note: String?; var remindAt: String? }
    struct ItemChange: Decodable, Sendable {
        var id: String
        var name: String?
        var severity: String?
        var date: String?
        var note: String?
    }

    func healthCard(_ childID: String) async throws -> JSONValue {
        let card = try await query("SELECT blood_group, insurer FROM health_cards WHERE id = ?", [.text(childID)]).first
        let insurerCode = card?["insurer"].text ?? ""
        let insurer: JSONValue = config.insurers.first { $0.code == insurerCode }.map { ["code": .string($0.code), "name": .string($0.name)] }
            ?? (insurerCode.isEmpty ? .null : ["code": .string(insurerCode), "name": .null])  // withdrawn from the list since
        let items = try await query("SELECT * FROM health_items WHERE child_id = ? ORDER BY occurred_at, name", [.text(childID)])
        let today = dates.today(clock.now())
        func list(_ kind: String) -> [JSONValue] { items.filter { $0["kind"].text == kind }.map(Self.itemJSON) }
        let vaccinations = list("vaccination")
        return ["bloodGroup": (card?["blood_group"].text).flatMap { $0.isEmpty ? nil : JSONValue.string($0) } ?? .null,
                "insurer": insurer, "allergies": .array(list("allergy")), "diseases": .array(list("disease")),
                "vaccinations": .array(vaccinations.filter { ($0["date"]?.stringValue ?? "") <= today }),
                "upcomingVaccinations": .array(vaccinations.filter { ($0["date"]?.stringValue ?? "") > today })]
    }

    static func itemJSON(_ row: Row) -> JSONValue {
        var item: [String: JSONValue] = ["id": row["id"].jsonValue, "kind": row["kind"].jsonValue, "name": row["name"].jsonValue,
                                         "note": row["note"].jsonValue, "createdBy": row["created_by"].jsonValue]
        switch row["kind"].text {
        case "allergy": item["severity"] = row["severity"].jsonValue
        case "disease": item["month"] = row["occurred_at"].jsonValue
        default: item["date"] = row["occurred_at"].jsonValue
        }
        return .object(item)
    }

    func setCard(_ input: CardChange) async throws -> JSONValue {
        try await require(.editHealthCard, on: input.childId)
        var values: [String: SQLValue] = ["child_id": .text(input.childId)]
        if let group = input.bloodGroup { values["blood_group"] = .text(group.isEmpty ? "" : try Validate.oneOf(group, Self.bloodGroups, field: "bloodGroup")) }
        if let code = input.insurer {
            guard code.isEmpty || config.insurers.contains(where: { $0.code == code }) else {
                throw BabyError.invalid("insurer", "'\(code)' is not on the insurer list (\(config.insurers.map(\.code).joined(separator: ", ")))")
            }
            values["insurer"] = .text(code)
        }
        try await write(in: input.childId) { $0.patch("health_cards", id: input.childId, values) }
        return try await healthCard(input.childId)
    }

    func insurers() -> JSONValue {
        ["insurers": .array(config.insurers.map { ["code": .string($0.code), "name": .string($0.name)] })]
    }

    func addAllergy(_ input: NewAllergy) async throws -> JSONValue {
        let allergen = try Validate.name(input.allergen, field: "allergen")
        let severity = try Validate.oneOf(input.severity, Self.severities, field: "severity")
        let item = try await addItem(childID: input.childId, kind: "allergy", name: allergen, occurred: "", note: input.note, severity: severity)
        try await remember(allergen, field: "allergy")
        return item
    }

    func addDisease(_ input: NewDisease) async throws -> JSONValue {
        let month = try dates.parseMonth(input.month, field: "month")
        return try await addItem(childID: input.childId, kind: "disease", name: try Validate.name(input.name, field: "name"), occurred: month, note: input.note)
    }

    /// UC12: a vaccination done or upcoming, with an optional reminder on this device at an exact time.
    func addVaccination(_ input: NewVaccination) async throws -> JSONValue {
        let name = try Validate.name(input.name, field: "name")
        // A day, or a day and a time when the appointment has one (the nurse's 9:30).
        let occurred = try dates.parseDayOrMoment(input.date, field: "date")
        let remindAt = try input.remindAt.map { try futureInstant($0, field: "remindAt") }
        if remindAt != nil { try checkRemindersGranted() }
        var item = try await addItem(childID: input.childId, kind: "vaccination", name: name, occurred: occurred, note: input.note)
        try await remember(name, field: "vaccination")
        if let remindAt, let id = item["id"]?.stringValue {
            let child = try await childName(input.childId)
            item = try await with(reminder: try await setOneShotReminder(recordID: id, childID: input.childId, kind: "vaccination",
                                                                          at: remindAt, title: "Očkování (\(child)): \(name)", body: "\(name) (\(occurred))",
                                                                          message: vaccinationMessage(child: child, name: name, date: occurred)), on: item)
        }
        return item
    }

    private func addItem(childID: String, kind: String, name: String, occurred: String, note: String?, severity: String = "") async throws -> JSONValue {
        try await require(.editHealthCard, on: childID)
        let note = try Validate.note(note)
        let (person, author) = try await me()
        let id = newID()
        try await write(in: childID) { batch in
            batch.put("health_items", id: id, ["child_id": .text(childID), "kind": .text(kind), "name": .text(name), "severity": .text(severity),
                                               "occurred_at": .text(occurred), "note": .text(note), "created_by": .text(person),
                                               "author_name": .text(author), "created_at": .text(stamp())])
        }
        return try await healthItem(id)
    }

    func healthItem(_ id: String) async throws -> JSONValue {
        guard let row = try await query("SELECT * FROM health_items WHERE id = ?", [.text(id)]).first else { throw BabyError.notFound("health item", id) }
        return Self.itemJSON(row)
    }

    /// Edits an allergy, disease or vaccination; each field is checked as when it was added.
    func updateItem(_ input: ItemChange) async throws -> JSONValue {
        guard let row = try await query("SELECT * FROM health_items WHERE id = ?", [.text(input.id)]).first else { throw BabyError.notFound("health item", input.id) }
        let childID = row["child_id"].text ?? ""
        try await require(.editHealthCard, on: childID)
        var values: [String: SQLValue] = [:]
        if let name = input.name { values["name"] = .text(try Validate.name(name, field: "name")) }
        if let note = input.note { values["note"] = .text(try Validate.note(note)) }
        if let severity = input.severity {
            guard row["kind"].text == "allergy" else { throw BabyError.invalid("severity", "only an allergy has a severity") }
            values["severity"] = .text(try Validate.oneOf(severity, Self.severities, field: "severity"))
        }
        if let date = input.date {
            values["occurred_at"] = .text(row["kind"].text == "disease" ? try dates.parseMonth(date, field: "date") : try dates.parseDayOrMoment(date, field: "date"))
        }
        if !values.isEmpty { try await write(in: childID) { $0.patch("health_items", id: input.id, values) } }
        return try await healthItem(input.id)
    }

    func deleteItem(_ id: String) async throws {
        guard let row = try await query("SELECT child_id FROM health_items WHERE id = ?", [.text(id)]).first else { throw BabyError.notFound("health item", id) }
        let childID = row["child_id"].text ?? ""
        try await require(.editHealthCard, on: childID)
        try await cancelReminders(recordID: id)
        try await write(in: childID) { $0.delete("health_items", id: id) }
    }
}
