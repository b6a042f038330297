import Foundation
import TesseraSDK

/// The sync capability in the process tier: conflicts and spaces, each call answered by the
/// host's sync capability for this plugin (its own tables, its own spaces, the hub's checks).
struct SyncProxy: PluginSync {
    let peer: PeerConnection

    func conflicts() async throws -> [CellConflict] {
        try (try await peer.call(CapabilityMethod.syncConflicts).arrayValue ?? []).map(CellConflict.init(wire:))
    }

    func resolveConflict(table: String, id: String, column: String, value: SQLValue) async throws {
        _ = try await peer.call(CapabilityMethod.syncResolve, ["table": .string(table), "id": .string(id), "column": .string(column),
                                                                "value": value.wire])
    }

    var spaces: any PluginSpaces { SpacesProxy(peer: peer) }

    func sendMail(_ message: HubMailMessage) async throws -> HubMailReceipt {
        try HubMailReceipt(wire: try await peer.call(CapabilityMethod.syncMail, message.wire))
    }
}

/// The spaces of ``SyncProxy``: one call `spaces.<what>` each, with the SDK's arguments by name.
struct SpacesProxy: PluginSpaces {
    let peer: PeerConnection

    private func call(_ what: String, _ params: [String: JSONValue] = [:]) async throws -> JSONValue {
        try await peer.call(CapabilityMethod.spaces + what, .object(params))
    }
    private static func optional(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }

    func create(name: String) async throws -> SyncSpace { try SyncSpace(wire: try await call("create", ["name": .string(name)])) }
    func list() async throws -> [SyncSpace] { try (try await call("list").arrayValue ?? []).map(SyncSpace.init(wire:)) }
    func invite(to space: String, role: SpaceMemberRole, person: String?, expiresIn: Int?) async throws -> SpaceInvitation {
        try await invite(to: space, role: role, pluginRole: nil, person: person, expiresIn: expiresIn)
    }
    func invite(to space: String, role: SpaceMemberRole, pluginRole: String?, person: String?, expiresIn: Int?) async throws -> SpaceInvitation {
        try SpaceInvitation(wire: try await call("invite", [
            "space": .string(space), "role": .string(role.rawValue), "pluginRole": Self.optional(pluginRole),
            "person": Self.optional(person), "expiresIn": expiresIn.map { .integer(Int64($0)) } ?? .null]))
    }
    func members(of space: String) async throws -> SpaceMembership { try SpaceMembership(wire: try await call("members", ["space": .string(space)])) }
    func cancelInvitation(_ invitationID: String, in space: String) async throws {
        _ = try await call("cancelInvitation", ["invitation": .string(invitationID), "space": .string(space)])
    }
    func invitationsForMe() async throws -> [SpaceInvitation] {
        try (try await call("invitationsForMe").arrayValue ?? []).map(SpaceInvitation.init(wire:))
    }
    func accept(invitationID: String) async throws -> SyncSpace { try SyncSpace(wire: try await call("accept", ["invitation": .string(invitationID)])) }
    func accept(code: String) async throws -> SyncSpace { try SyncSpace(wire: try await call("accept", ["code": .string(code)])) }
    func decline(invitationID: String) async throws { _ = try await call("decline", ["invitation": .string(invitationID)]) }
    func setRole(_ role: SpaceMemberRole, of person: String, in space: String) async throws {
        try await setRole(role, pluginRole: nil, of: person, in: space)
    }
    func setRole(_ role: SpaceMemberRole, pluginRole: String?, of person: String, in space: String) async throws {
        _ = try await call("setRole", ["role": .string(role.rawValue), "pluginRole": Self.optional(pluginRole),
                                       "person": .string(person), "space": .string(space)])
    }
    func revoke(_ person: String, from space: String) async throws { _ = try await call("revoke", ["person": .string(person), "space": .string(space)]) }
    func leave(_ space: String) async throws { _ = try await call("leave", ["space": .string(space)]) }
    func delete(_ space: String) async throws { _ = try await call("delete", ["space": .string(space)]) }
    func currentPerson() async throws -> LoggedInPerson? { try LoggedInPerson(wire: try await call("currentPerson")) }
}
