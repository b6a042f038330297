import Foundation
import HTTPTypes
import Hummingbird
import TesseraHub
import TesseraSDK
import TesseraSync

/// The hub's API (docs/hub.md), served when the deployment's role is `hub`: accounts, spaces and
/// their members, and per plugin push, pull and the in-sync check.
///
/// These routes authenticate on their own: a **device token** from `POST /v1/hub/login`
/// (`Authorization: Bearer tsd_…`), except `POST /v1/hub/login` (none) and `POST /v1/hub/people`
/// (the host's admin token: the operator creates accounts).
struct HubRoutes {
    let hub: HubStore
    let tokens: TokenStore
    let maxBodyBytes: Int
    /// Whether `POST /v1/hub/register` creates accounts (the deployment's `hub.registration`).
    var registrationOpen = false

    /// The media type of a `SyncWire` body.
    static let syncMediaType = "application/x-tessera-sync"

    /// Registers every hub route.
    static func add(to table: inout RouteTable, hub: HubStore, tokens: TokenStore, maxBodyBytes: Int, registrationOpen: Bool = false) {
        let routes = HubRoutes(hub: hub, tokens: tokens, maxBodyBytes: maxBodyBytes, registrationOpen: registrationOpen)
        table.add(.post, "/v1/hub/people", routes.createPerson)
        table.add(.post, "/v1/hub/login", routes.login)
        table.add(.post, "/v1/hub/register", routes.register)
        table.add(.post, "/v1/hub/password-reset", routes.requestPasswordReset)
        table.add(.post, "/v1/hub/password-reset/confirm", routes.confirmPasswordReset)
        table.add(.get, "/v1/hub/me", routes.me)
        table.add(.get, "/v1/hub/devices", routes.devices)
        table.add(.delete, "/v1/hub/devices/:device", routes.revokeDevice)
        table.add(.put, "/v1/hub/password", routes.changePassword)
        table.add(.get, "/v1/hub/spaces", routes.spaces)
        table.add(.put, "/v1/hub/spaces/:space", routes.registerSpace)
        table.add(.delete, "/v1/hub/spaces/:space", routes.deleteSpace)
        table.add(.post, "/v1/hub/spaces/:space/invitations", routes.invite)
        table.add(.post, "/v1/hub/invitations/accept", routes.accept)
        table.add(.get, "/v1/hub/spaces/:space/invitations", routes.spaceInvitations)
        table.add(.delete, "/v1/hub/spaces/:space/invitations/:invitation", routes.cancelInvitation)
        table.add(.get, "/v1/hub/invitations", routes.myInvitations)
        table.add(.post, "/v1/hub/invitations/:invitation/accept", routes.acceptInvitation)
        table.add(.post, "/v1/hub/invitations/:invitation/decline", routes.declineInvitation)
        table.add(.put, "/v1/hub/spaces/:space/members/:person", routes.setRole)
        table.add(.delete, "/v1/hub/spaces/:space/members/:person", routes.removeMember)
        table.add(.post, "/v1/hub/notifications", routes.relayNotification)
        table.add(.get, "/v1/hub/notifications", routes.notifications)
        table.add(.post, "/v1/hub/sync/:plugin/push", routes.push)
        table.add(.get, "/v1/hub/sync/:plugin/pull", routes.pull)
        table.add(.post, "/v1/hub/sync/:plugin/check", routes.check)
        table.add(.get, "/v1/hub/sync/:plugin/wait", routes.waitForChanges)
        table.add(.get, "/v1/hub/sync/:plugin/created", routes.rowsCreated)
    }

    // MARK: Accounts

    struct NewPerson: Decodable { let name: String; let password: String }
    struct LoginInput: Decodable { let name: String?; let email: String?; let password: String; let device: String }
    struct LoginOutput: Encodable { let person: HubPerson; let device: String; let token: String }

    func createPerson(_ request: Request, context: APIRequestContext) async throws -> Response {
        guard let token = request.headers[.authorization].flatMap(AuthMiddleware.bearerToken(in:)),
              let principal = tokens.principal(for: token) else {
            throw APIError.unauthorized("creating a person needs the hub's admin token: send Authorization: Bearer <admin token>")
        }
        guard principal.role == .admin else {
            throw APIError(.forbidden, code: "forbidden", "only the hub's admin token may create people")
        }
        let input = try await HubJSON.decode(NewPerson.self, from: request, limit: maxBodyBytes)
        return try HubJSON.response(try await run { try await hub.createPerson(name: input.name, password: input.password) }, status: .created)
    }

    func login(_ request: Request, context: APIRequestContext) async throws -> Response {
        let input = try await HubJSON.decode(LoginInput.self, from: request, limit: maxBodyBytes)
        guard let name = input.email ?? input.name else {
            throw APIError(.badRequest, code: "invalid_input", "give your 'email' (or account 'name')", field: "$.email")
        }
        let login = try await run { try await hub.login(name: name, password: input.password, deviceName: input.device) }
        return try HubJSON.response(LoginOutput(person: login.person, device: login.deviceID, token: login.token), status: .created)
    }

    struct RegisterInput: Decodable {
        let firstName: String; let surname: String; let email: String; let password: String; let acceptTerms: Bool; let device: String
    }

    /// Open self-registration (UC1): the person, and this device logged in.
    func register(_ request: Request, context: APIRequestContext) async throws -> Response {
        guard registrationOpen else {
            throw APIError(.forbidden, code: "registration_closed", "this hub does not take registrations: its operator adds people")
        }
        let input = try await HubJSON.decode(RegisterInput.self, from: request, limit: maxBodyBytes)
        let login = try await run {
            try await hub.register(HubStore.Registration(firstName: input.firstName, surname: input.surname, email: input.email,
                                                          password: input.password, acceptedTerms: input.acceptTerms, device: input.device))
        }
        return try HubJSON.response(LoginOutput(person: login.person, device: login.deviceID, token: login.token), status: .created)
    }

    struct ResetInput: Decodable { let email: String }
    struct ResetConfirmInput: Decodable { let email: String; let code: String; let password: String }
    struct ResetOutput: Encodable { let sent: Bool; let validMinutes: Int }

    /// UC5: a code by mail, if the address has an account; the same answer either way, after 5 s.
    func requestPasswordReset(_ request: Request, context: APIRequestContext) async throws -> Response {
        let input = try await HubJSON.decode(ResetInput.self, from: request, limit: maxBodyBytes)
        try await run { try await hub.requestPasswordReset(email: input.email) }
        return try HubJSON.response(ResetOutput(sent: true, validMinutes: Int(HubStore.resetCodeMillis / 60_000)), status: .accepted)
    }

    /// UC6: the code and a new password; every device is signed out. Answered after 5 s.
    func confirmPasswordReset(_ request: Request, context: APIRequestContext) async throws -> Response {
        let input = try await HubJSON.decode(ResetConfirmInput.self, from: request, limit: maxBodyBytes)
        try await run { try await hub.confirmPasswordReset(email: input.email, code: input.code, newPassword: input.password) }
        return Response(status: .noContent)
    }

    struct MeOutput: Encodable { let person: String; let device: String; let deviceName: String }

    func me(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        return try HubJSON.response(MeOutput(person: device.person, device: device.id, deviceName: device.name))
    }

    struct DevicesOutput: Encodable {
        let devices: [Device]
        struct Device: Encodable { let id: String; let name: String; let createdAt: String; let current: Bool }
    }

    func devices(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let records = try await run { try await hub.devices(of: device.person) }
        return try HubJSON.response(DevicesOutput(devices: records.map {
            DevicesOutput.Device(id: $0.id, name: $0.name, createdAt: Self.iso($0.createdAtMillis), current: $0.id == device.id)
        }))
    }

    func revokeDevice(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        try await run { try await hub.revokeDevice(context.parameters.get("device") ?? "", of: device.person) }
        return Response(status: .noContent)
    }

    struct PasswordInput: Decodable { let current: String; let new: String; let signOutOtherDevices: Bool? }

    func changePassword(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let input = try await HubJSON.decode(PasswordInput.self, from: request, limit: maxBodyBytes)
        try await run {
            try await hub.changePassword(of: device.person, current: input.current, new: input.new, keeping: device.id,
                                         signOutOtherDevices: input.signOutOtherDevices ?? false)
        }
        return Response(status: .noContent)
    }

    // MARK: Spaces and members

    struct SpacesOutput: Encodable { let spaces: [SpaceSummary]; let departures: [SpaceDeparture] }
    struct NameInput: Decodable { let name: String; let roles: JSONValue? }
    struct SpaceOutput: Encodable { let space: String; let created: Bool }
    struct InviteInput: Decodable { let role: SpaceRole; let expiresInSeconds: Int64?; let person: String?; let pluginRole: String?; let email: String? }
    struct InviteOutput: Encodable {
        let id: String; let code: String; let space: String; let role: SpaceRole; let invitee: HubPerson?
        let expiresAt: String; let expiresAtMillis: Int64; let pluginRole: String?
    }
    struct AcceptInput: Decodable { let code: String }
    struct MembershipOutput: Encodable { let space: String; let person: String; let role: SpaceRole }
    struct RoleOutput: Encodable { let space: String; let person: String; let role: SpaceRole; let pluginRole: String? }
    struct RoleInput: Decodable { let role: SpaceRole; let pluginRole: String? }

    func spaces(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let (spaces, departures) = try await run { try await hub.spaces(of: device.person, plugin: Self.plugin(request)) }
        return try HubJSON.response(SpacesOutput(spaces: spaces, departures: departures))
    }

    func registerSpace(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let space = context.parameters.get("space") ?? ""
        let input = try await HubJSON.decode(NameInput.self, from: request, limit: maxBodyBytes)
        let created = try await run {
            try await hub.registerSpace(space, name: input.name, by: device.person, plugin: Self.plugin(request), roles: input.roles)
        }
        return try HubJSON.response(SpaceOutput(space: space, created: created), status: created ? .created : .ok)
    }

    func deleteSpace(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        try await run { try await hub.deleteSpace(context.parameters.get("space") ?? "", by: device.person, plugin: Self.plugin(request)) }
        return Response(status: .noContent)
    }

    func invite(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let input = try await HubJSON.decode(InviteInput.self, from: request, limit: maxBodyBytes)
        let invitation = try await run {
            try await hub.invite(to: context.parameters.get("space") ?? "", role: input.role, expiresInSeconds: input.expiresInSeconds,
                                 by: device.person, invitee: input.person, plugin: Self.plugin(request), pluginRole: input.pluginRole,
                                 inviteeEmail: input.email)
        }
        return try HubJSON.response(InviteOutput(id: invitation.id, code: invitation.code, space: invitation.space, role: invitation.role,
                                                 invitee: invitation.invitee,
                                                 expiresAt: Self.iso(invitation.expiresAtMillis), expiresAtMillis: invitation.expiresAtMillis,
                                                 pluginRole: invitation.pluginRole),
                                    status: .created)
    }

    func accept(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let input = try await HubJSON.decode(AcceptInput.self, from: request, limit: maxBodyBytes)
        let (space, role) = try await run { try await hub.accept(code: input.code, by: device.person) }
        return try HubJSON.response(MembershipOutput(space: space, person: device.person, role: role))
    }

    func setRole(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let input = try await HubJSON.decode(RoleInput.self, from: request, limit: maxBodyBytes)
        let space = context.parameters.get("space") ?? "", person = context.parameters.get("person") ?? ""
        try await run {
            try await hub.setRole(input.role, of: person, in: space, by: device.person, plugin: Self.plugin(request), pluginRole: input.pluginRole)
        }
        return try HubJSON.response(RoleOutput(space: space, person: person, role: input.role, pluginRole: input.pluginRole))
    }

    func removeMember(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let space = context.parameters.get("space") ?? "", person = context.parameters.get("person") ?? ""
        try await run { try await hub.removeMember(person, from: space, by: device.person, plugin: Self.plugin(request)) }
        return Response(status: .noContent)
    }

    struct InvitationsOutput: Encodable { let invitations: [PendingOutput] }
    struct PendingOutput: Encodable {
        let id: String; let space: String; let spaceName: String; let role: SpaceRole; let inviter: HubPerson; let invitee: HubPerson?
        let expiresAt: String; let expiresAtMillis: Int64; let pluginRole: String?; let email: String?
        init(_ p: PendingInvitation) {
            email = p.inviteeEmail
            id = p.id; space = p.space; spaceName = p.spaceName; role = p.role; inviter = p.inviter; invitee = p.invitee
            expiresAt = HubRoutes.iso(p.expiresAtMillis); expiresAtMillis = p.expiresAtMillis; pluginRole = p.pluginRole
        }
    }

    /// An owner's view of a space's open invitations (never their codes).
    func spaceInvitations(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let pending = try await run {
            try await hub.invitations(of: context.parameters.get("space") ?? "", by: device.person, plugin: Self.plugin(request))
        }
        return try HubJSON.response(InvitationsOutput(invitations: pending.map(PendingOutput.init)))
    }

    func cancelInvitation(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        try await run {
            try await hub.cancelInvitation(context.parameters.get("invitation") ?? "", of: context.parameters.get("space") ?? "",
                                           by: device.person, plugin: Self.plugin(request))
        }
        return Response(status: .noContent)
    }

    /// The open invitations addressed to the caller.
    func myInvitations(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let pending = try await run { try await hub.invitations(for: device.person, plugin: Self.plugin(request)) }
        return try HubJSON.response(InvitationsOutput(invitations: pending.map(PendingOutput.init)))
    }

    func acceptInvitation(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let (space, role) = try await run {
            try await hub.acceptInvitation(context.parameters.get("invitation") ?? "", by: device.person, plugin: Self.plugin(request))
        }
        return try HubJSON.response(MembershipOutput(space: space, person: device.person, role: role))
    }

    func declineInvitation(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        try await run { try await hub.declineInvitation(context.parameters.get("invitation") ?? "", by: device.person, plugin: Self.plugin(request)) }
        return Response(status: .noContent)
    }

    /// The `plugin` query parameter: a plugin managing its own spaces names itself, and sees and
    /// manages only the spaces it registered.
    static func plugin(_ request: Request) -> String? { QueryParameters(request).string("plugin") }

    // MARK: Sync

    func push(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let plugin = context.parameters.get("plugin") ?? ""
        let bytes = try await Self.readSyncBody(request, limit: maxBodyBytes)
        let changes: [SyncChange]
        do { changes = try SyncWire.decode(bytes) } catch {
            throw APIError(.badRequest, code: "malformed_batch", "the body is not a valid sync batch: \(error)")
        }
        return try HubJSON.response(try await run { try await hub.push(plugin: plugin, changes: changes, from: device) })
    }

    func pull(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let query = QueryParameters(request)
        let after = try query.integer("after", in: 0...Int64.max) ?? 0
        let limit = try query.integer("limit", in: 1...Int64(HubStore.maxPullLimit)) ?? 1000
        let maxBytes = try query.integer("maxBytes", in: 1...Int64(16 << 20)) ?? Int64(HubStore.defaultPullBytes)
        let page = try await run {
            try await hub.pull(plugin: context.parameters.get("plugin") ?? "", person: device.person, after: after,
                         space: query.string("space"), limit: Int(limit), maxBytes: Int(maxBytes))
        }
        let body = SyncWire.encode(page.changes)
        return Response(status: .ok, headers: [
            .contentType: Self.syncMediaType,
            .syncCursor: String(page.cursor),
            .syncMore: page.more ? "true" : "false",
            .syncCount: String(page.changes.count),
        ], body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    struct CreatedOutput: Encodable {
        let rows: [Row]
        struct Row: Encodable { let table: String; let row: String }
    }

    /// The rows of a space whose first change the caller pushed: theirs under an `own` rule.
    func rowsCreated(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        guard let space = QueryParameters(request).string("space") else {
            throw APIError(.badRequest, code: "invalid_input", "name the space: ?space=<id>", field: "space")
        }
        let rows = try await run { try await hub.rowsCreated(plugin: context.parameters.get("plugin") ?? "", space: space, by: device.person) }
        return try HubJSON.response(CreatedOutput(rows: rows.map { CreatedOutput.Row(table: $0.table, row: $0.row) }))
    }

    struct WaitOutput: Encodable { let changes: Bool; let notifications: Bool? }

    /// A long poll: answers as soon as my spaces hold a change after `after`, or after `seconds`.
    func waitForChanges(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let query = QueryParameters(request)
        let after = try query.integer("after", in: 0...Int64.max) ?? 0
        let seconds = try query.integer("seconds", in: 0...Int64(HubStore.maxWaitSeconds)) ?? 25
        let notificationsAfter = try query.integer("notificationsAfter", in: 0...Int64.max)
        let answer = try await run {
            try await hub.waitForChanges(plugin: context.parameters.get("plugin") ?? "", person: device.person, after: after,
                                         notificationsAfter: notificationsAfter, seconds: Int(seconds))
        }
        return try HubJSON.response(WaitOutput(changes: answer.changes, notifications: notificationsAfter == nil ? nil : answer.notifications))
    }

    struct CheckInput: Decodable {
        let spaces: [String: SpaceTrie]
        struct SpaceTrie: Decodable { let root: UInt32?; let trie: [String: UInt32]? }
    }
    struct CheckOutput: Encodable {
        let spaces: [String: Answer]
        struct Answer: Encodable { let status: String; let since: String?; let sinceMillis: Int64?; let hubRoot: UInt32? }
    }

    func check(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let input = try await HubJSON.decode(CheckInput.self, from: request, limit: maxBodyBytes)
        var tries: [String: MerkleTrie] = [:]
        for (space, given) in input.spaces {
            if let nodes = given.trie {
                guard nodes.keys.allSatisfy(Self.isTriePrefix) else {
                    throw APIError(.badRequest, code: "invalid_input", "a trie's keys are '' and base-3 prefixes of at most 17 digits",
                                   field: "$.spaces.\(space).trie")
                }
                tries[space] = MerkleTrie(nodes: nodes)
            } else if let root = given.root {
                tries[space] = MerkleTrie(nodes: root == 0 ? [:] : ["": root])
            } else {
                throw APIError(.badRequest, code: "invalid_input", "give the space's 'root' hash or its 'trie'", field: "$.spaces.\(space)")
            }
        }
        let answers = try await run { try await hub.check(plugin: context.parameters.get("plugin") ?? "", person: device.person, tries: tries) }
        return try HubJSON.response(CheckOutput(spaces: answers.mapValues { answer in
            CheckOutput.Answer(status: answer.status,
                               since: answer.sinceMillis.map(Self.iso),
                               sinceMillis: answer.sinceMillis, hubRoot: answer.hubRoot)
        }))
    }

    // MARK: Notifications to a space's members

    struct RelayOutput: Encodable { let stored: Bool; let recipients: Int }

    /// Files a notification for the members of a space (docs/hub.md); idempotent by its key.
    func relayNotification(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let json: JSONValue
        do { json = try JSONValue(parsing: try await JSONRequestBody.read(request, limit: maxBodyBytes)) } catch let error as APIError {
            throw error
        } catch {
            throw APIError(.badRequest, code: "invalid_input", "the body is not JSON: \(error)")
        }
        func text(_ name: String) throws -> String {
            guard let value = json[name]?.stringValue else {
                throw APIError(.badRequest, code: "invalid_input", "'\(name)' must be a string", field: "$.\(name)")
            }
            return value
        }
        // Checked in the order the body lists them, so the first missing member is the one named.
        let key = try text("key"), notificationKey = try text("notificationKey"), plugin = try text("plugin")
        let space = try text("space"), title = try text("title")
        guard let due = json["dueAtMillis"]?.integerValue else {
            throw APIError(.badRequest, code: "invalid_input", "'dueAtMillis' must be an integer", field: "$.dueAtMillis")
        }
        let notification = RelayedNotification(
            key: key, notificationKey: notificationKey, plugin: plugin, space: space, title: title, body: json["body"]?.stringValue ?? "",
            payload: (json["payload"] ?? .null).serialized(), dueAtMillis: due, late: json["late"]?.boolValue ?? false,
            priority: json["priority"]?.stringValue ?? "normal", message: json["message"].map { $0.serialized() })
        let result = try await run {
            try await hub.relay(notification, excludingSender: json["excludingSender"]?.boolValue ?? false, from: device)
        }
        return try HubJSON.response(RelayOutput(stored: result.stored, recipients: result.recipients), status: result.stored ? .created : .ok)
    }

    /// The notifications filed for the caller's person after `after`.
    func notifications(_ request: Request, context: APIRequestContext) async throws -> Response {
        let device = try await authenticate(request)
        let query = QueryParameters(request)
        let after = try query.integer("after", in: 0...Int64.max) ?? 0
        let limit = try query.integer("limit", in: 1...Int64(HubStore.maxNotificationPage)) ?? 200
        let page = try await run { try await hub.notifications(for: device, after: after, limit: Int(limit)) }
        let items: [JSONValue] = page.notifications.map { filed in
            let n = filed.notification
            var item: [String: JSONValue] = [
                "id": .integer(filed.id), "key": .string(n.key), "notificationKey": .string(n.notificationKey), "plugin": .string(n.plugin),
                "space": .string(n.space), "sender": ["id": .string(filed.sender.id), "name": .string(filed.sender.name)],
                "title": .string(n.title), "body": .string(n.body), "payload": (try? JSONValue(parsing: n.payload)) ?? .null,
                "dueAtMillis": .integer(n.dueAtMillis), "dueAt": .string(Self.iso(n.dueAtMillis)), "late": .bool(n.late),
                "priority": .string(n.priority),
            ]
            if let message = n.message.flatMap({ try? JSONValue(parsing: $0) }) { item["message"] = message }
            return .object(item)
        }
        let body: JSONValue = ["notifications": .array(items), "cursor": .integer(page.cursor), "more": .bool(page.more)]
        return Response(status: .ok, headers: [.contentType: "application/json"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: Array(body.serialized().utf8))))
    }

    // MARK: Helpers

    /// The device the request's bearer token stands for; 401 otherwise.
    func authenticate(_ request: Request) async throws -> HubDevice {
        guard let header = request.headers[.authorization] else {
            throw APIError.unauthorized("the hub's routes need a device token: send Authorization: Bearer <token from POST /v1/hub/login>")
        }
        guard let token = AuthMiddleware.bearerToken(in: header) else { throw APIError.unauthorized("expected Authorization: Bearer <token>") }
        guard let device = try await run({ try await hub.device(forToken: token) }) else {
            throw APIError.unauthorized("the token is not a device token this hub issued")
        }
        return device
    }

    /// Runs a store call, turning its ``HubError`` into the API's error.
    func run<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as HubError where error.kind == .internal {
            // The store failed: the error middleware logs it and answers a bare 500.
            throw PluginError(.internal, error.description)
        } catch let error as HubError {
            throw APIError(error)
        }
    }

    /// ISO-8601 UTC with milliseconds, as the hub's JSON writes times.
    static func iso(_ millis: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(millis) / 1000))
    }

    /// A push body: `application/x-tessera-sync` (415 otherwise), at most `limit` bytes (413).
    static func readSyncBody(_ request: Request, limit: Int) async throws -> [UInt8] {
        let contentType = request.headers[.contentType]
        guard let contentType, contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == syncMediaType else {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type",
                           "expected Content-Type: \(syncMediaType), found \(contentType.map { "'\($0)'" } ?? "none")")
        }
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit { throw APIError.payloadTooLarge(limit: limit) }
        var bytes: [UInt8] = []
        for try await chunk in request.body {
            guard bytes.count + chunk.readableBytes <= limit else { throw APIError.payloadTooLarge(limit: limit) }
            bytes.append(contentsOf: chunk.readableBytesView)
        }
        return bytes
    }

    static func isTriePrefix(_ key: String) -> Bool {
        key.utf8.count <= MerkleTrie.keyDigits && key.utf8.allSatisfy { (0x30...0x32).contains($0) }
    }
}

extension HTTPField.Name {
    /// A pull's next cursor: the arrival sequence of the last change in the body.
    static let syncCursor = HTTPField.Name("Tessera-Sync-Cursor")!
    /// `true` when more changes follow the cursor: pull again at once.
    static let syncMore = HTTPField.Name("Tessera-Sync-More")!
    /// How many changes the body holds.
    static let syncCount = HTTPField.Name("Tessera-Sync-Count")!
}
