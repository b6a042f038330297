import Foundation
import TesseraSDK

/// Each exam term's status for this person, judged when it is read (so a cached copy read after a
/// deadline says the term is closed): `registered` (with `canUnregister`), `open`, or `closed` with
/// the reason — `not_open_yet`, `registration_closed`, `full`, `past`, or `refused` with IS/STAG's own
/// words (`textDuvoduProcNelzeZapsatOdepsat`) when IS/STAG says no for a reason of its own.
/// `reason` is for programs and logs (English where the module words it); `stagReason`, present only
/// when IS/STAG gave one, is IS/STAG's own sentence, which a page may show as it is.
enum ExamTerms {
    static func withStatus(_ term: JSONValue, now: Date) -> JSONValue {
        guard case .object(var out) = term else { return term }
        let date = { (key: String) in ReminderPlan.date(term[key]) }
        let stagAllows = term["stagAllows"]?.boolValue ?? true
        let stagReason = term["stagReason"]?.stringValue
        out.removeValue(forKey: "stagAllows")
        out.removeValue(forKey: "stagReason")
        if let stagReason, !stagReason.isEmpty { out["stagReason"] = .string(stagReason) }
        if term["registered"]?.boolValue == true {
            out["status"] = "registered"
            out["canUnregister"] = .bool(stagAllows && (date("unregisterBy").map { now <= $0 } ?? true))
            if out["canUnregister"] == false {
                out["reason"] = .string(stagReason ?? "the unregistering deadline \(term["unregisterBy"]?.stringValue ?? "") has passed")
            }
            return .object(out)
        }
        let closed: (code: String, text: String)? =
            if let start = date("start"), start <= now { ("past", "the term has taken place") }
            else if let from = date("registerFrom"), now < from { ("not_open_yet", "registration opens \(term["registerFrom"]?.stringValue ?? "")") }
            else if let by = date("registerBy"), now > by { ("registration_closed", "registration closed \(term["registerBy"]?.stringValue ?? "")") }
            else if let capacity = term["capacity"]?.integerValue, let occupied = term["occupied"]?.integerValue, occupied >= capacity {
                ("full", "the term is full (\(occupied)/\(capacity))")
            }
            else if !stagAllows { ("refused", stagReason ?? "IS/STAG does not allow registering") }
            else { nil }
        out["status"] = .string(closed == nil ? "open" : "closed")
        if let closed { out["reasonCode"] = .string(closed.code); out["reason"] = .string(closed.text) }
        return .object(out)
    }

    /// Terms grouped by subject (`KMI/PRG`, not the code alone: two departments may share one),
    /// subjects by name, terms by start: `[{subject, subjectName, count, terms}]`.
    static func bySubject(_ terms: [JSONValue]) -> JSONValue {
        let groups = Dictionary(grouping: terms) { $0["subject"]?.stringValue ?? "" }
        let sorted = groups.sorted { a, b in
            let (x, y) = (a.value.first?["subjectName"]?.stringValue ?? a.key, b.value.first?["subjectName"]?.stringValue ?? b.key)
            return x == y ? a.key < b.key : x < y
        }
        return .array(sorted.map { subject, list in
            ["subject": .string(subject), "subjectName": list.first?["subjectName"] ?? .string(subject), "count": .integer(Int64(list.count)),
             "terms": .array(list.sorted { ($0["start"]?.stringValue ?? "", $0["termId"]?.integerValue ?? 0) < ($1["start"]?.stringValue ?? "", $1["termId"]?.integerValue ?? 0) })]
        })
    }
}

extension Student {
    /// The terms offered to the student, each with its status for them.
    func exams() async throws -> JSONValue {
        let names = await subjectNames()
        var read = try await store.cachedRead("exams") { () throws(STAGFailure) in
            let (client, number, user) = try await session()
            return Mapping.terms(try await client.json("terminy/getTerminyProStudenta", [("osCislo", number), ("stagUser", user)]), names: names)
        }
        let now = store.clock.now()
        read[set: "data"] = .array((read["data"]?.arrayValue ?? []).map { ExamTerms.withStatus($0, now: now) })
        return read
    }

    /// The same terms grouped by subject.
    func examsBySubject() async throws -> JSONValue {
        var read = try await exams()
        read[set: "data"] = ExamTerms.bySubject(read["data"]?.arrayValue ?? [])
        return read
    }
}
