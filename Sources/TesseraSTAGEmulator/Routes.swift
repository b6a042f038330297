import Foundation
import Hummingbird

/// The emulator's HTTP routes.
enum Routes {
    static func install(on router: Router<BasicRequestContext>, state: SharedState) {
        router.get("/ws/login") { request, _ in login(request, state) }
        router.get("/ws/services/rest2/{service}/{method}") { request, context -> Response in
            let name = "\(context.parameters.get("service") ?? "")/\(context.parameters.get("method") ?? "")"
            return try await service(name, request, state)
        }
        AdminRoutes.install(on: router, state: state)
        CatalogueRoutes.install(on: router)
    }

    /// The SSO login: the real one passes through the university's Shibboleth; this one logs the
    /// emulator's student straight in and redirects to `originalURL` with the ticket.
    static func login(_ request: Request, _ state: SharedState) -> Response {
        guard let back = request.uri.queryParameters.get("originalURL"), var target = URLComponents(string: back) else {
            return plain(.badRequest, "originalURL missing")
        }
        let (ticket, account) = state.box.withLock { s in (s.issueTicket(), s.accounts[s.loginUser] ?? .student) }
        let info = Data(Rendering.json(account.userList).utf8).base64EncodedString()
        target.queryItems = (target.queryItems ?? []) + [
            URLQueryItem(name: "stagUserTicket", value: ticket),
            URLQueryItem(name: "stagUserName", value: account.userName),
            URLQueryItem(name: "stagUserRole", value: account.studentNumber != nil ? "ST" : "VY"), URLQueryItem(name: "stagUserInfo", value: info)]
        return Response(status: .found, headers: [.location: target.string ?? back])
    }

    static func service(_ name: String, _ request: Request, _ state: SharedState) async throws -> Response {
        let (fault, delay) = state.box.withLock { $0.admit() }
        switch fault {
        case .down: return plain(.serviceUnavailable, "Služba je dočasně nedostupná.")
        case .unauthorized: return plain(.unauthorized, "Unauthorized")
        case .serverError: return plain(.internalServerError, "Internal Server Error")
        case .slow: try await Task.sleep(for: .seconds(delay))
        case .none, .malformed: break
        }
        let query = request.uri.queryParameters
        if name == "help/getStagUserListForLoginTicketV2" {
            let ticket = query.get("ticket") ?? ""
            guard let account = state.box.withLock({ $0.account(ofTicket: ticket) }) else { return plain(.unauthorized, "Unauthorized") }
            return json(account.userList, fault)
        }
        if name == "help/getStagUserForActualUser", let credentials = basicCredentials(of: request) {
            return basicLogin(credentials, state, fault)
        }
        guard let ticket = ticket(of: request), state.box.withLock({ $0.isValid(ticket: ticket) }) else {
            return plain(.unauthorized, "Unauthorized")
        }
        if name == "help/getStagUserListForActualUser" {
            let account = state.box.withLock { $0.account(ofTicket: ticket) }
            return json(["stagUserInfo": account?.roles ?? []], fault)
        }
        let student = query.get("osCislo") ?? ""
        if let answer = teacherService(name, query, state, fault) { return answer }
        if let answer = CatalogueRoutes.service(name, query, fault) { return answer }
        switch name {
        case "student/getStudentInfo":
            guard let account = state.box.withLock({ $0.accounts.values.first { $0.studentNumber == student } }) else {
                return plain(.badRequest, "Student \(student) neexistuje.")
            }
            return json(account.studentInfo, fault)
        case "predmety/getPredmetyByStudent":
            let semester = query.get("semestr") ?? "%", year = query.get("rok")
            let subjects = state.box.withLock { s in
                s.subjects.filter { $0.student == student && (semester == "%" || $0.semester == semester) && (year == nil || $0.year == year) }
                    .map(Rendering.subject)
            }
            return json(["predmetStudenta": CatalogueRoutes.localized(subjects, query)], fault)
        case "rozvrhy/getRozvrhByStudent": return json(["rozvrhovaAkce": CatalogueRoutes.localized(Fixtures.timetable(student: student), query)], fault)
        case "terminy/getTerminyProStudenta":
            let terms = state.box.withLock { s in s.terms.map { Rendering.term($0, for: student, at: s.now) } }
            return json(["termin": terms], fault)
        case "znamky/getZnamkyByStudent":
            let grades = state.box.withLock { s in s.grades.filter { $0.student == student }.map(Rendering.grade) }
            return json(["student_na_predmetu": CatalogueRoutes.localized(grades, query)], fault)
        case "terminy/zapisStudentaNaTermin", "terminy/odhlasStudentaZTerminu":
            guard let id = query.get("termIdno").flatMap(Int.init) else { return plain(.badRequest, "Chybí parametr termIdno.") }
            let answer = state.box.withLock { s in
                name.hasSuffix("zapisStudentaNaTermin") ? s.register(student: student, term: id) : s.unregister(student: student, term: id)
            }
            return plain(.ok, answer)
        default: return plain(.notFound, "Služba \(name) neexistuje.")
        }
    }

    /// The teacher's services: the timetable, the exam terms a teacher examines, the students
    /// registered for a term, the students of a subject. `nil` for any other service.
    static func teacherService(_ name: String, _ query: Parameters, _ state: SharedState, _ fault: EmulatorFault) -> Response? {
        switch name {
        case "rozvrhy/getRozvrhByUcitel":
            return json(["rozvrhovaAkce": CatalogueRoutes.localized(Fixtures.timetable(teacher: query.get("ucitIdno").flatMap(Int.init) ?? 0), query)], fault)
        case "terminy/getTerminyList":
            guard query.get("ucitIdno") == String(Fixtures.ucitIdno) else { return json(["termin": [] as [Any]], fault) }
            return json(["termin": state.box.withLock { $0.terms.map(Rendering.teacherTerm) }], fault)
        case "student/getStudentiByTermin":
            guard let id = query.get("termIdno").flatMap(Int.init) else { return plain(.badRequest, "Chybí parametr termIdno.") }
            let students = state.box.withLock { s in s.terms.first { $0.id == id }.map { Rendering.termStudents($0, accounts: s.accounts) } }
            return json(["studentTerminu": students ?? []], fault)
        case "student/getStudentiByRoakce":
            // The student attends every class of the fixtures' timetable; three others do too.
            guard let id = query.get("roakIdno").flatMap(Int.init),
                  Fixtures.timetable(student: Fixtures.osCislo).contains(where: { $0["roakIdno"] as? Int == id }) else {
                return json(["studentPredmetu": [] as [Any]], fault)
            }
            let others = (0..<3).map { Fixtures.otherStudent($0) }
            return json(["studentPredmetu": [Rendering.studentRow(.student)] + others], fault)
        case "student/getStudentiByPredmet":
            guard query.get("katedra") == "KMI", let code = query.get("zkratka"), Fixtures.subjectNames[code] != nil else {
                return json(["studentPredmetu": [] as [Any]], fault)
            }
            let others = (0..<4).map { Fixtures.otherStudent($0).merging(["statutPredmetu": "A"]) { $1 } }
            return json(["studentPredmetu": [Rendering.studentRow(.student).merging(["statutPredmetu": "A"]) { $1 }] + others], fault)
        default: return nil
        }
    }

    /// The thesis's DEMO login (spec §2.2): HTTP Basic with a login name and password answers the
    /// user and sets `WSCOOKIE`, the ticket later calls use. The built-in people's passwords are `heslo123`.
    static func basicLogin(_ credentials: (user: String, password: String), _ state: SharedState, _ fault: EmulatorFault) -> Response {
        let account = state.box.withLock { $0.accounts[credentials.user] }
        guard let account, account.password == credentials.password else { return plain(.unauthorized, "Unauthorized") }
        let ticket = state.box.withLock { $0.issueTicket(for: account.userName) }
        // One role's entry: the student's if the person has both (a real STAG answers 403 to some
        // multi-role accounts here; see getStagUserListForActualUser).
        let entry = account.roles.first ?? [:]
        var response = json(entry, fault)
        response.headers[.setCookie] = "WSCOOKIE=\(ticket); Path=/ws; HttpOnly"
        return response
    }

    /// Login name and password from an HTTP Basic header that carries a password (a ticket has none).
    static func basicCredentials(of request: Request) -> (user: String, password: String)? {
        guard let auth = request.headers[.authorization], auth.hasPrefix("Basic "),
              let data = Data(base64Encoded: String(auth.dropFirst(6))) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[1].isEmpty else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    /// The ticket, from HTTP Basic (username = ticket, empty password) or the `WSCOOKIE` cookie.
    static func ticket(of request: Request) -> String? {
        if let auth = request.headers[.authorization], auth.hasPrefix("Basic "),
           let data = Data(base64Encoded: String(auth.dropFirst(6))) {
            return String(decoding: data, as: UTF8.self).split(separator: ":", omittingEmptySubsequences: false).first.map(String.init)
        }
        if let cookie = request.headers[.cookie], let range = cookie.range(of: "WSCOOKIE=") {
            return String(cookie[range.upperBound...].prefix { $0 != ";" })
        }
        return nil
    }

    static func json(_ object: Any, _ fault: EmulatorFault) -> Response {
        let text = fault == .malformed ? "{\"termin\": [ {\"termIdno\": 11184" : Rendering.json(object)
        return Response(status: .ok, headers: [.contentType: "application/json;charset=UTF-8"],
                        body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain;charset=UTF-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
