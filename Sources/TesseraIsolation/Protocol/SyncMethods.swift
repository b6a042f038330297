import Foundation
import TesseraSDK

/// `sync`: the plugin's conflicts, its e-mail through the hub, and its spaces (``SpacesMethods``),
/// answered by the host's sync capability for this plugin (its own tables, the hub's checks).
public enum SyncMethods {
    public static let conflicts = CapabilityMethodSpec(
        "sync.conflicts", capability: "sync", "The cells two devices changed apart, not yet resolved.",
        parameters: WireSchema.null,
        result: WireSchema.array(WireSchema.value("CellConflict", required: ["table", "id", "column", "current"])))
    public static let resolveConflict = CapabilityMethodSpec(
        "sync.resolveConflict", capability: "sync", "Resolves a cell's conflict with the value to keep.",
        parameters: WireSchema.object(["table": WireSchema.string, "id": WireSchema.string, "column": WireSchema.string, "value": WireSchema.sqlValue],
                                      required: ["table", "id", "column", "value"]),
        result: WireSchema.null)
    public static let mail = CapabilityMethodSpec(
        "sync.mail", capability: "sync", "Sends an e-mail through the hub for the person logged in (an attachment's bytes in base64); the hub queues it and answers at once.",
        parameters: WireSchema.value("HubMailMessage", required: ["to", "subject", "text"]),
        result: WireSchema.value("HubMailReceipt", required: ["id", "to", "queuedAt", "remainingToday"]))

    public static let all = [conflicts, resolveConflict, mail]
}

/// The spaces of the `sync` capability (``PluginSpaces``): the SDK's arguments by name.
public enum SpacesMethods {
    static let space = WireSchema.value("SyncSpace", required: ["id", "name", "role", "registered"])
    static let invitation = WireSchema.value("SpaceInvitation", required: ["id", "space", "spaceName", "role"])
    static let inSpace = WireSchema.object(["space": WireSchema.string], required: ["space"])
    static let optionalString = WireSchema.nullable(WireSchema.string)

    private static func method(_ what: String, _ summary: String, parameters: JSONValue, result: JSONValue) -> CapabilityMethodSpec {
        CapabilityMethodSpec("spaces." + what, capability: "sync", summary, parameters: parameters, result: result)
    }

    public static let create = method("create", "Creates a space the person owns.",
                                      parameters: WireSchema.object(["name": WireSchema.string], required: ["name"]), result: space)
    static let nothing = WireSchema.object([:], required: [])

    public static let list = method("list", "The spaces the person belongs to.", parameters: nothing, result: WireSchema.array(space))
    public static let invite = method(
        "invite", "Invites someone (by the hub's person, or anyone with the code) to a space with a role.",
        parameters: WireSchema.object(["space": WireSchema.string, "role": WireSchema.string, "pluginRole": optionalString,
                                       "person": optionalString, "expiresIn": WireSchema.nullable(WireSchema.integer)], required: ["space", "role"]),
        result: invitation)
    public static let members = method(
        "members", "A space's members and open invitations.", parameters: inSpace,
        result: WireSchema.object(["members": WireSchema.array(WireSchema.any), "invitations": WireSchema.array(invitation)],
                                  required: ["members", "invitations"], of: "SpaceMembership"))
    public static let cancelInvitation = method(
        "cancelInvitation", "Cancels an invitation to a space.",
        parameters: WireSchema.object(["invitation": WireSchema.string, "space": WireSchema.string], required: ["invitation", "space"]),
        result: WireSchema.null)
    public static let invitationsForMe = method("invitationsForMe", "The invitations waiting for the person.",
                                                parameters: nothing, result: WireSchema.array(invitation))
    public static let accept = method(
        "accept", "Accepts an invitation, by its id or by its code.",
        parameters: WireSchema.object(["invitation": WireSchema.string, "code": WireSchema.string], required: []), result: space)
    public static let decline = method("decline", "Declines an invitation.",
                                       parameters: WireSchema.object(["invitation": WireSchema.string], required: ["invitation"]),
                                       result: WireSchema.null)
    public static let setRole = method(
        "setRole", "Sets a member's role (and the plugin's role) in a space.",
        parameters: WireSchema.object(["role": WireSchema.string, "pluginRole": optionalString, "person": WireSchema.string, "space": WireSchema.string],
                                      required: ["role", "person", "space"]),
        result: WireSchema.null)
    public static let revoke = method(
        "revoke", "Removes a member from a space.",
        parameters: WireSchema.object(["person": WireSchema.string, "space": WireSchema.string], required: ["person", "space"]),
        result: WireSchema.null)
    public static let leave = method("leave", "Leaves a space.", parameters: inSpace, result: WireSchema.null)
    public static let delete = method("delete", "Deletes a space the person owns.", parameters: inSpace, result: WireSchema.null)
    public static let currentPerson = method(
        "currentPerson", "The person logged in to the hub on this device, or null.", parameters: nothing,
        result: WireSchema.nullable(WireSchema.value("LoggedInPerson", required: ["id", "name"])))

    public static let all = [create, list, invite, members, cancelInvitation, invitationsForMe, accept, decline, setRole, revoke,
                             leave, delete, currentPerson]
}

/// The sync capability in the process tier: conflicts and spaces, each call answered by the
/// host's sync capability for this plugin (its own tables, its own spaces, the hub's checks).
struct SyncProxy: PluginSync {
    let peer: PeerConnection

    func conflicts() async throws -> [CellConflict] {
        try (try await peer.call(SyncMethods.conflicts).arrayValue ?? []).map(CellConflict.init(wire:))
    }

    func resolveConflict(table: String, id: String, column: String, value: SQLValue) async throws {
        _ = try await peer.call(SyncMethods.resolveConflict, ["table": .string(table), "id": .string(id), "column": .string(column),
                                                                "value": value.wire])
    }

    var spaces: any PluginSpaces { SpacesProxy(peer: peer) }

    func sendMail(_ message: HubMailMessage) async throws -> HubMailReceipt {
        try HubMailReceipt(wire: try await peer.call(SyncMethods.mail, message.wire))
    }
}

/// The spaces of ``SyncProxy``: one call of ``SpacesMethods`` each.
struct SpacesProxy: PluginSpaces {
    let peer: PeerConnection

    private func call(_ method: CapabilityMethodSpec, _ params: [String: JSONValue] = [:]) async throws -> JSONValue {
        try await peer.call(method, .object(params))
    }
    private static func optional(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }

    func create(name: String) async throws -> SyncSpace { try SyncSpace(wire: try await call(SpacesMethods.create, ["name": .string(name)])) }
    func list() async throws -> [SyncSpace] { try (try await call(SpacesMethods.list).arrayValue ?? []).map(SyncSpace.init(wire:)) }
    func invite(to space: String, role: SpaceMemberRole, person: String?, expiresIn: Int?) async throws -> SpaceInvitation {
        try await invite(to: space, role: role, pluginRole: nil, person: person, expiresIn: expiresIn)
    }
    func invite(to space: String, role: SpaceMemberRole, pluginRole: String?, person: String?, expiresIn: Int?) async throws -> SpaceInvitation {
        try SpaceInvitation(wire: try await call(SpacesMethods.invite, [
            "space": .string(space), "role": .string(role.rawValue), "pluginRole": Self.optional(pluginRole),
            "person": Self.optional(person), "expiresIn": expiresIn.map { .integer(Int64($0)) } ?? .null]))
    }
    func members(of space: String) async throws -> SpaceMembership { try SpaceMembership(wire: try await call(SpacesMethods.members, ["space": .string(space)])) }
    func cancelInvitation(_ invitationID: String, in space: String) async throws {
        _ = try await call(SpacesMethods.cancelInvitation, ["invitation": .string(invitationID), "space": .string(space)])
    }
    func invitationsForMe() async throws -> [SpaceInvitation] {
        try (try await call(SpacesMethods.invitationsForMe).arrayValue ?? []).map(SpaceInvitation.init(wire:))
    }
    func accept(invitationID: String) async throws -> SyncSpace { try SyncSpace(wire: try await call(SpacesMethods.accept, ["invitation": .string(invitationID)])) }
    func accept(code: String) async throws -> SyncSpace { try SyncSpace(wire: try await call(SpacesMethods.accept, ["code": .string(code)])) }
    func decline(invitationID: String) async throws { _ = try await call(SpacesMethods.decline, ["invitation": .string(invitationID)]) }
    func setRole(_ role: SpaceMemberRole, of person: String, in space: String) async throws {
        try await setRole(role, pluginRole: nil, of: person, in: space)
    }
    func setRole(_ role: SpaceMemberRole, pluginRole: String?, of person: String, in space: String) async throws {
        _ = try await call(SpacesMethods.setRole, ["role": .string(role.rawValue), "pluginRole": Self.optional(pluginRole),
                                       "person": .string(person), "space": .string(space)])
    }
    func revoke(_ person: String, from space: String) async throws { _ = try await call(SpacesMethods.revoke, ["person": .string(person), "space": .string(space)]) }
    func leave(_ space: String) async throws { _ = try await call(SpacesMethods.leave, ["space": .string(space)]) }
    func delete(_ space: String) async throws { _ = try await call(SpacesMethods.delete, ["space": .string(space)]) }
    func currentPerson() async throws -> LoggedInPerson? { try LoggedInPerson(wire: try await call(SpacesMethods.currentPerson)) }
}
