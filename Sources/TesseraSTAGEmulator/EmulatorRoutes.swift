import Foundation
import Hummingbird

/// The emulator's routes: SSO, REST services, admin (`/_emulator/...`).
enum EmulatorRoutes {
    static func make(state: EmulatorState) -> Router<BasicRequestContext> {
        let router = Router()
        // SSO (spec §2.2 b): a successful login redirects to originalURL with the four parameters.
        router.get("/ws/login") { request, _ -> Response in
            let query = request.uri.queryParameters
            guard let original = query["originalURL"].map(String.init), !original.isEmpty else {
                return EmulatorResponses.text("Missing originalURL", status: .badRequest)
            }
            let long = query["longTicket"].map(String.init) == "true"
            let ticket = state.issueTicket(userName: Fixtures.osCislo, long: long)
            let info = try JSONSerialization.data(withJSONObject: EmulatorResponses.jsonSafe(
                ["jmeno": "Jan", "prijmeni": "NOVÁK", "email": "novakj@students.zcu.cz", "stagUserInfo": [Fixtures.userInfo]] as [String: Any?]))
            var components = URLComponents(string: original) ?? URLComponents()
            components.queryItems = (components.queryItems ?? []) + [
                URLQueryItem(name: "stagUserTicket", value: ticket), URLQueryItem(name: "stagUserName", value: Fixtures.osCislo),
                URLQueryItem(name: "stagUserRole", value: "ST"), URLQueryItem(name: "stagUserInfo", value: info.base64EncodedString()),
            ]
            // '+' and '/' of Base64 must survive the query.
            let location = (components.string ?? original).replacingOccurrences(of: "+", with: "%2B")
            return Response(status: .found, headers: [.location: location])
        }
        router.get("/ws/services/rest2/:category/:operation") { request, context -> Response in
            try await serve(request: request, context: context, state: state)
        }
        router.post("/_emulator/time") { request, _ -> Response in
            guard let at = request.uri.queryParameters["at"].flatMap({ ISO8601DateFormatter().date(from: String($0)) }) else {
                return EmulatorResponses.text("at=ISO-8601 date-time required", status: .badRequest)
            }
            state.setNow(at)
            return EmulatorResponses.text("OK")
        }
        router.post("/_emulator/fault") { request, _ -> Response in
            guard let fault = request.uri.queryParameters["mode"].flatMap({ EmulatorFault(rawValue: String($0)) }) else {
                return EmulatorResponses.text("mode=" + EmulatorFault.allCases.map(\.rawValue).joined(separator: "|"), status: .badRequest)
            }
            state.setFault(fault)
            return EmulatorResponses.text("OK")
        }
        return router
    }

    /// The authenticated user: a valid WSCOOKIE, or HTTP Basic (which also sets a fresh short WSCOOKIE).
    static func authenticate(_ request: Request, state: EmulatorState) -> (user: String, setCookie: String?)? {
        if let cookie = request.headers[.cookie], let ticket = cookie.split(separator: ";").lazy
            .map({ $0.trimmingCharacters(in: .whitespaces) }).first(where: { $0.hasPrefix("WSCOOKIE=") })?.dropFirst(9) {
            return state.user(forTicket: String(ticket)).map { ($0, nil) }
        }
        if let auth = request.headers[.authorization], auth.hasPrefix("Basic "),
           let decoded = Data(base64Encoded: String(auth.dropFirst(6))).flatMap({ String(data: $0, encoding: .utf8) }),
           decoded == "\(state.basicUser):\(state.basicPassword)" {
            return (state.basicUser, state.issueTicket(userName: state.basicUser, long: false))
        }
        return nil
    }

    static func serve(request: Request, context: BasicRequestContext, state: EmulatorState) async throws -> Response {
        switch state.fault {
        case .none: break
        case .down: return EmulatorResponses.text("Service Unavailable", status: .serviceUnavailable)
        case .slow: try await Task.sleep(for: .seconds(10))
        case .unauthorized: return EmulatorResponses.text("Unauthorized", status: .unauthorized)
        case .serverError: return EmulatorResponses.text("Internal Server Error", status: .internalServerError)
        case .malformed:
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{\"termin\":[{\"termIdno\":")))
        }
        guard let (user, setCookie) = authenticate(request, state: state) else {
            return EmulatorResponses.text("Unauthorized", status: .unauthorized)
        }
        var response = try answer(request: request, context: context, state: state, user: user)
        if let setCookie { response.headers[.setCookie] = "WSCOOKIE=\(setCookie); Path=/ws; HttpOnly" }
        return response
    }

    static func answer(request: Request, context: BasicRequestContext, state: EmulatorState, user: String) throws -> Response {
        let query = request.uri.queryParameters
        let operation = "\(context.parameters.get("category") ?? "")/\(context.parameters.get("operation") ?? "")"
        let osCislo = query["osCislo"].map(String.init) ?? Fixtures.osCislo
        let termIdno = query["termIdno"].flatMap { Int(String($0)) } ?? -1
        switch operation {
        case "help/getStagUserForActualUser": return EmulatorResponses.json(Fixtures.userInfo)
        case "student/getStudentInfo": return EmulatorResponses.json(Fixtures.studentInfo)
        case "predmety/getPredmetyByStudent": return EmulatorResponses.json(["predmetStudenta": Fixtures.subjects] as [String: Any?])
        case "znamky/getZnamkyByStudent": return EmulatorResponses.json(["student_na_predmetu": Fixtures.grades] as [String: Any?])
        case "rozvrhy/getRozvrhByStudent", "rozvrhy/getRozvrhByUcitel":
            return EmulatorResponses.json(["rozvrhovaAkce": Fixtures.actions] as [String: Any?])
        case "terminy/getTerminyProStudenta":
            let (terms, now) = state.termsSnapshot()
            return EmulatorResponses.json(["termin": terms.map { Fixtures.terminJSON($0, osCislo: osCislo, now: now) }] as [String: Any?])
        case "terminy/zapisStudentaNaTermin": return EmulatorResponses.text(state.enrol(termIdno: termIdno, osCislo: osCislo))
        case "terminy/odhlasStudentaZTerminu": return EmulatorResponses.text(state.unenrol(termIdno: termIdno, osCislo: osCislo))
        default: return EmulatorResponses.text("Unknown service \(operation)", status: .notFound)
        }
    }
}
