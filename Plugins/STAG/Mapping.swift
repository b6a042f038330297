import Foundation
import TesseraSDK

/// STAG's JSON (Czech field names, numbers as strings, dates as `{"value": "d.M.yyyy"}`) mapped to
/// the module's own shapes.
enum Mapping {
    /// `"KMI/PRG"` from `katedra` and the subject code field.
    static func subject(_ item: JSONValue, code: String) -> String {
        "\(item["katedra"]?.stringValue ?? "")/\(item[code]?.stringValue ?? "")"
    }

    static func int(_ value: JSONValue?) -> Int64? { value?.integerValue ?? value?.stringValue.flatMap { Int64($0) } }

    /// Subject names by `"KMI/PRG"`, from a `predmetStudenta` answer.
    static func subjectNames(_ subjects: JSONValue?) -> [String: String] {
        var names: [String: String] = [:]
        for item in subjects?["predmetStudenta"]?.arrayValue ?? [] { names[subject(item, code: "zkratka")] = item["nazev"]?.stringValue }
        return names
    }

    static func subjects(_ raw: JSONValue) -> JSONValue {
        .array((raw["predmetStudenta"]?.arrayValue ?? []).map { item in
            ["subject": .string(subject(item, code: "zkratka")), "name": item["nazev"] ?? .null,
             "credits": int(item["kredity"]).map(JSONValue.integer) ?? .null, "year": item["rok"] ?? .null,
             "status": item["statut"] ?? .null, "semester": item["semestr"] ?? .null]
        })
    }

    static func term(_ item: JSONValue, names: [String: String]) -> JSONValue? {
        guard let id = int(item["termIdno"]), let day = ISO.stag(item["datum"]) else { return nil }
        let code = subject(item, code: "predmet")
        var start = day
        if let time = item["casOd"]?.stringValue, let parsed = ISO.stag(.string("\(item["datum"]?["value"]?.stringValue ?? item["datum"]?.stringValue ?? "") \(time)")) {
            start = parsed
        }
        let room = [item["budova"]?.stringValue, item["mistnost"]?.stringValue].compactMap { $0 }.joined(separator: " ")
        var out: [String: JSONValue] = [
            "termId": .integer(id), "subject": .string(code), "subjectName": .string(names[code] ?? code),
            "start": .string(ISO.prague(start)), "kind": item["typTerminu"] ?? .null,
            "capacity": int(item["limit"]).map(JSONValue.integer) ?? .null,
            "occupied": int(item["obsazeni"]).map(JSONValue.integer) ?? .null,
            "registered": .bool(item["zapsan"]?.boolValue ?? false),
            // IS/STAG's own verdict, turned into `status` when read (ExamTerms).
            "stagAllows": .bool(item["lzeZapsatOdepsat"]?.boolValue ?? true),
        ]
        if let end = item["casDo"]?.stringValue, let parsed = ISO.stag(.string("\(item["datum"]?["value"]?.stringValue ?? item["datum"]?.stringValue ?? "") \(end)")) {
            out["end"] = .string(ISO.prague(parsed))
        }
        if let text = item["textDuvoduProcNelzeZapsatOdepsat"]?.stringValue ?? item["popisDuvoduProcNelzeZapsatOdepsat"]?.stringValue, !text.isEmpty {
            out["stagReason"] = .string(text)
        }
        if let note = item["poznamka"]?.stringValue, !note.isEmpty { out["note"] = .string(note) }
        if let teacher = item["ucitel"], teacher != .null { out["examiner"] = .string(person(teacher)) }
        if !room.isEmpty { out["room"] = .string(room) }
        if let by = ISO.stag(item["deadlineDatumPrihlaseni"]) { out["registerBy"] = .string(ISO.prague(by)) }
        if let by = ISO.stag(item["deadlineDatumOdhlaseni"]) { out["unregisterBy"] = .string(ISO.prague(by)) }
        if let from = ISO.stag(item["zacatekPrihlasovani"]) { out["registerFrom"] = .string(ISO.prague(from)) }
        return .object(out)
    }

    static func terms(_ raw: JSONValue, names: [String: String]) -> JSONValue {
        .array((raw["termin"]?.arrayValue ?? []).compactMap { term($0, names: names) })
    }

    /// Grades with a result (`zk_hodnoceni`, or the course credit `zppzk_hodnoceni` when there is no exam grade).
    static func grades(_ raw: JSONValue) -> JSONValue {
        .array((raw["student_na_predmetu"]?.arrayValue ?? []).compactMap { item -> JSONValue? in
            let exam = item["zk_hodnoceni"]?.stringValue
            guard let grade = exam ?? item["zppzk_hodnoceni"]?.stringValue, !grade.isEmpty else { return nil }
            let date = ISO.stag(exam != nil ? item["zk_datum"] : item["zppzk_datum"])
            return ["subject": .string(subject(item, code: "zkratka")), "subjectName": item["nazev"] ?? .string(subject(item, code: "zkratka")),
                    "grade": .string(grade), "date": date.map { .string(ISO.day($0)) } ?? .null,
                    "kind": .string(exam != nil ? "exam" : "credit"), "year": item["rok"] ?? .null, "semester": item["semestr"] ?? .null,
                    "attempt": item[exam != nil ? "zk_pokus" : "zppzk_pokus"] ?? .null]
        })
    }

    static func profile(_ raw: JSONValue) -> JSONValue {
        ["studentNumber": raw["osCislo"] ?? .null, "firstName": raw["jmeno"] ?? .null, "lastName": raw["prijmeni"] ?? .null,
         "email": raw["email"] ?? .null, "programme": raw["nazevSp"] ?? .null, "faculty": raw["fakultaSp"] ?? .null,
         "year": raw["rocnik"] ?? .null, "userName": raw["userName"] ?? .null, "programmeType": raw["typSp"] ?? .null]
    }
}

extension Mapping {
    /// "RNDr. Petr Dvořák": titles and name of a `ucitel` or person object.
    static func person(_ p: JSONValue) -> String {
        [p["titulPred"]?.stringValue, p["jmeno"]?.stringValue, p["prijmeni"]?.stringValue, p["titulZa"]?.stringValue]
            .compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// A list of students (`studentTerminu`, `studentPredmetu`): number, name with titles, login, e-mail, year, faculty, programme.
    static func people(_ list: JSONValue?) -> JSONValue {
        .array((list?.arrayValue ?? []).map { p in
            let name = person(p)
            return ["studentNumber": p["osCislo"] ?? .null, "name": .string(name), "userName": p["userName"] ?? .null,
                    "email": p["email"] ?? .null, "year": p["rocnik"] ?? .null, "faculty": p["fakultaSp"] ?? .null,
                    "programme": p["nazevSp"] ?? .null]
        })
    }
}
