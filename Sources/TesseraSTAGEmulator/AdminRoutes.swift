import Foundation
import Hummingbird

/// The emulator's own control routes under `/_emulator/` (no STAG has them): set its time, switch
/// a fault, add people, subjects, exam terms and grades, choose who the SSO logs in, read its
/// state. A scenario can so be set up with `curl`, without Swift code. Each takes a JSON body and
/// answers `OK` (200), or 400 with a message naming the field at fault.
enum AdminRoutes {
    static func install(on router: Router<BasicRequestContext>, state: SharedState) {
        route(router, "time") { body in
            let now = try body.date("now")
            state.box.withLock { $0.now = now }
        }
        route(router, "fault") { body in
            guard let mode = EmulatorFault(rawValue: try body.string("mode")) else {
                throw AdminError("mode: one of \(EmulatorFault.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let seconds = try body.optionalDouble("seconds")
            state.box.withLock { $0.fault = mode; if let seconds { $0.slowSeconds = seconds } }
        }
        route(router, "login-user") { body in
            let user = try body.string("userName")
            try state.box.withLock { s in
                guard s.accounts[user] != nil else { throw AdminError("userName: no such user '\(user)'; add it with /_emulator/users") }
                s.loginUser = user
            }
        }
        route(router, "ticket-lifetime") { body in
            let seconds = try body.double("seconds")
            guard seconds > 0 else { throw AdminError("seconds: more than 0") }
            state.box.withLock { $0.ticketLifetime = seconds }
        }
        route(router, "users") { body in
            let account = try body.account()
            state.box.withLock { $0.accounts[account.userName] = account }
        }
        route(router, "subjects") { body in
            let (department, code) = try body.subject("subject")
            let subject = EmulatorSubject(department: department, code: code, name: try body.optionalString("name") ?? code,
                                          credits: try body.int("credits"), year: try body.optionalString("year") ?? "2025",
                                          semester: try body.semester(), student: try body.optionalString("student") ?? Fixtures.osCislo)
            state.box.withLock { $0.subjects.append(subject) }
        }
        route(router, "terms") { body in
            let term = try body.term()
            try state.box.withLock { s in
                guard !s.terms.contains(where: { $0.id == term.id }) else { throw AdminError("id: term \(term.id) exists") }
                s.terms.append(term)
            }
        }
        route(router, "grades") { body in
            let (department, code) = try body.subject("subject")
            let grade = try body.string("grade")
            guard ["1", "2", "3", "4", "S", "N", "A", "B", "C", "D", "E", "F"].contains(grade) else { throw AdminError("grade: 1–4, S, N or A–F") }
            let entry = EmulatorGrade(department: department, subject: code, grade: grade, date: try body.date("date"),
                                      year: try body.optionalString("year") ?? "2025", semester: try body.semester(),
                                      attempt: try body.optionalInt("attempt") ?? 1, student: try body.optionalString("student") ?? Fixtures.osCislo)
            state.box.withLock { s in
                // A later attempt replaces the earlier one, as STAG shows one result per subject and year.
                s.grades.removeAll { $0.student == entry.student && $0.department == department && $0.subject == code && $0.year == entry.year }
                s.grades.append(entry)
            }
        }
        router.get("/_emulator/state") { _, _ -> Response in
            let summary = state.box.withLock { s -> [String: Any] in
                ["now": ISO8601DateFormatter().string(from: s.now), "fault": s.fault.rawValue, "loginUser": s.loginUser,
                 "ticketLifetimeSeconds": s.ticketLifetime, "users": s.accounts.keys.sorted(),
                 "terms": s.terms.map { ["id": $0.id, "subject": "\($0.department)/\($0.subject)", "occupied": $0.occupied, "limit": $0.limit,
                                         "registered": $0.registered.sorted()] as [String: Any] },
                 "grades": s.grades.count, "subjects": s.subjects.count, "requests": s.requestCount]
            }
            return Routes.json(summary, .none)
        }
    }

    /// A POST route that reads a JSON object and answers `OK`, or 400 with the reason.
    private static func route(_ router: Router<BasicRequestContext>, _ name: String, _ apply: @escaping @Sendable (AdminBody) throws -> Void) {
        router.post("/_emulator/\(name)") { request, _ -> Response in
            let data = Data(buffer: try await request.body.collect(upTo: 65_536))
            guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
                return Routes.plain(.badRequest, "the body is not a JSON object")
            }
            do {
                try apply(AdminBody(object: object))
                return Routes.plain(.ok, "OK")
            } catch let error as AdminError {
                return Routes.plain(.badRequest, error.message)
            }
        }
    }
}

/// A refusal of an admin request; the message starts with the field.
struct AdminError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// An admin request's JSON body, read field by field with errors that name the field.
struct AdminBody {
    let object: [String: Any]

    func optionalString(_ key: String) throws -> String? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let text = value as? String, !text.isEmpty else { throw AdminError("\(key): a non-empty string") }
        return text
    }

    func string(_ key: String) throws -> String {
        guard let text = try optionalString(key) else { throw AdminError("\(key): required") }
        return text
    }

    func optionalDouble(_ key: String) throws -> Double? {
        guard let value = object[key], !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, !Self.isBoolean(number) else { throw AdminError("\(key): a number") }
        return number.doubleValue
    }

    /// Whether JSON gave `true` or `false`. Not `value is Bool`: on Linux every NSNumber 0 or 1
    /// bridges to Bool, which refused the numbers 0 and 1; JSON's booleans are the char-typed ones.
    static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }

    func double(_ key: String) throws -> Double {
        guard let number = try optionalDouble(key) else { throw AdminError("\(key): required") }
        return number
    }

    func optionalInt(_ key: String) throws -> Int? {
        guard let number = try optionalDouble(key) else { return nil }
        guard number == number.rounded(), number >= 0, number < 1e12 else { throw AdminError("\(key): a whole number, 0 or more") }
        return Int(number)
    }

    func int(_ key: String) throws -> Int {
        guard let number = try optionalInt(key) else { throw AdminError("\(key): required") }
        return number
    }

    func optionalDate(_ key: String) throws -> Date? {
        guard let text = try optionalString(key) else { return nil }
        guard let date = ISO8601DateFormatter().date(from: text) else { throw AdminError("\(key): an ISO-8601 time such as 2026-01-20T08:00:00Z") }
        return date
    }

    func date(_ key: String) throws -> Date {
        guard let date = try optionalDate(key) else { throw AdminError("\(key): required") }
        return date
    }

    /// `"KMI/PRG"` as department and code.
    func subject(_ key: String) throws -> (String, String) {
        let parts = try string(key).split(separator: "/").map(String.init)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty }) else { throw AdminError("\(key): DEPARTMENT/CODE, e.g. KMI/PRG") }
        return (parts[0], parts[1])
    }

    func semester() throws -> String {
        let semester = try optionalString("semester") ?? "LS"
        guard semester == "ZS" || semester == "LS" else { throw AdminError("semester: ZS or LS") }
        return semester
    }

    func account() throws -> EmulatorAccount {
        let studentNumber = try optionalString("studentNumber"), teacherId = try optionalInt("teacherId")
        guard studentNumber != nil || teacherId != nil else { throw AdminError("studentNumber: a student number or a teacherId (or both)") }
        let type = try optionalString("programmeType") ?? "B"
        guard ["B", "N", "M", "P"].contains(type) else { throw AdminError("programmeType: B, N, M or P") }
        return EmulatorAccount(userName: try string("userName"), password: try optionalString("password") ?? "heslo123",
                               firstName: try string("firstName"), lastName: try string("lastName"), studentNumber: studentNumber,
                               teacherId: teacherId, programmeType: type, titleBefore: try optionalString("titleBefore"))
    }

    func term() throws -> EmulatorTerm {
        let (department, code) = try subject("subject")
        let start = try date("start")
        let limit = try int("limit")
        guard limit > 0 else { throw AdminError("limit: 1 or more") }
        return EmulatorTerm(id: try int("id"), department: department, subject: code, start: start, room: try optionalString("room") ?? "355",
                            building: try optionalString("building") ?? "UC", limit: limit, otherStudents: try optionalInt("otherStudents") ?? 0,
                            registerBy: try optionalDate("registerBy"), unregisterBy: try optionalDate("unregisterBy"),
                            registerFrom: try optionalDate("registerFrom"))
    }
}
