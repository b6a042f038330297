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
        // The cached list now shows the change: read again, or, if IS/STAG cannot be read just now,
        // the cached term marked, so the reminders re-planned from it are right either way.
        let updated = try? await exams()
        if updated?["stale"]?.boolValue ?? true { try await markCached(term, registered: register) }
        // Other modules hear of it (the stress programme's nudge the evening before an exam one is registered for).
        let item = try await store.cached("exams")?.arrayValue?.first { $0["termId"]?.integerValue == term }
        if let item, emitsEvents {
            try await store.storage.write { $0.emit("exam-upcoming", Refresher.examEvent(item)) }
        }
        return ["termId": .integer(term), "registered": .bool(register), "message": .string(answer)]
    }

    /// Marks the cached term registered (or not), its seats one more (or fewer).
    private func markCached(_ term: Int64, registered: Bool) async throws {
        let row = try await store.storage.query("SELECT body, fetched_at FROM cache WHERE id = 'exams'").first
        guard let body = row?["body"].text, let at = row?["fetched_at"].text, let list = try? JSONValue(parsing: body).arrayValue else { return }
        let marked = list.map { item -> JSONValue in
            guard item["termId"]?.integerValue == term, item["registered"]?.boolValue != registered else { return item }
            var changed = item
            changed[set: "registered"] = .bool(registered)
            if let occupied = item["occupied"]?.integerValue { changed[set: "occupied"] = .integer(occupied + (registered ? 1 : -1)) }
            return changed
        }
        try await store.storage.write { $0.put("cache", id: "exams", ["body": .text(JSONValue.array(marked).serialized()), "fetched_at": .text(at)]) }
    }

    /// STAG's refusal text as an error with a reason code (texts differ between versions, so keywords are matched).
    static func refusal(_ text: String, term: Int64) -> PluginError {
        let lower = text.lowercased()
        if lower.contains("obsazen") { return PluginError(.conflict, text, reason: "term_full") }
        if lower.contains("vypršel") || lower.contains("lhůt") || lower.contains("uplynul") || lower.contains("již nelze") {
            return PluginError(.conflict, text, reason: "deadline_passed")
        }
        if lower.contains("již") && lower.contains("zapsán") { return PluginError(.conflict, text, reason: "already_registered") }
        if lower.contains("neexistuje") { return PluginError(.notFound, "term \(term): \(text)", reason: "no_such_term") }
        return PluginError(.unprocessable, text, reason: "refused")
    }

    /// The week holding `date` (default today), or only that day with `day: true`.
    func timetable(_ input: TimetableInput) async throws -> JSONValue {
        let week = try Timetable.Week(input, now: store.clock.now())
        var read = try await store.cachedRead("timetable:\(ISO.day(week.monday))") { () throws(STAGFailure) in
            let (client, number, _) = try await session()
            return try await client.json("rozvrhy/getRozvrhByStudent", [("osCislo", number), ("datumOd", week.from), ("datumDo", week.to)])
        }
        read[set: "data"] = Timetable.week(read["data"] ?? .null, monday: week.monday, onlyDay: week.onlyDay)
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
