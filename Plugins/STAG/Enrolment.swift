import Foundation
import TesseraSDK

extension Student {
    /// Registers for (or unregisters from) an exam term. STAG answers plain text: "OK", or the
    /// reason in Czech, which is mapped to a reason code; a refusal changes nothing cached.
    func enrol(_ term: Int64, register: Bool) async throws -> JSONValue {
        let answer: String
        do {
            let (client, number, user) = try await session()
            let method = register ? "terminy/zapisStudentaNaTermin" : "terminy/odhlasStudentaZTerminu"
            answer = try await client.text(method, [("osCislo", number), ("termIdno", String(term)), ("stagUser", user)])
        } catch {
            throw error.pluginError
        }
        guard answer == "OK" else { throw Self.refusal(answer, term: term) }
        _ = try? await exams()  // the cached list now shows the change; a failure here leaves the old cache
        return ["termId": .integer(term), "registered": .bool(register), "message": .string(answer)]
    }

    /// STAG's refusal text as an error with a reason code (texts differ between versions, so keywords are matched).
    static func refusal(_ text: String, term: Int64) -> PluginError {
        let lower = text.lowercased()
        if lower.contains("obsazen") { return PluginError(.conflict, "term_full: \(text)") }
        if lower.contains("vypršel") || lower.contains("lhůt") || lower.contains("uplynul") || lower.contains("již nelze") {
            return PluginError(.conflict, "deadline_passed: \(text)")
        }
        if lower.contains("již") && lower.contains("zapsán") { return PluginError(.conflict, "already_registered: \(text)") }
        if lower.contains("neexistuje") { return PluginError(.notFound, "no_such_term: term \(term): \(text)") }
        return PluginError(.unprocessable, "refused: \(text)")
    }

    /// The week holding `date` (default today), or only that day with `day: true`.
    func timetable(_ input: TimetableInput) async throws -> JSONValue {
        var date = store.clock.now()
        if let text = input.date {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = ISO.prague
            f.dateFormat = "yyyy-MM-dd"
            guard let parsed = f.date(from: text) else { throw PluginError(.invalidInput, "a date is yyyy-MM-dd", field: "$.date") }
            date = parsed
        }
        let monday = Timetable.monday(of: date)
        let sunday = monday.addingTimeInterval(6 * 86400 + 3600)
        let stag = DateFormatter()
        stag.locale = Locale(identifier: "en_US_POSIX")
        stag.timeZone = ISO.prague
        stag.dateFormat = "d.M.yyyy"
        var read = try await store.cachedRead("timetable:\(ISO.day(monday))") { () throws(STAGFailure) in
            let (client, number, _) = try await session()
            return try await client.json("rozvrhy/getRozvrhByStudent", [
                ("osCislo", number), ("datumOd", stag.string(from: monday)), ("datumDo", stag.string(from: sunday))])
        }
        read[set: "data"] = Timetable.week(read["data"] ?? .null, monday: monday, onlyDay: input.day == true ? date : nil)
        return read
    }
}

extension JSONValue {
    /// Sets an object's member (no effect on other values).
    subscript(set key: String) -> JSONValue? {
        get { self[key] }
        set { if case .object(var members) = self { members[key] = newValue; self = .object(members) } }
    }
}
