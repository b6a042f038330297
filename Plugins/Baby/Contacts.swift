import Foundation
import TesseraSDK

/// Important contacts (UC21–UC23), kept per child in the child's space so every member sees the
/// same doctors (§9.8 question 3). A general contact has name, e-mail, phone and address; a
/// doctor adds specialisation and office hours and can be attached to visits. Everyone adds
/// contacts; a guardian changes only its own.
extension Diary {
    struct NewContact: Decodable, Sendable {
        var childId: String
        var kind: String
        var name: String
        var email: String?
        var phone: String?
        var address: String?
        var specialization: String?
        var officeHours: String?
    }

    struct ContactChange: Decodable, Sendable {
        var id: String
        var name: String?
        var email: String?
        var phone: String?
        var address: String?
        var specialization: String?
        var officeHours: String?
    }

    func addContact(_ input: NewContact) async throws -> JSONValue {
        try await require(.createRecord, on: input.childId)
        let kind = try Validate.oneOf(input.kind, ["general", "doctor"], field: "kind")
        var values = try contactValues(name: input.name, email: input.email, phone: input.phone, address: input.address,
                                       specialization: input.specialization, officeHours: input.officeHours, kind: kind)
        guard [values["email"], values["phone"], values["address"]].contains(where: { ($0?.text ?? "").isEmpty == false }) else {
            throw BabyError.invalid("phone", "a contact needs an e-mail, a phone or an address")
        }
        let (person, author) = try await me()
        let id = newID()
        values["child_id"] = .text(input.childId)
        values["kind"] = .text(kind)
        values["created_by"] = .text(person)
        values["author_name"] = .text(author)
        values["created_at"] = .text(stamp())
        try await write(in: input.childId) { $0.put("contacts", id: id, values) }
        return try await contact(id)
    }

    func updateContact(_ input: ContactChange) async throws -> JSONValue {
        let row = try await changeableContact(input.id)
        let values = try contactValues(name: input.name, email: input.email, phone: input.phone, address: input.address,
                                       specialization: input.specialization, officeHours: input.officeHours, kind: row["kind"].text ?? "general")
        if !values.isEmpty { try await write(in: row["child_id"].text) { $0.patch("contacts", id: input.id, values) } }
        return try await contact(input.id)
    }

    func deleteContact(_ id: String) async throws {
        let row = try await changeableContact(id)
        let visits = try await query("SELECT COUNT(*) AS n FROM records WHERE contact_id = ?", [.text(id)]).first?["n"].integer ?? 0
        guard visits == 0 else { throw BabyError.unprocessable("the doctor is attached to \(visits) visit(s); delete those first", code: "contact_in_use") }
        try await write(in: row["child_id"].text) { $0.delete("contacts", id: id) }
    }

    func contacts(childID: String?, kind: String?) async throws -> JSONValue {
        var sql = "SELECT * FROM contacts WHERE 1 = 1", parameters: [SQLValue] = []
        if let childID { sql += " AND child_id = ?"; parameters.append(.text(childID)) }
        if let kind { sql += " AND kind = ?"; parameters.append(.text(try Validate.oneOf(kind, ["general", "doctor"], field: "kind"))) }
        return ["contacts": .array(try await query(sql + " ORDER BY name, id", parameters).map(Self.contactJSON))]
    }

    func contact(_ id: String) async throws -> JSONValue {
        guard let row = try await query("SELECT * FROM contacts WHERE id = ?", [.text(id)]).first else { throw BabyError.notFound("contact", id) }
        return Self.contactJSON(row)
    }

    /// UC22: the links a front end opens to dial or write (`tel:`, `mailto:`).
    static func contactJSON(_ row: Row) -> JSONValue {
        var item: [String: JSONValue] = ["id": row["id"].jsonValue, "childId": row["child_id"].jsonValue, "kind": row["kind"].jsonValue,
                                         "name": row["name"].jsonValue, "createdBy": row["created_by"].jsonValue]
        for (column, key) in [("email", "email"), ("phone", "phone"), ("address", "address"), ("specialization", "specialization"), ("office_hours", "officeHours")] {
            if let text = row[column].text, !text.isEmpty { item[key] = .string(text) }
        }
        if let phone = row["phone"].text, !phone.isEmpty { item["tel"] = .string("tel:" + phone.filter { $0.isNumber || $0 == "+" }) }
        if let email = row["email"].text, !email.isEmpty { item["mailto"] = .string("mailto:" + email) }
        return .object(item)
    }

    private func changeableContact(_ id: String) async throws -> Row {
        guard let row = try await query("SELECT * FROM contacts WHERE id = ?", [.text(id)]).first else { throw BabyError.notFound("contact", id) }
        try await require(.changeRecord(createdBy: row["created_by"].text ?? ""), on: row["child_id"].text ?? "")
        return row
    }

    private func contactValues(name: String?, email: String?, phone: String?, address: String?, specialization: String?,
                               officeHours: String?, kind: String) throws -> [String: SQLValue] {
        var values: [String: SQLValue] = [:]
        if let name { values["name"] = .text(try Validate.name(name, field: "name")) }
        if let email {
            let trimmed = email.trimmingCharacters(in: .whitespaces)
            guard trimmed.isEmpty || trimmed.wholeMatch(of: /[^@\s]+@[^@\s]+\.[^@\s]+/) != nil else { throw BabyError.invalid("email", "'\(email)' is not an e-mail address") }
            values["email"] = .text(trimmed)
        }
        if let phone {
            let trimmed = phone.trimmingCharacters(in: .whitespaces)
            guard trimmed.isEmpty || trimmed.wholeMatch(of: /\+?[0-9 ()\-]{3,30}/) != nil else { throw BabyError.invalid("phone", "'\(phone)' is not a phone number") }
            values["phone"] = .text(trimmed)
        }
        if let address { values["address"] = .text(try Validate.note(address, field: "address")) }
        for (field, column, text) in [("specialization", "specialization", specialization), ("officeHours", "office_hours", officeHours)] {
            guard let text else { continue }
            guard kind == "doctor" else { throw BabyError.invalid(field, "only a doctor has \(field)") }
            values[column] = .text(try Validate.note(text, field: field))
        }
        return values
    }
}
