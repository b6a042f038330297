import Foundation
import TesseraSDK

/// The teacher part (spec §5.3 and the issue): the teacher's timetable, the exam terms they
/// examine with the students registered for each, and the students of a subject. A login with
/// the VY role (`ucitIdno`) has it; reads are cached for offline use like the student's.
struct Teacher: Sendable {
    let student: Student
    var store: Store { student.store }

    /// The client and the teacher's `ucitIdno`, or `notLoggedIn` (also for a login without the teacher role).
    func session() async throws(STAGFailure) -> (STAGClient, String) {
        guard let client = try await student.client(), let id = try? await store.setting("ucitIdno") else { throw .notLoggedIn }
        return (client, id)
    }

    /// The week (or, with `day`, the day) holding `date` (today by default), from `rozvrhy/getRozvrhByUcitel`.
    func timetable(_ input: TimetableInput) async throws -> JSONValue {
        let week = try Timetable.Week(input, now: store.clock.now())
        var read = try await store.cachedRead("teacher-timetable:\(ISO.day(week.monday))") { () throws(STAGFailure) in
            let (client, id) = try await session()
            return try await client.json("rozvrhy/getRozvrhByUcitel", [("ucitIdno", id), ("datumOd", week.from), ("datumDo", week.to)])
        }
        read[set: "data"] = Timetable.week(read["data"] ?? .null, monday: week.monday, onlyDay: week.onlyDay)
        return read
    }

    /// The terms the teacher examines, each with its registered students (`terminy/getTerminyList`
    /// with `ucitIdno`, then `student/getStudentiByTermin` per term).
    func exams() async throws -> JSONValue {
        let names = await student.subjectNames()
        return try await store.cachedRead("teacher-exams") { () throws(STAGFailure) in
            let (client, id) = try await session()
            let raw = try await client.json("terminy/getTerminyList", [("ucitIdno", id)])
            var terms: [JSONValue] = []
            for item in raw["termin"]?.arrayValue ?? [] {
                guard case .object(var term)? = Mapping.term(item, names: names), let termID = term["termId"]?.integerValue else { continue }
                for key in ["registered", "stagAllows", "stagReason"] { term.removeValue(forKey: key) }
                let students = try await client.json("student/getStudentiByTermin", [("termIdno", String(termID))])
                term["students"] = Mapping.people(students["studentTerminu"])
                terms.append(.object(term))
            }
            return .array(terms)
        }
    }

    /// The students of a subject (`KMI/PRG`) in a year and semester (`student/getStudentiByPredmet`).
    func subjectStudents(_ input: SubjectInput) async throws -> JSONValue {
        let parts = try Catalogue.subject(input.subject)
        let year = input.year ?? Self.academicYear(store.clock.now())
        return try await store.cachedRead("subject-students:\(input.subject)/\(year)/\(input.semester ?? "%")") { () throws(STAGFailure) in
            let (client, _) = try await session()
            let raw = try await client.json("student/getStudentiByPredmet", [("katedra", parts.0), ("zkratka", parts.1),
                                                                           ("rok", year), ("semestr", input.semester ?? "%")])
            return Mapping.people(raw["studentPredmetu"])
        }
    }

    /// The students attending one class of the timetable (`student/getStudentiByRoakce`, spec §5
    /// step 5: "the students on the action"), for a teacher; cached per class.
    func classStudents(_ input: ClassInput) async throws -> JSONValue {
        try await store.cachedRead("class-students:\(input.action)") { () throws(STAGFailure) in
            let (client, _) = try await session()
            return Mapping.people(try await client.json("student/getStudentiByRoakce", [("roakIdno", String(input.action))])["studentPredmetu"])
        }
    }

    /// STAG's academic year: it starts in September (`2025` is 2025/26).
    static func academicYear(_ now: Date) -> String {
        let c = Timetable.calendar.dateComponents([.year, .month], from: now)
        return String((c.month ?? 1) >= 9 ? (c.year ?? 2000) : (c.year ?? 2000) - 1)
    }
}

struct ClassInput: Decodable, Sendable { let action: Int64 }
struct SubjectInput: Decodable, Sendable { let subject: String; let year: String?; let semester: String? }
