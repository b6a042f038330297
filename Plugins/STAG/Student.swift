import Foundation
import TesseraSDK

/// The student part: login with an SSO ticket, and the reads and exam registration.
struct Student: Sendable {
    static let ticketSecret = "stag-ticket"
    let store: Store
    let http: any PluginHTTPClient
    let secrets: any PluginSecrets

    // MARK: Login

    func loginURL(_ input: LoginURL) async throws -> JSONValue {
        guard let base = Universities.base(university: input.university, baseURL: input.baseURL) else {
            throw PluginError(.invalidInput, "unknown university; give one of `universities` or an https baseURL", field: "$.university")
        }
        var url = "\(base)/login?originalURL=\(STAGClient.encode(input.returnURL))"
        if input.longTicket == true { url += "&longTicket=1" }
        return ["url": .string(url), "baseURL": .string(base)]
    }

    /// Accepts the ticket (or the whole redirect URL holding `stagUserTicket=`), checks it with
    /// IS/STAG, finds the student role, and keeps the ticket as a secret only.
    func completeLogin(_ input: CompleteLogin) async throws -> JSONValue {
        guard let base = Universities.base(university: input.university, baseURL: input.baseURL) else {
            throw PluginError(.invalidInput, "unknown university; give one of `universities` or an https baseURL", field: "$.university")
        }
        let ticket = Self.ticket(in: input.ticket)
        if ticket == "anonymous" { throw PluginError(.unprocessable, "anonymous_ticket: the login was declined at the university", field: "$.ticket") }
        guard ticket.count == 64, ticket.allSatisfy(\.isHexDigit) else {
            throw PluginError(.invalidInput, "a ticket is 64 hexadecimal digits (stagUserTicket in the address after logging in)", field: "$.ticket")
        }
        let client = STAGClient(http: http, base: base, ticket: Secret(ticket))
        let users: JSONValue
        do { users = try await client.json("help/getStagUserListForLoginTicketV2", [("ticket", ticket)]) } catch {
            if case .ticketExpired = error { throw PluginError(.unprocessable, "ticket_rejected: IS/STAG does not know this ticket (expired or mistyped)", field: "$.ticket") }
            throw error.pluginError
        }
        guard let role = users["stagUserInfo"]?.arrayValue?.first(where: { $0["role"]?.stringValue == "ST" }),
              let number = role["osCislo"]?.stringValue, let userName = role["userName"]?.stringValue else {
            throw PluginError(.unprocessable, "no_student_role: this login has no student (ST) role")
        }
        let name = "\(users["jmeno"]?.stringValue ?? "") \(users["prijmeni"]?.stringValue ?? "")"
        try await secrets.store(Secret(ticket), named: Self.ticketSecret)
        try await store.storage.write { batch in
            batch.put("settings", id: "baseURL", ["value": .text(base)])
            batch.put("settings", id: "osCislo", ["value": .text(number)])
            batch.put("settings", id: "userName", ["value": .text(userName)])
            batch.put("settings", id: "name", ["value": .text(name)])
        }
        return ["studentNumber": .string(number), "userName": .string(userName), "name": .string(name), "baseURL": .string(base)]
    }

    static func ticket(in text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let range = trimmed.range(of: "stagUserTicket=") else { return trimmed }
        return String(trimmed[range.upperBound...].prefix { $0 != "&" })
    }

    func logout() async throws -> JSONValue {
        try await secrets.removeSecret(named: Self.ticketSecret)
        try await store.clearCache()
        return ["loggedOut": true]
    }

    // MARK: Reads

    /// The client and the student number, or `notLoggedIn`.
    func session() async throws(STAGFailure) -> (STAGClient, String, String) {
        guard let base = try? await store.setting("baseURL"), let number = try? await store.setting("osCislo"),
              let user = try? await store.setting("userName"),
              let ticket = try? await secrets.secret(named: Self.ticketSecret) else { throw .notLoggedIn }
        return (STAGClient(http: http, base: base, ticket: ticket), number, user)
    }

    func profile() async throws -> JSONValue {
        try await store.cachedRead("profile") { () throws(STAGFailure) in
            let (client, number, _) = try await session()
            return Mapping.profile(try await client.json("student/getStudentInfo", [("osCislo", number)]))
        }
    }

    func subjects() async throws -> JSONValue {
        try await store.cachedRead("subjects") { () throws(STAGFailure) in
            let (client, number, _) = try await session()
            return Mapping.subjects(try await client.json("predmety/getPredmetyByStudent", [("osCislo", number), ("semestr", "%")]))
        }
    }

    func grades() async throws -> JSONValue {
        try await store.cachedRead("grades") { () throws(STAGFailure) in
            let (client, number, _) = try await session()
            return Mapping.grades(try await client.json("znamky/getZnamkyByStudent", [("osCislo", number)]))
        }
    }

    func exams() async throws -> JSONValue {
        let names = await subjectNames()
        return try await store.cachedRead("exams") { () throws(STAGFailure) in
            let (client, number, user) = try await session()
            return Mapping.terms(try await client.json("terminy/getTerminyProStudenta", [("osCislo", number), ("stagUser", user)]), names: names)
        }
    }

    /// Subject names by code, from the cached subjects (read once if not cached yet).
    func subjectNames() async -> [String: String] {
        var list = try? await store.storage.query("SELECT body FROM cache WHERE id = 'subjects'").first?["body"].text.flatMap { try? JSONValue(parsing: $0) }
        if list == nil { list = try? await subjects()["data"] }
        var names: [String: String] = [:]
        for item in list?.arrayValue ?? [] { names[item["subject"]?.stringValue ?? ""] = item["name"]?.stringValue }
        return names
    }
}
