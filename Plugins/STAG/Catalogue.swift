import Foundation
import TesseraSDK

/// What the thesis's app showed beside the timetable and exams (spec §1, L29–L33): a subject's
/// details (`predmety/getPredmetInfo`, §2.6.5), a teacher's theses
/// (`kvalifikacniprace/getKvalifikacniPrace`, §2.6.8) and the ZČU canteen's menu
/// (`https://www.zcu.cz/rest/canteen/{B|K}`, spec's endpoint table). Each is read in Czech or
/// English (`language`: IS/STAG speaks those two; a Slovak reader gets Czech) and cached for
/// offline use like every other read.
struct Catalogue: Sendable {
    let student: Student
    var store: Store { student.store }

    // MARK: A subject's details

    func subjectInfo(_ input: SubjectInfoInput) async throws -> JSONValue {
        let (department, code) = try Self.subject(input.subject)
        let language = Self.language(input.language)
        let year = input.year ?? Teacher.academicYear(store.clock.now())
        return try await store.cachedRead("subject-info:\(input.subject)/\(year)/\(language)") { () throws(STAGFailure) in
            guard let client = try await student.client() else { throw .notLoggedIn }
            let raw = try await client.json("predmety/getPredmetInfo", [("katedra", department), ("zkratka", code), ("rok", year), ("lang", language)])
            guard raw["zkratka"] != nil else { throw .malformed }
            return Self.subjectInfo(raw)
        }
    }

    static func subjectInfo(_ raw: JSONValue) -> JSONValue {
        let text = { (key: String) -> JSONValue in
            raw[key]?.stringValue.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : JSONValue.string($0) } ?? .null
        }
        let hours = { (key: String) -> JSONValue in raw[key]?.integerValue.map { .integer($0) } ?? .integer(0) }
        return ["department": raw["katedra"] ?? .null, "code": raw["zkratka"] ?? .null, "name": text("nazev"), "longName": text("nazevDlouhy"),
                "credits": raw["kreditu"]?.integerValue.map { .integer($0) } ?? .null,
                "hours": ["lectures": hours("jednotekPrednasek"), "practicals": hours("jednotekCviceni"), "seminars": hours("jednotekSeminare")],
                "completion": text("typZkousky"), "examForm": text("formaZkousky"), "creditBeforeExam": .bool(raw["maZapocetPredZk"]?.stringValue == "ANO"),
                "guarantors": names(raw["garanti"]), "lecturers": names(raw["prednasejici"]), "practicals": names(raw["cvicici"]),
                "seminars": names(raw["seminarici"]), "prerequisites": text("podminujiciPredmety"), "goal": text("anotace"),
                "requirements": text("pozadavky"), "content": text("prehledLatky"), "literature": text("literatura"), "url": text("predmetUrl")]
    }

    /// IS/STAG lists teachers as one string of quoted names (`'Ing. Eva Svobodová, Ph.D.', 'doc. Jan
    /// Garant'`, spec §2.6.5): the names, without the quotes.
    static func names(_ value: JSONValue?) -> JSONValue {
        guard let text = value?.stringValue else { return [] }
        let parts = text.split(separator: "'", omittingEmptySubsequences: false)
        // The quoted names are every other piece: before the first quote, between two names, after the last.
        let quoted = parts.enumerated().filter { $0.offset % 2 == 1 }.map { $0.element.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let names = quoted.isEmpty ? text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } : quoted
        return .array(names.map { .string($0) })
    }

    // MARK: A teacher's theses

    func theses(_ input: ThesesInput) async throws -> JSONValue {
        let year = input.year ?? Teacher.academicYear(store.clock.now())
        let language = Self.language(input.language)
        return try await store.cachedRead("theses:\(year)/\(language)") { () throws(STAGFailure) in
            guard let client = try await student.client(), let id = try? await store.setting("ucitIdno") else { throw .notLoggedIn }
            let raw = try await client.json("kvalifikacniprace/getKvalifikacniPrace", [("ucitIdno", id), ("rokZadani", year), ("lang", language)])
            return .array((raw["kvalifikacniPrace"]?.arrayValue ?? []).map { Self.thesis($0, teacher: id) })
        }
    }

    /// A thesis as the page shows it, with the teacher's part in it (spec §2.6.8's proposal: the
    /// logged-in `ucitIdno` matched against the supervisor's, opponent's, trainer's and consultant's).
    static func thesis(_ raw: JSONValue, teacher: String) -> JSONValue {
        let roles: [(String, String)] = [("vedouciUcitidno", "supervisor"), ("oponentUcitidno", "opponent"), ("skolitelUcitidno", "trainer"),
                                         ("konzultantZUnivUcitidno", "consultant")]
        let role = roles.first { key, _ in raw[key].map { $0.stringValue ?? $0.integerValue.map(String.init) ?? "" } == teacher }?.1
        let student = raw["student"]
        let name = [student?["titulPred"], student?["jmeno"], student?["prijmeni"]].compactMap { $0?.stringValue }.filter { !$0.isEmpty }.joined(separator: " ")
        let day = { (key: String) -> JSONValue in ISO.stag(raw[key]).map { .string(ISO.day($0)) } ?? .null }
        return ["title": raw["temaHlavni"] ?? .null, "type": raw["typPrace"] ?? .null, "faculty": raw["fakultaTxt"] ?? raw["fakulta"] ?? .null,
                "department": raw["katedra"] ?? .null, "programme": raw["oborKombinaceStudenta"] ?? .null, "state": raw["stavPrace"] ?? .null,
                "student": ["name": .string(name), "login": student?["userName"] ?? .null, "number": student?["osCislo"] ?? .null],
                "role": role.map { .string($0) } ?? .null, "supervisor": raw["vedouciJmeno"] ?? .null, "opponent": raw["oponentJmeno"] ?? .null,
                "assignedOn": day("datumZadani"), "dueOn": day("planovaneDatumOdevzdani"), "submittedOn": day("datumOdevzdani")]
    }

    // MARK: The canteen

    /// ZČU's two canteens: Bory and Kollárova (spec: `{id}` is `B` or `K`).
    static let canteens = ["B", "K"]
    static let canteenBase = "https://www.zcu.cz/rest/canteen"

    func canteen(_ input: CanteenInput) async throws -> JSONValue {
        guard Self.canteens.contains(input.canteen) else {
            throw PluginError(.invalidInput, "the canteen is B (Bory) or K (Kollárova)", field: "$.canteen")
        }
        let shift = input.daysShift ?? 0
        let language = Self.language(input.language)
        let day = ISO.day(store.clock.now().addingTimeInterval(Double(shift) * 86_400))
        return try await store.cachedRead("canteen:\(input.canteen)/\(day)/\(language)") { () throws(STAGFailure) in
            let response: OutboundResponse
            do {
                response = try await student.http.send(OutboundRequest(url: "\(Self.canteenBase)/\(input.canteen)?daysShift=\(shift)&lang=\(language)",
                                                                       headers: ["Accept": "application/json"], timeout: .seconds(20)))
            } catch let error as PluginError {
                throw error.code == .notGranted ? .notGranted(error.message) : .unavailable(error.message)
            } catch {
                throw .unavailable("\(error)")
            }
            guard response.status == 200 else { throw .unavailable("the canteen's menu answered \(response.status)") }
            guard let menu = try? JSONValue(parsing: response.body), menu["mainCourses"] != nil || menu["soups"] != nil else { throw .malformed }
            return ["canteen": .string(input.canteen), "day": .string(day), "soups": Self.meals(menu["soups"]), "mainCourses": Self.meals(menu["mainCourses"])]
        }
    }

    /// Meals with their allergens and prices by diner (`student`, `employee`, `external`).
    static func meals(_ value: JSONValue?) -> JSONValue {
        .array((value?.arrayValue ?? []).map { meal in
            let prices: [String: JSONValue] = Dictionary((meal["prices"]?.arrayValue ?? []).compactMap { price in
                guard let type = price["type"]?.stringValue, let amount = price["price"]?.doubleValue else { return nil }
                let diner = ["Stu": "student", "Emp": "employee", "Zam": "employee", "Ext": "external", "Cizí": "external"][String(type.prefix(3))] ?? type.lowercased()
                return (diner, .string(String(format: "%.2f", amount)))
            }) { first, _ in first }
            let allergens = (meal["allergens"]?.arrayValue ?? []).map { allergen -> JSONValue in
                ["number": allergen["number"] ?? .null, "name": allergen["name"] ?? .null]
            }
            return ["name": meal["name"] ?? .null, "number": meal["number"] ?? .null, "allergens": .array(allergens), "prices": .object(prices)]
        })
    }

    // MARK: Inputs

    static func subject(_ text: String) throws -> (String, String) {
        let parts = text.split(separator: "/").map(String.init)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 10 }) else {
            throw PluginError(.invalidInput, "a subject is DEPARTMENT/CODE, e.g. KMI/PRG", field: "$.subject")
        }
        return (parts[0], parts[1])
    }

    /// IS/STAG's language: English for English, Czech for everyone else.
    static func language(_ asked: String?) -> String { asked == "en" ? "en" : "cs" }
}

struct SubjectInfoInput: Decodable, Sendable { let subject: String; let year: String?; let language: String? }
struct ThesesInput: Decodable, Sendable { let year: String?; let language: String? }
struct CanteenInput: Decodable, Sendable { let canteen: String; let daysShift: Int?; let language: String? }
