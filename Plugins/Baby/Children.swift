import Foundation
import TesseraSDK

/// Child profiles (UC7, UC8): create with an optional photo and current height and weight, list,
/// the profile (age and the latest measurements, plus the health card), update the basic data,
/// and delete (owner only). With sync each child is a space of the hub's, its creator the owner.
extension Diary {
    struct NewChild: Decodable, Sendable {
        var name: String
        var birthDate: String
        /// "girl" or "boy": which WHO tables the child's growth is read against (none if not given).
        var sex: String?
        var photo: String?
        var heightCm: Double?
        var weightKg: Double?
    }

    struct ChildChange: Decodable, Sendable {
        var id: String
        var name: String?
        var birthDate: String?
        /// "girl", "boy", or "" to clear it.
        var sex: String?
        var photo: String?
    }

    func createChild(_ input: NewChild) async throws -> JSONValue {
        let name = try Validate.name(input.name, field: "name")
        let today = dates.today(clock.now())
        try checkBirthDate(input.birthDate, today: today)
        let sex = try input.sex.map { try Validate.oneOf($0, ["girl", "boy"], field: "sex") } ?? ""
        if let photo = input.photo { try await checkPhoto(photo, field: "photo") }
        // Initial height and weight are measurements of today (§9.8 question 4), checked before
        // anything is made, so a bad value leaves no child behind.
        let initial: [(kind: MeasurementKind, value: Double)] = try [
            input.heightCm.map { (MeasurementKind.height, try MeasurementKind.height.checked($0, field: "heightCm")) },
            input.weightKg.map { (MeasurementKind.weight, try MeasurementKind.weight.checked($0, field: "weightKg")) },
        ].compactMap { $0 }
        let id = try await newChildID(name: name)
        let (person, author) = try await me()
        let now = stamp()
        try await write(in: id) { batch in
            batch.put("children", id: id, ["name": .text(name), "birth_date": .text(input.birthDate), "sex": .text(sex), "photo": .text(input.photo ?? ""),
                                           "created_by": .text(person), "author_name": .text(author), "created_at": .text(now)])
            batch.put("health_cards", id: id, ["child_id": .text(id)])
            emit(BabyEvents.childAdded, ["childId": .string(id)], in: &batch)
            for (kind, value) in initial {
                batch.put("records", id: newID(), ["child_id": .text(id), "type": "measurement", "kind": .text(kind.rawValue),
                                                   "value": .real(value), "occurred_at": .text(today), "created_by": .text(person),
                                                   "author_name": .text(author), "created_at": .text(now)])
            }
        }
        if let photo = input.photo { try await files?.link(photo, table: "children", id: id) }
        return try await childProfile(id)
    }

    /// The child's id: with sync, the id of a new space (made here, registered at the hub now or
    /// on the next round if it is unreachable: creation works offline, §9.8 question 8).
    private func newChildID(name: String) async throws -> String {
        guard let sync else { return newID() }
        let space = try await sync.spaces.create(name: name)
        // Online, the hub names the new space's one member, its owner: this device's person — asked
        // only of a host that does not say who is logged in.
        if space.registered, try await loggedInPerson() == nil, let owner = try? await sync.spaces.members(of: space.id).members.first(where: { $0.role == .owner }) {
            try await learnPerson(owner.name)
        }
        return space.id
    }

    private func checkBirthDate(_ text: String, today: String) throws {
        _ = try dates.parseDay(text, field: "birthDate")
        guard text <= today else { throw BabyError.outOfRange("birthDate", "\(text) is in the future (today is \(today))") }
        guard text >= "1900-01-01" else { throw BabyError.outOfRange("birthDate", "\(text) is before 1900") }
    }

    func listChildren() async throws -> JSONValue {
        let rows = try await query("SELECT id, name, birth_date, photo FROM children ORDER BY birth_date, name")
        var children: [JSONValue] = []
        for row in rows {
            let id = row["id"].text ?? ""
            children.append(["id": .string(id), "name": row["name"].jsonValue, "birthDate": row["birth_date"].jsonValue,
                             "photo": row["photo"].jsonValue, "level": .string(try await level(for: id).rawValue)])
        }
        return ["children": .array(children)]
    }

    /// UC8: the basic part (age, the latest height, weight and head circumference) and the
    /// health part (UC9–UC13) on one answer.
    func childProfile(_ id: String) async throws -> JSONValue {
        guard let row = try await query("SELECT * FROM children WHERE id = ?", [.text(id)]).first else { throw BabyError.notFound("child", id) }
        let birth = row["birth_date"].text ?? ""
        var age: JSONValue = .null
        if let a = dates.age(birth: birth, today: dates.today(clock.now())) {
            age = ["years": .integer(Int64(a.years)), "months": .integer(Int64(a.months)), "days": .integer(Int64(a.days))]
        }
        var latest: [String: JSONValue] = [:]
        for kind in MeasurementKind.allCases {
            let rows = try await query("""
                SELECT value, occurred_at FROM records WHERE child_id = ? AND type = 'measurement' AND kind = ?
                ORDER BY occurred_at DESC, id DESC LIMIT 1
                """, [.text(id), .text(kind.rawValue)])
            latest[kind.rawValue] = rows.first.map { ["value": $0["value"].jsonValue, "date": $0["occurred_at"].jsonValue, "unit": .string(kind.unit)] } ?? .null
        }
        return ["id": .string(id), "name": row["name"].jsonValue, "birthDate": .string(birth), "sex": row["sex"].jsonValue, "photo": row["photo"].jsonValue,
                "createdBy": row["created_by"].jsonValue, "level": .string(try await level(for: id).rawValue),
                "age": age, "latest": .object(latest), "health": try await healthCard(id)]
    }

    func updateChild(_ input: ChildChange) async throws -> JSONValue {
        try await require(.editBasic, on: input.id)
        var values: [String: SQLValue] = [:]
        if let name = input.name { values["name"] = .text(try Validate.name(name, field: "name")) }
        if let birth = input.birthDate {
            try checkBirthDate(birth, today: dates.today(clock.now()))
            values["birth_date"] = .text(birth)
        }
        if let sex = input.sex { values["sex"] = .text(sex.isEmpty ? "" : try Validate.oneOf(sex, ["girl", "boy"], field: "sex")) }
        if let photo = input.photo {
            if !photo.isEmpty { try await checkPhoto(photo, field: "photo") }
            values["photo"] = .text(photo)
        }
        if !values.isEmpty { try await write(in: input.id) { $0.patch("children", id: input.id, values) } }
        if let photo = input.photo, !photo.isEmpty { try await files?.link(photo, table: "children", id: input.id) }
        return try await childProfile(input.id)
    }

    /// Deletes the child (owner only): with sync the hub deletes the space first — every member's
    /// device then drops the child's rows — and only then are they removed here; offline the hub
    /// cannot be asked and nothing is removed (`hub_unreachable`).
    func deleteChild(_ id: String) async throws {
        try await require(.deleteChild, on: id)
        if let sync { try await sync.spaces.delete(id) }
        try await cancelReminders(childID: id)
        var doomed: [(String, String)] = [("children", id), ("health_cards", id)]
        for table in ["health_items", "records", "record_photos", "contacts", "access"] {
            for row in try await query("SELECT id FROM \(table) WHERE child_id = ?", [.text(id)]) { doomed.append((table, row["id"].text ?? "")) }
        }
        try await write(in: id) { batch in for (table, row) in doomed { batch.delete(table, id: row) } }
    }

    /// Who this device's person is (their hub login) and the name their records show.
    func setProfile(person: String?, name: String?) async throws -> JSONValue {
        let checkedPerson = try person.map { try Validate.name($0, field: "person") }
        // The name is this person's: another person logged in on this device later does not write
        // under it (issue 41, defect 3).
        var owner = try await loggedInPerson() ?? checkedPerson
        if owner == nil { owner = try await me().person }
        try await storage.write { batch in
            if let checkedPerson { batch.put("profile", id: "person", ["value": .text(checkedPerson)]) }
            if let name {
                batch.put("profile", id: "name", ["value": .text(try Validate.name(name, field: "name"))])
                batch.put("profile", id: "name_for", ["value": .text(owner ?? "me")])
            }
        }
        let me = try await me()
        return ["person": .string(me.person), "name": .string(me.name)]
    }
}
