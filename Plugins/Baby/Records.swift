import Foundation
import TesseraSDK

/// The kinds of dated records in `records` (the thesis's Entry subtypes). Vaccinations are dated
/// too, but belong to the health card (`health_items`), which guardians cannot change.
enum RecordType: String, CaseIterable, Sendable {
    case measurement, milestone, post, healthProblem = "health_problem", symptom, temperature
    case doctorVisit = "doctor_visit", medication
}

extension Diary {
    /// Writes one new record of `type` for `childID` after the checks every record gets: the
    /// child exists and this person may add records, the date parses, the note and the photos
    /// are valid. `values` are the type's own columns, already checked by the caller.
    func addRecord(childID: String, type: RecordType, date: String, dateField: String = "date", note: String?,
                   photos: [String]? = nil, values: [String: SQLValue]) async throws -> JSONValue {
        try await require(.createRecord, on: childID)
        let occurred = try dates.parseDayOrMoment(date, field: dateField)
        let note = try Validate.note(note)
        let photos = try await checkPhotos(photos ?? [])
        let (person, author) = try await me()
        let id = newID()
        var row = values
        row["child_id"] = .text(childID)
        row["type"] = .text(type.rawValue)
        row["occurred_at"] = .text(occurred)
        row["note"] = .text(note)
        row["created_by"] = .text(person)
        row["author_name"] = .text(author)
        row["created_at"] = .text(stamp())
        // The record and its photo rows in one transaction: a crash leaves both or neither.
        try await write(in: childID) { batch in
            batch.put("records", id: id, row)
            Self.putPhotoRows(&batch, recordID: id, childID: childID, photos: photos)
        }
        try await linkPhotoRows(recordID: id, photos: photos)
        return try await record(id)
    }

    /// One record as callers see it.
    func record(_ id: String) async throws -> JSONValue {
        guard let row = try await query("SELECT * FROM records WHERE id = ?", [.text(id)]).first else { throw BabyError.notFound("record", id) }
        return try await recordsJSON([row])[0]
    }

    /// A record as callers see it: `photos` are its rows of `record_photos`, or, for a record not
    /// moved yet (another person's, written by the old schema), the list in its `photos` column.
    static func recordJSON(_ row: Row, photos: [String]?) -> JSONValue {
        let photos = photos ?? legacyPhotoList(row["photos"].text)
        var item: [String: JSONValue] = [
            "id": row["id"].jsonValue, "childId": row["child_id"].jsonValue, "type": row["type"].jsonValue,
            "date": row["occurred_at"].jsonValue, "note": row["note"].jsonValue,
            "photos": .array(photos.map { .string($0) }),
            "createdBy": row["created_by"].jsonValue, "authorName": row["author_name"].jsonValue,
        ]
        for (column, key) in [("kind", "kind"), ("name", "name"), ("problem_id", "problemId"), ("contact_id", "contactId"), ("ended_at", "endDate")] {
            if let text = row[column].text, !text.isEmpty { item[key] = .string(text) }
        }
        if !row["value"].isNull { item["value"] = row["value"].jsonValue }
        if let position = row["position"].text, !position.isEmpty { item["position"] = .string(position) }
        if row["kind"].text == MeasurementKind.weight.rawValue, row["type"].text == RecordType.measurement.rawValue {
            item["oedema"] = .bool(row["oedema"].integer == 1)
        }
        if row["type"].text == RecordType.medication.rawValue { item["doses"] = (try? JSONValue(parsing: row["doses"].text ?? "[]")) ?? [] }
        if row["type"].text == RecordType.temperature.rawValue, let celsius = row["value"].real { item["fever"] = .string(Fever.classify(celsius).rawValue) }
        return .object(item)
    }

    /// The record, refused unless this person may change it (a guardian only its own).
    func changeableRecord(_ id: String) async throws -> Row {
        guard let row = try await query("SELECT * FROM records WHERE id = ?", [.text(id)]).first else { throw BabyError.notFound("record", id) }
        try await require(.changeRecord(createdBy: row["created_by"].text ?? ""), on: row["child_id"].text ?? "")
        return row
    }

    struct RecordChange: Decodable, Sendable {
        var id: String
        var date: String?
        var note: String?
        var name: String?
        var value: Double?
        var photos: [String]?
        /// A medication's dosing plan (AS-06: the paediatrician changes it mid-illness).
        var doses: [Dose]?
        /// The parent confirms a measurement the WHO standard finds implausible.
        var confirmed: Bool?
        /// A height's position, `lying` or `standing`.
        var position: String?
        /// Whether a weight was taken with oedema.
        var oedema: Bool?
    }

    /// L228: whoever may, edits any record: its date, note, name, value (checked as for its
    /// type) and photos. `created_by` and `author_name` never change.
    func updateRecord(_ input: RecordChange) async throws -> JSONValue {
        let row = try await changeableRecord(input.id)
        let childID = row["child_id"].text ?? ""
        var values: [String: SQLValue] = [:]
        if let date = input.date { values["occurred_at"] = .text(try dates.parseDayOrMoment(date, field: "date")) }
        if let note = input.note { values["note"] = .text(try Validate.note(note)) }
        if let name = input.name { values["name"] = .text(try Validate.name(name, field: "name")) }
        let measured = row["type"].text == RecordType.measurement.rawValue ? MeasurementKind(rawValue: row["kind"].text ?? "") : nil
        let date = input.date ?? row["occurred_at"].text ?? ""
        var position = MeasuredPosition(rawValue: row["position"].text ?? "")
        if let given = input.position {
            guard let measured else { throw BabyError.invalid("position", "only a length or height is measured lying or standing") }
            position = try await measuredPosition(given, kind: measured, childID: childID, date: date)
            values["position"] = .text(position?.rawValue ?? "")
        }
        if let oedema = input.oedema {
            guard measured == .weight else { throw BabyError.invalid("oedema", "only a weight is taken with or without oedema") }
            values["oedema"] = .integer(oedema ? 1 : 0)
        }
        if let value = input.value {
            let checked = try checkedValue(value, of: row)
            let oedema = input.oedema ?? (row["oedema"].integer == 1)
            if input.confirmed != true, !oedema, let measured {
                try await checkPlausible(checked, kind: measured, position: position, childID: childID, date: date)
            }
            values["value"] = .real(checked)
        }
        if let doses = input.doses {
            guard row["type"].text == RecordType.medication.rawValue else {
                throw BabyError.invalid("doses", "only a medication has doses; this is a \(row["type"].text ?? "record")")
            }
            try checkDoses(doses)
            values["doses"] = .text(try JSONValue(encoding: doses).serialized())
        }
        var photos: [String]?
        let previous = try await photoRows(of: [input.id])[input.id] ?? Self.legacyPhotoList(row["photos"].text)
        if let wanted = input.photos {
            photos = try await checkPhotos(wanted)
            if row["type"].text == RecordType.post.rawValue, photos?.isEmpty == true { throw BabyError.invalid("photos", "a post keeps at least one photo") }
            // The old schema's list, if any, gives way to the rows.
            if row["photos"].text != "[]" { values["photos"] = "[]" }
        }
        if !values.isEmpty || photos != nil {
            try await write(in: childID) { batch in
                if !values.isEmpty { batch.patch("records", id: input.id, values) }
                if let photos { Self.putPhotoRows(&batch, recordID: input.id, childID: childID, photos: photos, previousCount: previous.count) }
            }
        }
        if let photos { try await linkPhotoRows(recordID: input.id, photos: photos, previous: previous) }
        // This device's dose reminders follow the new plan (other devices' on their next start of them).
        if input.doses != nil || input.name != nil, row["type"].text == RecordType.medication.rawValue,
           try await !query("SELECT id FROM reminders WHERE record_id = ?", [.text(input.id)]).isEmpty {
            _ = try await setMedicationNotify(NotifyInput(id: input.id, notify: true))
        }
        return try await record(input.id)
    }

    private func checkedValue(_ value: Double, of row: Row) throws -> Double {
        switch RecordType(rawValue: row["type"].text ?? "") {
        case .measurement:
            guard let kind = MeasurementKind(rawValue: row["kind"].text ?? "") else { return value }
            return try kind.checked(value, field: "value")
        case .temperature: return try Fever.checked(value, field: "value")
        default: throw BabyError.invalid("value", "a \(row["type"].text ?? "record") has no value")
        }
    }

    /// Deletes a record (and, on this device, its reminders). Photos go when no record refers to
    /// them (the host's collector).
    func deleteRecord(_ id: String) async throws {
        let row = try await changeableRecord(id)
        try await cancelReminders(recordID: id)
        var doomed = [id]
        // A health problem takes its medications with it; its other records stay, unassigned.
        if row["type"].text == RecordType.healthProblem.rawValue {
            doomed += try await query("SELECT id FROM records WHERE problem_id = ? AND type = 'medication'", [.text(id)]).compactMap { $0["id"].text }
            for medication in doomed.dropFirst() { try await cancelReminders(recordID: medication) }
        }
        let assigned = try await query("SELECT id FROM records WHERE problem_id = ? AND type <> 'medication'", [.text(id)]).compactMap { $0["id"].text }
        let photoRows = try await photoRows(of: doomed)
        try await write(in: row["child_id"].text) { batch in
            for record in doomed {
                batch.delete("records", id: record)
                for position in (photoRows[record] ?? []).indices { batch.delete("record_photos", id: Self.photoRowID(record, position)) }
            }
            for record in assigned { batch.patch("records", id: record, ["problem_id": ""]) }
        }
    }

    // MARK: milestones and posts

    static let milestonePresets = ["firstSmile", "firstTooth", "firstStep", "firstWord"]

    struct NewMilestone: Decodable, Sendable {
        var childId: String
        var preset: String?
        var custom: String?
        var date: String
        var note: String?
        var photos: [String]?
    }

    /// UC16: one of the four presets, or a custom milestone by name.
    func addMilestone(_ input: NewMilestone) async throws -> JSONValue {
        let values: [String: SQLValue]
        switch (input.preset, input.custom) {
        case (let preset?, nil):
            values = ["kind": .text(try Validate.oneOf(preset, Self.milestonePresets, field: "preset"))]
        case (nil, let custom?):
            let name = try Validate.name(custom, field: "custom")
            values = ["kind": "custom", "name": .text(name)]
        default: throw BabyError.invalid("preset", "give either preset (\(Self.milestonePresets.joined(separator: ", "))) or custom, not both")
        }
        let record = try await addRecord(childID: input.childId, type: .milestone, date: input.date, note: input.note, photos: input.photos, values: values)
        if let custom = values["name"]?.text { try await remember(custom, field: "milestone") }
        return record
    }

    struct NewPost: Decodable, Sendable {
        var childId: String
        var text: String
        var date: String
        var photos: [String]
    }

    /// UC17: a memory — text, a date and one or more photos.
    func addPost(_ input: NewPost) async throws -> JSONValue {
        guard !input.photos.isEmpty else { throw BabyError.invalid("photos", "a post needs at least one photo") }
        return try await addRecord(childID: input.childId, type: .post, date: input.date, note: input.text, photos: input.photos, values: [:])
    }
}
