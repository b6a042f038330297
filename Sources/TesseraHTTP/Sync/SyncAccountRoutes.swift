import Foundation
import Hummingbird
import TesseraRuntime
import TesseraSDK
import TesseraSyncClient

/// The device's person at its hub, over HTTP (docs/sync.md, "The device's person"):
/// `POST /v1/sync/register` (UC1, UC2: the hub's open registration and this device logged in, in
/// one request), `POST /v1/sync/login` (UC3), `POST /v1/sync/logout` (UC4) and `GET /v1/sync/me`.
///
/// **Admin only.** Which person a device is logged in as decides whose data it holds, and logging
/// out removes every synced row from it: that is the device operator's, as `tessera sync login`
/// is (the console's pages are opened with the admin token). A user token gets 403.
///
/// A device holds one person's data at a time, so logging in or registering while logged in is
/// refused (409 `already_logged_in`): log out first. The password is never logged, never put in
/// an error, and never answered.
struct SyncAccountRoutes: Sendable {
    let host: any HostAPI
    /// Where the hub person's password is kept for the console's sign-in (``LocalAccounts``).
    var signIn: SignIn? = nil
    let maxBodyBytes: Int

    /// A character that ends no line, and one that is no blank (ECMA's `\\s` leaves out U+000B and
    /// U+0085, which Swift trims): the hub's rules for a name, in a pattern.
    static let oneLine = "[^\\n\\r\\u000b\\u000c\\u0085\\u2028\\u2029]"
    static let notBlank = "[^\\s\\u000b\\u0085]"

    /// `POST /v1/sync/register`: what the hub's `POST /v1/hub/register` takes, the device's name
    /// optional. The rules are the hub's, stated here so a client can check them before asking.
    static let registerInput = RouteInput([
        "type": "object", "additionalProperties": false, "required": ["firstName", "surname", "email", "password", "acceptTerms"],
        "properties": [
            "firstName": name("The person's first name"), "surname": name("The person's surname"),
            "email": ["type": "string", "minLength": 3, "maxLength": 254, "pattern": "^[^\\s@<>,;]+@[^\\s@<>,;.][^\\s@<>,;]*\\.[^\\s@<>,;]*[^\\s@<>,;.]$",
                      "description": "The account's name, kept in lowercase: name@domain.tld, no blanks, no <>,; (code invalid_email, or email_taken if an account has it)."],
            "password": password,
            "acceptTerms": ["type": "boolean", "const": true, "description": "The hub's terms of use accepted: registration needs it (code terms_not_accepted)."],
            "device": device,
        ],
    ])

    /// `POST /v1/sync/login`: the person's account name (their address, when they registered).
    static let loginInput = RouteInput([
        "type": "object", "additionalProperties": false, "required": ["name", "password"],
        "properties": [
            "name": ["type": "string", "minLength": 1, "maxLength": 254, "description": "The account name (an address, in any case, for a person who registered)."],
            "password": ["type": "string", "minLength": 1, "maxLength": 1024, "description": "Never logged or repeated in an answer."],
            "device": device,
        ],
    ])

    /// `POST /v1/sync/logout`.
    static let logoutInput = RouteInput([
        "type": "object", "additionalProperties": false,
        "properties": [
            "discardUnsynced": ["type": "boolean", "description": "Log out even if the last sync round fails: what was not synced is lost (default false: refused with 409)."],
        ],
    ])

    private static func name(_ what: String) -> JSONValue {
        ["type": "string", "minLength": 1, "maxLength": 100, "pattern": .string("^\(oneLine)*\(notBlank)\(oneLine)*$"),
         "description": .string("\(what): 1 to 100 characters on one line, not only blanks (code invalid_name).")]
    }

    private static let password: JSONValue = [
        "type": "string", "minLength": 8, "maxLength": 1024,
        "description": "8 to 1024 characters (the hub's rule, code weak_password). Never logged or repeated in an answer.",
    ]

    private static let device: JSONValue = [
        "type": "string", "minLength": 1, "maxLength": 100, "pattern": .string(notBlank),
        "description": "A name for this device at the hub, 1 to 100 characters, not only blanks (default: the host's name).",
    ]

    // MARK: Routes

    func register(_ request: Request, context: APIRequestContext) async throws -> Response {
        try Self.requireAdmin(context)
        let input = try await Self.read(Self.registerInput, request, limit: maxBodyBytes)
        try requireLoggedOut()
        let registration = HubRegistration(
            firstName: input["firstName"]?.stringValue ?? "", surname: input["surname"]?.stringValue ?? "",
            email: input["email"]?.stringValue ?? "", password: input["password"]?.stringValue ?? "",
            acceptTerms: input["acceptTerms"]?.boolValue ?? false, device: deviceName(input))
        let person = try await Self.hubCall { try await host.syncRegister(registration) }
        keepHubPassword(person.name, registration.password)
        return .json(answer(person), status: .created)
    }

    func login(_ request: Request, context: APIRequestContext) async throws -> Response {
        try Self.requireAdmin(context)
        let input = try await Self.read(Self.loginInput, request, limit: maxBodyBytes)
        try requireLoggedOut()
        let person = try await Self.hubCall {
            try await host.syncLogin(name: input["name"]?.stringValue ?? "", password: input["password"]?.stringValue ?? "", device: deviceName(input))
        }
        keepHubPassword(person.name, input["password"]?.stringValue ?? "")
        return .json(answer(person))
    }

    /// The person's hub password opens the console too; said in the log when it could not be kept
    /// (the device is logged in to the hub either way).
    private func keepHubPassword(_ name: String, _ password: String) {
        do { try signIn?.accounts.keepHubPassword(name: name, password: password) } catch {
            host.options.log(.error, "http", "\(name) is logged in to the hub, but their console sign-in could not be kept (\(error)): they cannot sign in to the console with that password")
        }
    }

    func logout(_ request: Request, context: APIRequestContext) async throws -> Response {
        try Self.requireAdmin(context)
        let input = try await Self.read(Self.logoutInput, request, limit: maxBodyBytes)
        let person = host.hubPerson
        let report = try await host.syncLogout(discardUnsynced: input["discardUnsynced"]?.boolValue ?? false)
        // The person's data left the device; so does their sign-in.
        if let person, let signIn, signIn.accounts.account(named: person.name)?.source == "hub" {
            do { try signIn.accounts.remove(name: person.name) } catch {
                host.options.log(.error, "http", "\(person.name) logged out, but their console account could not be removed (\(error)): remove it with tessera account remove")
            }
            do { try signIn.sessions.endAll(of: person.name, now: host.clock.now()) } catch {
                host.options.log(.error, "http", "\(person.name) logged out, but their console sessions could not be ended on disk (\(error)): after a restart they would be signed in again")
            }
        }
        return .json(["rows": .integer(Int64(report.rows.values.reduce(0, +))), "files": .integer(Int64(report.files.count)),
                      "notifications": .integer(Int64(report.notifications))])
    }

    /// `GET /v1/sync/me`: the hub, and who this device is logged in as (`null` when nobody is).
    func me(_ request: Request, context: APIRequestContext) async throws -> Response {
        try Self.requireAdmin(context)
        return .json(answer(host.hubPerson))
    }

    // MARK: Helpers

    private func answer(_ person: LoggedInPerson?) -> JSONValue {
        ["hub": host.deployment.sync.map { JSONValue.string($0.hub) } ?? .null, "loggedIn": .bool(host.isLoggedInToHub),
         "person": person.map(Self.personJSON) ?? .null, "plugins": .object(syncState())]
    }

    /// `{"id", "name", "displayName"?}`: the account, and the names the person registered with.
    static func personJSON(_ person: LoggedInPerson) -> JSONValue {
        var members: [String: JSONValue] = ["id": .string(person.id), "name": .string(person.name)]
        if let displayName = person.displayName { members["displayName"] = .string(displayName) }
        return .object(members)
    }

    /// Per syncing plugin, what a page shows a person about their data (issue 41, defect 9): how
    /// many of this device's changes wait to be sent (`waiting`), and when the last sync round
    /// ran and whether it reached the hub (`lastRound` `{at, ok}`; absent before the first).
    private func syncState() -> [String: JSONValue] {
        let rounds = host.lastSyncRounds()
        var plugins: [String: JSONValue] = [:]
        for id in host.syncingPlugins {
            let waiting = ((try? host.pendingChanges(of: id)) ?? nil)?.values.reduce(0, +) ?? 0
            var state: [String: JSONValue] = ["waiting": .integer(Int64(waiting))]
            if let round = rounds[id] {
                state["lastRound"] = ["at": .string(round.at.formatted(.iso8601)), "ok": .bool(round.error == nil)]
            }
            plugins[id] = .object(state)
        }
        return plugins
    }

    private func deviceName(_ input: JSONValue) -> String {
        input["device"]?.stringValue ?? ProcessInfo.processInfo.hostName
    }

    private func requireLoggedOut() throws {
        guard let hub = host.deployment.sync else {
            throw APIError(.conflict, code: "no_hub", "deployment '\(host.deployment.name)' names no hub: add providers.sync.hub")
        }
        guard !host.isLoggedInToHub else {
            let who = host.hubPerson.map { " as \($0.name)" } ?? ""
            throw APIError(.conflict, code: "already_logged_in", "this device is logged in to \(hub.hub)\(who): log out first (POST /v1/sync/logout)")
        }
    }

    static func requireAdmin(_ context: APIRequestContext) throws {
        guard context.principal?.role == .admin else {
            throw APIError(.forbidden, code: "forbidden", "logging this device in or out needs an admin token")
        }
    }

    /// The route's input; a refused password is named without its value.
    static func read(_ input: RouteInput, _ request: Request, limit: Int) async throws -> JSONValue {
        do { return try await input.read(request, limit: limit) } catch let error as APIError where error.field == "$.password" {
            throw APIError(error.status, code: error.code, "$.password: expected a string of 8 to 1024 characters (the value is not repeated)",
                           field: error.field)
        }
    }

    /// The hub's refusal as this edge's answer: its code, message and field, at the hub's status,
    /// except that the hub's 401 (wrong name or password) is 403 here — the caller's token was
    /// good — and no answer is 503 `hub_unreachable`, a hub's 5xx 502 `hub_error`.
    static func hubCall<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as SyncClientError { throw apiError(for: error) }
    }

    /// The answer for a hub's refusal (see ``hubCall(_:)``).
    static func apiError(for error: SyncClientError) -> APIError {
        switch error.status {
        case 0: APIError(.serviceUnavailable, code: "hub_unreachable", error.message)
        case 401: APIError(.forbidden, code: error.code, error.message, field: error.field)
        case 500...: APIError(.badGateway, code: "hub_error", "the hub failed (\(error.status)): \(error.message)")
        default: APIError(HTTPResponse.Status(code: error.status), code: error.code, error.message, field: error.field)
        }
    }
}
