import Foundation
import HTTPTypes
import Hummingbird
import TesseraRuntime
import TesseraSDK
import TesseraSyncClient

/// Signing in to the console as people know it (docs/console.md, "Signing in"; docs/http.md):
/// - `GET /v1/session/setup` (open): what the sign-in page should offer — the first account of
///   a new device without a hub, or the account at the device's hub;
/// - `POST /v1/session` (open) `{name, password}`: signs in and sets the session cookie;
/// - `POST /v1/session/account` (open) `{name, password}`: the device's first account (an admin),
///   only while it has none and no hub person; signed in at once;
/// - `POST /v1/session/register` (open) `{firstName, surname, email, password, acceptTerms}`: a new
///   account at the device's hub (its open registration), on a device no hub person uses yet; the
///   device is logged in to the hub as them and they are signed in at once;
/// - `GET /v1/session`: who is signed in (by cookie or by bearer token), their role and language;
/// - `PUT /v1/session/language` `{language}`: the person's language (kept on their account);
/// - `DELETE /v1/session`: signs out (the session ends, the cookie is cleared).
///
/// On a device whose deployment names a hub, the name and password are the person's hub
/// account: the first sign-in logs the device in to the hub as them (as `tessera sync login`
/// does), and keeps a hash of the password so that later sign-ins work offline. Wrong passwords
/// are throttled (``SignInThrottle``); the password is never logged or answered.
struct SessionRoutes: Sendable {
    let host: any HostAPI
    let signIn: SignIn
    let maxBodyBytes: Int

    /// The paths a person reaches before signing in (a cookie or token is read there when present).
    static let openPaths = ["/v1/session", "/v1/session/setup", "/v1/session/account", "/v1/session/register"]

    static let credentials = RouteInput([
        "type": "object", "additionalProperties": false, "required": ["name", "password"],
        "properties": [
            "name": ["type": "string", "minLength": 1, "maxLength": 254, "description": "The account's name (an e-mail address for a hub account), in any case."],
            "password": ["type": "string", "minLength": 1, "maxLength": 1024, "description": "Never logged or repeated in an answer."],
        ],
    ])

    static let languageInput = RouteInput([
        "type": "object", "additionalProperties": false, "required": ["language"],
        "properties": ["language": ["type": "string", "enum": ["cs", "sk", "en"], "description": "The person's language."]],
    ])

    // MARK: Routes

    func setup(_ request: Request, context: APIRequestContext) async throws -> Response {
        let accounts = signIn.accounts.all()
        return .json(["hub": host.deployment.sync.map { .string($0.hub) } ?? .null,
                      "hubPerson": host.hubPerson.map { .string($0.name) } ?? .null,
                      "firstAccount": .bool(accounts.isEmpty && host.deployment.sync == nil),
                      "canRegister": .bool(host.deployment.sync != nil && !host.isLoggedInToHub)])
    }

    func signIn(_ request: Request, context: APIRequestContext) async throws -> Response {
        try Self.requireSameOrigin(request)
        let input = try await Self.readCredentials(request, limit: maxBodyBytes)
        let name = input["name"]?.stringValue ?? "", password = input["password"]?.stringValue ?? ""
        let now = host.clock.now()
        if let wait = signIn.throttle.wait(for: name, now: now) { throw Self.tooManyAttempts(wait) }
        guard let account = try await check(name: name, password: password) else {
            signIn.throttle.failed(name, now: now)
            throw APIError(.unauthorized, code: "wrong_password", "the name or the password is not right")
        }
        signIn.throttle.succeeded(name)
        return try start(account, request)
    }

    func firstAccount(_ request: Request, context: APIRequestContext) async throws -> Response {
        try Self.requireSameOrigin(request)
        let input = try await Self.readCredentials(request, limit: maxBodyBytes)
        guard host.deployment.sync == nil else {
            throw APIError(.conflict, code: "hub_accounts", "this device signs in with the account at its hub \(host.deployment.sync?.hub ?? "")")
        }
        do {
            let account = try signIn.accounts.create(name: input["name"]?.stringValue ?? "", password: input["password"]?.stringValue ?? "",
                                                     role: .admin, onlyIfNone: true)
            return try start(account, request, status: .created)
        } catch let error as AccountError {
            throw Self.refusal(error)
        }
    }

    /// A person new to the device's hub makes their account there from the sign-in page: the hub's
    /// own registration (its rules, its refusals, passed on by code), then the device is logged in
    /// as them, as the first sign-in with an existing hub account does.
    func register(_ request: Request, context: APIRequestContext) async throws -> Response {
        try Self.requireSameOrigin(request)
        let input: JSONValue
        do { input = try await SyncAccountRoutes.read(SyncAccountRoutes.registerInput, request, limit: maxBodyBytes) } catch let error as APIError {
            throw Self.asTheHubSaysIt(error)
        }
        guard let hub = host.deployment.sync else {
            throw APIError(.conflict, code: "no_hub", "this device has no hub: its accounts are made on the device (POST /v1/session/account)")
        }
        if host.isLoggedInToHub {
            throw APIError(.conflict, code: "device_taken",
                           "this device is used by \(host.hubPerson?.name ?? "another person") at \(hub.hub): sign in with that account")
        }
        let registration = HubRegistration(
            firstName: input["firstName"]?.stringValue ?? "", surname: input["surname"]?.stringValue ?? "",
            email: input["email"]?.stringValue ?? "", password: input["password"]?.stringValue ?? "",
            acceptTerms: input["acceptTerms"]?.boolValue ?? false, device: input["device"]?.stringValue ?? ProcessInfo.processInfo.hostName)
        let person = try await SyncAccountRoutes.hubCall { try await host.syncRegister(registration) }
        let account = try signIn.accounts.keepHubPassword(name: person.name, password: registration.password)
        return try start(account, request, status: .created)
    }

    func show(_ request: Request, context: APIRequestContext) async throws -> Response {
        guard let principal = context.principal, principal.role == .admin || principal.role == .user else {
            throw APIError.unauthorized("nobody is signed in: POST /v1/session, or send Authorization: Bearer <token>")
        }
        let account = context.signedInByCookie ? signIn.accounts.account(named: principal.id) : nil
        return .json(["name": .string(principal.id), "role": .string(principal.role.rawValue),
                      "via": .string(context.signedInByCookie ? "session" : "token"),
                      "language": account?.language.map { .string($0) } ?? .null,
                      "hub": host.deployment.sync.map { .string($0.hub) } ?? .null,
                      "hubPerson": host.hubPerson.map { .string($0.name) } ?? .null,
                      "mapTiles": mapTiles])
    }

    /// The deployment's tile server, for pages that draw a map; `null` without one, or where the
    /// host has no Leaflet to serve (Debian's `libjs-leaflet`), so a page never asks for a script
    /// that is not there.
    private var mapTiles: JSONValue {
        guard let tiles = host.deployment.mapTiles,
              FileManager.default.fileExists(atPath: ConsoleRoutes.leafletFolder + "/leaflet.js") else { return .null }
        return ["url": .string(tiles.url), "attribution": .string(tiles.attribution)]
    }

    func setLanguage(_ request: Request, context: APIRequestContext) async throws -> Response {
        guard let principal = context.principal else { throw APIError.unauthorized("nobody is signed in") }
        let input = try await Self.languageInput.read(request, limit: maxBodyBytes)
        if context.signedInByCookie { try signIn.accounts.setLanguage(input["language"]?.stringValue ?? "en", of: principal.id) }
        return Response(status: .noContent)
    }

    func signOut(_ request: Request, context: APIRequestContext) async throws -> Response {
        try Self.requireSameOrigin(request)
        if let secret = SessionCookie.secret(in: request) { try signIn.sessions.end(secret, now: host.clock.now()) }
        return Response(status: .noContent, headers: [.setCookie: SessionCookie.ending(for: request)])
    }

    // MARK: Helpers

    /// The account `name` and `password` open; `nil` for a wrong pair. A device with a hub and
    /// no hub person yet asks the hub, which logs the device in as that person.
    private func check(name: String, password: String) async throws -> LocalAccounts.Account? {
        if let account = signIn.accounts.verify(name: name, password: password) { return account }
        guard host.deployment.sync != nil, !host.isLoggedInToHub else { return nil }
        do {
            let person = try await host.syncLogin(name: name, password: password, device: ProcessInfo.processInfo.hostName)
            return try signIn.accounts.keepHubPassword(name: person.name, password: password)
        } catch let error as SyncClientError where error.status == 401 || error.status == 403 {
            return nil
        } catch let error as SyncClientError {
            throw SyncAccountRoutes.apiError(for: error)
        }
    }

    private func start(_ account: LocalAccounts.Account, _ request: Request, status: HTTPResponse.Status = .ok) throws -> Response {
        let secret = try signIn.sessions.start(name: account.name, role: account.role, now: host.clock.now())
        var response = Response.json(["name": .string(account.name), "role": .string(account.role.rawValue),
                                      "language": account.language.map { .string($0) } ?? .null], status: status)
        response.headers[.setCookie] = SessionCookie.starting(secret, for: request)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    static func readCredentials(_ request: Request, limit: Int) async throws -> JSONValue {
        do { return try await credentials.read(request, limit: limit) } catch let error as APIError where error.field == "$.password" {
            throw APIError(error.status, code: error.code, "$.password: expected a string of 1 to 1024 characters (the value is not repeated)",
                           field: error.field)
        }
    }

    /// A registration the input's rules refuse, with the code the hub gives the same refusal
    /// (`weak_password`, `invalid_email`, `invalid_name`, `terms_not_accepted`), so a page has one
    /// sentence for it whichever of the two refused it.
    static func asTheHubSaysIt(_ error: APIError) -> APIError {
        let code: String? = switch error.field {
        case "$.password": "weak_password"
        case "$.email": "invalid_email"
        case "$.firstName", "$.surname": "invalid_name"
        case "$.acceptTerms": "terms_not_accepted"
        default: nil
        }
        guard let code else { return error }
        return APIError(error.status, code: code, error.message, field: error.field, headers: error.headers)
    }

    static func requireSameOrigin(_ request: Request) throws {
        guard SessionCookie.isSameOrigin(request) else {
            throw APIError(.forbidden, code: "cross_site", "this request came from another site's page")
        }
    }

    static func tooManyAttempts(_ wait: TimeInterval) -> APIError {
        let seconds = Int(wait.rounded(.up))
        return APIError(.tooManyRequests, code: "too_many_attempts",
                        "too many wrong passwords for this name: try again in \(seconds) s", headers: [.retryAfter: String(seconds)])
    }

    static func refusal(_ error: AccountError) -> APIError {
        switch error {
        case .invalidName: APIError(.badRequest, code: "invalid_name", error.description, field: "$.name")
        case .weakPassword: APIError(.badRequest, code: "weak_password", error.description, field: "$.password")
        case .exists: APIError(.conflict, code: "name_taken", error.description, field: "$.name")
        case .notFound: APIError(.notFound, code: "not_found", error.description, field: "$.name")
        case .accountsExist: APIError(.conflict, code: "accounts_exist", error.description)
        }
    }
}
