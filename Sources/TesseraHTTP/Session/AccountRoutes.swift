import Foundation
import Hummingbird
import TesseraRuntime
import TesseraSDK

/// The console's accounts, for admins (the operator view's "Accounts"; docs/console.md):
/// `GET /v1/accounts` lists them (names, roles, sources; never a hash), `POST /v1/accounts`
/// `{name, password, role}` adds one, `DELETE /v1/accounts/{name}` removes one and ends its
/// sessions. An admin cannot remove their own account (a device keeps someone who can manage it).
struct AccountRoutes: Sendable {
    let host: any HostAPI
    let signIn: SignIn
    let maxBodyBytes: Int

    static let newAccount = RouteInput([
        "type": "object", "additionalProperties": false, "required": ["name", "password", "role"],
        "properties": [
            "name": ["type": "string", "minLength": 1, "maxLength": 100, "description": "The person's name: 1 to 100 characters on one line (code invalid_name)."],
            "password": ["type": "string", "minLength": 8, "maxLength": 1024, "description": "8 to 1024 characters (code weak_password). Never logged or repeated."],
            "role": ["type": "string", "enum": ["user", "admin"], "description": "user: their modules; admin: also the operator's view."],
        ],
    ])

    func list(_ request: Request, context: APIRequestContext) async throws -> Response {
        try Self.requireAdmin(context)
        let rows = signIn.accounts.all().map { account -> JSONValue in
            ["name": .string(account.name), "role": .string(account.role.rawValue), "source": .string(account.source)]
        }
        return .json(["accounts": .array(rows)])
    }

    func create(_ request: Request, context: APIRequestContext) async throws -> Response {
        try Self.requireAdmin(context)
        let input: JSONValue
        do { input = try await Self.newAccount.read(request, limit: maxBodyBytes) } catch let error as APIError where error.field == "$.password" {
            throw APIError(error.status, code: "weak_password", "a password is 8 to 1024 characters (the value is not repeated)", field: error.field)
        }
        do {
            let account = try signIn.accounts.create(name: input["name"]?.stringValue ?? "", password: input["password"]?.stringValue ?? "",
                                                     role: Principal.Role(rawValue: input["role"]?.stringValue ?? "user"))
            return .json(["name": .string(account.name), "role": .string(account.role.rawValue), "source": .string(account.source)], status: .created)
        } catch let error as AccountError {
            throw SessionRoutes.refusal(error)
        }
    }

    func remove(_ request: Request, context: APIRequestContext) async throws -> Response {
        try Self.requireAdmin(context)
        let name = context.parameters.get("name").flatMap { $0.removingPercentEncoding } ?? ""
        guard name.lowercased() != context.principal?.id.lowercased() else {
            throw APIError(.conflict, code: "own_account", "an admin cannot remove their own account")
        }
        do { try signIn.accounts.remove(name: name) } catch let error as AccountError { throw SessionRoutes.refusal(error) }
        try signIn.sessions.endAll(of: name, now: host.clock.now())
        return Response(status: .noContent)
    }

    static func requireAdmin(_ context: APIRequestContext) throws {
        guard context.principal?.role == .admin else { throw APIError(.forbidden, code: "forbidden", "managing accounts needs an admin") }
    }
}
