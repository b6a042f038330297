import Foundation
import TesseraSDK

/// The student part: login with an SSO ticket, and the reads and exam registration.
struct Student: Sendable {
    static let ticketSecret = "stag-ticket"
    let store: Store
    let http: any PluginHTTPClient
    let secrets: any PluginSecrets
    /// How long a call to IS/STAG may take (the operator's `timeoutSeconds`, 20 by default).
    var timeout: Duration = .seconds(20)
    /// Whether the operator granted `events` (exam registrations are then announced).
    var emitsEvents = false
    /// Told when IS/STAG answers 401 to the logged-in person's call (``LoginExpiry``).
    var onUnauthorized: (@Sendable () async -> Void)?
    /// The plugin's log, for what the person is not asked about.
    var log: PluginLog?

    // MARK: Login

    func loginURL(_ input: LoginURL) async throws -> JSONValue {
        guard let base = Universities.base(university: input.university, baseURL: input.baseURL) else {
            throw PluginError(.invalidInput, "unknown university; give one of `universities` or an https baseURL", field: "$.university")
        }
        var url = "\(base)/login?originalURL=\(STAGClient.encode(input.returnURL))"
        // A long ticket (90 days) unless asked otherwise, as the thesis recommends (spec §2.2).
        if input.longTicket != false { url += "&longTicket=true" }
        return ["url": .string(url), "baseURL": .string(base)]
    }

    /// Accepts the ticket (or the whole redirect URL holding `stagUserTicket=`), checks it with
    /// IS/STAG, finds the student role, and keeps the ticket as a secret only.
    func completeLogin(_ input: CompleteLogin) async throws -> JSONValue {
        guard let base = Universities.base(university: input.university, baseURL: input.baseURL) else {
            throw PluginError(.invalidInput, "unknown university; give one of `universities` or an https baseURL", field: "$.university")
        }
        let ticket = Self.ticket(in: input.ticket)
        if ticket == "anonymous" { throw PluginError(.forbidden, "the login was declined at the university", field: "$.ticket", reason: "anonymous_ticket") }
        guard ticket.count == 64, ticket.allSatisfy(\.isHexDigit) else {
            throw PluginError(.invalidInput, "a ticket is 64 hexadecimal digits (stagUserTicket in the address after logging in)", field: "$.ticket")
        }
        let client = STAGClient(http: http, base: base, ticket: Secret(ticket), timeout: timeout)
        let users: JSONValue
        do { users = try await client.json("help/getStagUserListForLoginTicketV2", [("ticket", ticket)]) } catch {
            if case .ticketExpired = error { throw PluginError(.forbidden, "IS/STAG does not know this ticket (expired or mistyped)", field: "$.ticket", reason: "ticket_rejected") }
            throw error.pluginError
        }
        let name = "\(users["jmeno"]?.stringValue ?? "") \(users["prijmeni"]?.stringValue ?? "")"
        return try await finishLogin(base: base, ticket: ticket, roles: users["stagUserInfo"]?.arrayValue ?? [], name: name,
                                     lifetime: input.longTicket == false ? 4 * 3600 : 90 * 86_400)
    }

    /// Takes the student role's `osCislo` and the teacher role's `ucitIdno` from `roles`, keeps the
    /// ticket only as a secret, and remembers who logged in and until when the ticket should last
    /// (STAG does not say: spec §2.2).
    func finishLogin(base: String, ticket: String, roles: [JSONValue], name: String, lifetime: TimeInterval) async throws -> JSONValue {
        let studentRole = roles.first { $0["osCislo"]?.stringValue != nil }
        let teacherRole = roles.first { Mapping.int($0["ucitIdno"]) != nil }
        guard studentRole != nil || teacherRole != nil,
              let userName = (studentRole ?? teacherRole)?["userName"]?.stringValue else {
            throw PluginError(.unprocessable, "this login is neither a student (ST) nor a teacher (VY)", reason: "no_supported_role")
        }
        let number = studentRole?["osCislo"]?.stringValue
        let teacherID = teacherRole.flatMap { Mapping.int($0["ucitIdno"]) }
        let expires = store.clock.now().addingTimeInterval(lifetime)
        try await secrets.store(Secret(ticket), named: Self.ticketSecret)
        // Notes written without any login (before notes were kept per person) go to the first person to log in.
        let orphans = try await store.storage.query("SELECT id FROM notes WHERE user_name IS NULL").compactMap { $0["id"].text }
        try await store.storage.write { batch in
            for id in orphans { batch.patch("notes", id: id, ["user_name": .text(userName), "base_url": .text(base)]) }
            batch.put("settings", id: "baseURL", ["value": .text(base)])
            batch.put("settings", id: "userName", ["value": .text(userName)])
            batch.put("settings", id: "name", ["value": .text(name)])
            batch.put("settings", id: "ticketExpires", ["value": .text(ISO.utc(expires))])
            batch.delete("settings", id: "ticketExpiredAt")
            if let number { batch.put("settings", id: "osCislo", ["value": .text(number)]) } else { batch.delete("settings", id: "osCislo") }
            if let teacherID { batch.put("settings", id: "ucitIdno", ["value": .text(String(teacherID))]) } else { batch.delete("settings", id: "ucitIdno") }
        }
        var answer: [String: JSONValue] = ["userName": .string(userName), "name": .string(name), "baseURL": .string(base),
                                           "roles": .array([number.map { _ in "student" }, teacherID.map { _ in "teacher" }].compactMap { $0 }.map(JSONValue.string)),
                                           "ticketExpires": .string(ISO.utc(expires))]
        if let number { answer["studentNumber"] = .string(number) }
        if let teacherID { answer["teacherId"] = .integer(teacherID) }
        return .object(answer)
    }

    /// HTTP Basic login where a university allows it (the thesis's DEMO path, spec §2.2): the login
    /// name and password go once to `help/getStagUserForActualUser`, whose `WSCOOKIE` becomes the
    /// ticket. The password is never stored or logged; such a ticket lasts a few hours.
    func basicLogin(_ input: BasicLogin) async throws -> JSONValue {
        guard let base = Universities.base(university: input.university, baseURL: input.baseURL) else {
            throw PluginError(.invalidInput, "unknown university; give one of `universities` or an https baseURL", field: "$.university")
        }
        let password = Secret(input.password)
        let credentials = Data("\(input.userName):\(password.revealed)".utf8).base64EncodedString()
        let response: OutboundResponse
        do {
            response = try await http.send(OutboundRequest(url: "\(base)/services/rest2/help/getStagUserForActualUser?outputFormat=JSON",
                                                           headers: ["Authorization": "Basic \(credentials)", "Accept": "application/json"],
                                                           timeout: timeout))
        } catch let error as PluginError where error.code == .notGranted {
            throw error  // the deployment's refusal of this host, not the university's silence
        } catch {
            throw PluginError(.unavailable, "IS/STAG could not be reached", reason: "unavailable")
        }
        if response.status == 401 { throw PluginError(.forbidden, "the login name or password is wrong", field: "$.password", reason: "invalid_credentials") }
        guard response.status == 200, let user = try? JSONValue(parsing: response.body) else {
            throw PluginError(.unavailable, "IS/STAG answered \(response.status)", reason: "unavailable")
        }
        let cookie = response.headers.first { $0.key.lowercased() == "set-cookie" }?.value ?? ""
        guard let range = cookie.range(of: "WSCOOKIE=") else {
            throw PluginError(.unprocessable, "IS/STAG logged in but gave no WSCOOKIE; use the single sign-on (login-url)", reason: "no_ticket")
        }
        let ticket = String(cookie[range.upperBound...].prefix { $0 != ";" })
        // getStagUserForActualUser answers one role; a person may hold two (a doctoral student who
        // teaches): the list of the login's roles, where IS/STAG has it, gives both.
        let client = STAGClient(http: http, base: base, ticket: Secret(ticket), timeout: timeout)
        let listed: [JSONValue]
        do { listed = try await client.json("help/getStagUserListForActualUser", [])["stagUserInfo"]?.arrayValue ?? [] } catch {
            // Not every IS/STAG offers the list; the login goes on with the one role it answered,
            // and the log says so, since a second role (teaching) is then missing until the next login.
            log?.warning("IS/STAG did not list the login's roles (\(error)); logged in with the one role it answered")
            listed = []
        }
        return try await finishLogin(base: base, ticket: ticket, roles: listed.isEmpty ? [user] : listed, name: input.userName, lifetime: 4 * 3600)
    }

    static func ticket(in text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let range = trimmed.range(of: "stagUserTicket=") else { return trimmed }
        return String(trimmed[range.upperBound...].prefix { $0 != "&" })
    }

    /// Who is logged in, from what the login kept, without asking IS/STAG: the same members as
    /// `complete-login`'s answer and `loggedIn`; `{"loggedIn": false}` when no ticket is kept. A
    /// ticket IS/STAG has since refused is still a login here, with `ticketExpiredAt` (log in again).
    func account() async throws -> JSONValue {
        guard try await secrets.secret(named: Self.ticketSecret) != nil, let base = try await store.setting("baseURL"),
              let userName = try await store.setting("userName") else { return ["loggedIn": false] }
        let number = try await store.setting("osCislo"), teacherID = try await store.setting("ucitIdno").flatMap { Int64($0) }
        var answer: [String: JSONValue] = ["loggedIn": true, "userName": .string(userName), "name": .string(try await store.setting("name") ?? userName),
                                           "baseURL": .string(base),
                                           "roles": .array([number.map { _ in "student" }, teacherID.map { _ in "teacher" }].compactMap { $0 }.map(JSONValue.string))]
        if let number { answer["studentNumber"] = .string(number) }
        if let teacherID { answer["teacherId"] = .integer(teacherID) }
        if let expires = try await store.setting("ticketExpires") { answer["ticketExpires"] = .string(expires) }
        if let expired = try await store.setting("ticketExpiredAt") { answer["ticketExpiredAt"] = .string(expired) }
        return .object(answer)
    }

    func logout() async throws -> JSONValue {
        try await secrets.removeSecret(named: Self.ticketSecret)
        try await store.clearCache()
        return ["loggedOut": true]
    }

    // MARK: Reads

    /// The client and the student number, or `notLoggedIn` (also for a login without the student role).
    func session() async throws(STAGFailure) -> (STAGClient, String, String) {
        guard let client = try await client(), let number = try? await store.setting("osCislo"),
              let user = try? await store.setting("userName") else { throw .notLoggedIn }
        return (client, number, user)
    }

    /// A client with the kept ticket, or `nil` when not logged in.
    func client() async throws(STAGFailure) -> STAGClient? {
        guard let base = try? await store.setting("baseURL"), let ticket = try? await secrets.secret(named: Self.ticketSecret) else { return nil }
        let language = (try? await store.setting("language")) ?? nil
        return STAGClient(http: http, base: base, ticket: ticket, timeout: timeout, language: language ?? "cs", onUnauthorized: onUnauthorized)
    }

    /// IS/STAG's language for this person's reads: `en` or `cs` (IS/STAG has no other). A change
    /// forgets what was read in the other language, so the next reads come in the new one.
    func setLanguage(_ input: LanguageInput) async throws -> JSONValue {
        let language = input.language == "en" ? "en" : "cs"
        if (try await store.setting("language") ?? "cs") != language {
            let cached = try await store.storage.query("SELECT id FROM cache").compactMap { $0["id"].text }
            try await store.storage.write { batch in
                batch.put("settings", id: "language", ["value": .text(language)])
                for key in cached { batch.delete("cache", id: key) }
            }
        }
        return ["language": .string(language)]
    }

    func profile() async throws -> JSONValue {
        try await store.cachedRead("profile") { () throws(STAGFailure) in
            let (client, number, _) = try await session()
            return Mapping.profile(try await client.json("student/getStudentInfo", [("osCislo", number)]))
        }
    }

    /// The student's subjects, each with its semester: one call per semester, since a subject item
    /// does not say which it belongs to (as the thesis's app asks, spec §2.4 #11).
    func subjects() async throws -> JSONValue {
        try await store.cachedRead("subjects") { () throws(STAGFailure) in
            let (client, number, _) = try await session()
            var all: [JSONValue] = []
            for semester in ["ZS", "LS"] {
                let raw = try await client.json("predmety/getPredmetyByStudent", [("osCislo", number), ("semestr", semester)])
                all += (Mapping.subjects(raw).arrayValue ?? []).map { var s = $0; s[set: "semester"] = .string(semester); return s }
            }
            return .array(all)
        }
    }

    func grades() async throws -> JSONValue {
        try await store.cachedRead("grades") { () throws(STAGFailure) in
            let (client, number, _) = try await session()
            return Mapping.grades(try await client.json("znamky/getZnamkyByStudent", [("osCislo", number)]))
        }
    }

    /// Study results by academic year with their statistics (``Results``), from the profile (the
    /// programme's type sets the credit target), the subjects (credits) and the grades.
    func results() async throws -> JSONValue {
        let profile = try await self.profile(), subjects = try await self.subjects(), grades = try await self.grades()
        let data = Results.report(grades: grades["data"]?.arrayValue ?? [], subjects: subjects["data"]?.arrayValue ?? [],
                                  programmeType: profile["data"]?["programmeType"]?.stringValue)
        return Store.combined([profile, subjects, grades], data: data)
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

struct LanguageInput: Decodable, Sendable { let language: String }
