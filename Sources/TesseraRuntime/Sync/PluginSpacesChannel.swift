import Foundation
import TesseraSDK
import TesseraSync
import TesseraSyncClient

/// ``PluginSpaces`` for one plugin: the hub's space routes called with this device's token and
/// the plugin's id, so the hub records the plugin on the spaces it registers and shows it only
/// those. Creating a space works offline (it waits in `sync-peers.sqlite` for the next round);
/// everything else needs the hub and says so (`hubUnreachable`).
struct PluginSpacesChannel: PluginSpaces {
    let pluginID: String
    /// The manifest's `sync.roles` as JSON, set as the rules of each space this plugin registers.
    let roles: JSONValue?
    /// The hub, the device's token and its sync state; throws `notLoggedIn` without a hub or token.
    let access: @Sendable () throws -> HubAccess
    /// Brings the plugin's sync round forward: after joining or leaving, its records follow soon.
    let roundSoon: @Sendable () -> Void

    func create(name: String) async throws -> SyncSpace {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 200 else {
            throw PluginError(.invalidInput, "a space's name must be 1 to 200 characters", field: "$.name")
        }
        let access = try access()
        let id = UUID().uuidString.lowercased()
        do {
            _ = try await access.connection.registerSpace(id, name: name, plugin: pluginID, roles: roles)
            return SyncSpace(id: id, name: name, role: .owner, registered: true)
        } catch let error as SyncClientError where error.status == 0 {
            // Offline: the space is this device's now; the next round registers it with its name.
            try access.state.keepUnregistered(space: id, name: name, hub: access.hub, plugin: pluginID)
            roundSoon()
            return SyncSpace(id: id, name: name, role: .owner, registered: false)
        } catch let error as SyncClientError {
            throw Self.pluginError(error)
        }
    }

    /// From the device's own login, without the hub: `nil` with no hub or no login.
    func currentPerson() async throws -> LoggedInPerson? {
        do { return try access().person } catch let error as PluginError where error.code == .notLoggedIn { return nil }
    }

    func list() async throws -> [SyncSpace] {
        let access = try access()
        return try await hub {
            try await registerOffline(access)
            return try await access.connection.spaces(plugin: pluginID).spaces.map(\.space)
        }
    }

    func invite(to space: String, role: SpaceMemberRole, person: String?, expiresIn: Int?) async throws -> SpaceInvitation {
        try await invite(to: space, role: role, pluginRole: nil, person: person, expiresIn: expiresIn)
    }

    func invite(to space: String, role: SpaceMemberRole, pluginRole: String?, person: String?, expiresIn: Int?) async throws -> SpaceInvitation {
        let access = try access()
        return try await hub {
            try await registerOffline(access)
            return try await access.connection.invite(to: space, role: role, pluginRole: pluginRole, person: person, expiresIn: expiresIn,
                                                      plugin: pluginID)
        }
    }

    func members(of space: String) async throws -> SpaceMembership {
        let access = try access()
        return try await hub {
            try await registerOffline(access)
            guard let found = try await access.connection.spaces(plugin: pluginID).spaces.first(where: { $0.space.id == space }) else {
                throw PluginError(.spaceNotFound, "no space \(space) of this plugin that you are a member of", field: "$.space")
            }
            let invitations = found.space.role == .owner ? try await access.connection.invitations(of: space, plugin: pluginID) : []
            return SpaceMembership(members: found.members, invitations: invitations)
        }
    }

    func cancelInvitation(_ invitationID: String, in space: String) async throws {
        let access = try access()
        try await hub { try await access.connection.cancelInvitation(invitationID, in: space, plugin: pluginID) }
    }

    func invitationsForMe() async throws -> [SpaceInvitation] {
        let access = try access()
        return try await hub { try await access.connection.invitationsForMe(plugin: pluginID) }
    }

    func accept(invitationID: String) async throws -> SyncSpace {
        let access = try access()
        return try await joined(access) { try await access.connection.acceptInvitation(invitationID, plugin: pluginID) }
    }

    func accept(code: String) async throws -> SyncSpace {
        let access = try access()
        return try await joined(access) { try await access.connection.accept(code: code) }
    }

    func decline(invitationID: String) async throws {
        let access = try access()
        try await hub { try await access.connection.declineInvitation(invitationID, plugin: pluginID) }
    }

    func setRole(_ role: SpaceMemberRole, of person: String, in space: String) async throws {
        try await setRole(role, pluginRole: nil, of: person, in: space)
    }

    func setRole(_ role: SpaceMemberRole, pluginRole: String?, of person: String, in space: String) async throws {
        let access = try access()
        try await hub { try await access.connection.setRole(role, pluginRole: pluginRole, of: person, in: space, plugin: pluginID) }
    }

    func revoke(_ person: String, from space: String) async throws {
        let access = try access()
        try await hub { try await access.connection.removeMember(person, from: space, plugin: pluginID) }
    }

    func leave(_ space: String) async throws {
        let access = try access()
        try await hub {
            try await access.connection.removeMember(try await access.connection.me(), from: space, plugin: pluginID)
        }
        roundSoon()  // the round drops the space's records here
    }

    func delete(_ space: String) async throws {
        let access = try access()
        try await hub { try await access.connection.deleteSpace(space, plugin: pluginID) }
        roundSoon()
    }

    // MARK: Helpers

    /// Joins through `accept`, then names the space from the hub's list and brings the round
    /// forward, which pulls the space's records.
    private func joined(_ access: HubAccess, _ accept: () async throws -> (space: String, role: SpaceMemberRole)) async throws -> SyncSpace {
        try await hub {
            let (space, role) = try await accept()
            roundSoon()
            let found = try await access.connection.spaces(plugin: pluginID).spaces.first { $0.space.id == space }
            if let found {
                // The record API holds this person to their plugin role from now, before any round.
                let standing = SyncPeerState.SpaceStanding(pluginRole: found.space.pluginRole,
                                                           rules: try DeviceSync.roleRules(found.rules, of: space))
                try access.state.setSpaceRole(standing, space: space, hub: access.hub, plugin: pluginID)
            }
            return SyncSpace(id: space, name: found?.space.name ?? space, role: role, pluginRole: found?.space.pluginRole)
        }
    }

    /// Registers what was created offline first, so later calls find those spaces at the hub.
    private func registerOffline(_ access: HubAccess) async throws {
        for (space, name) in try access.state.unregisteredSpaces(hub: access.hub, plugin: pluginID) {
            _ = try await access.connection.registerSpace(space, name: name, plugin: pluginID, roles: roles)
            try access.state.forgetUnregistered(space: space, hub: access.hub, plugin: pluginID)
        }
    }

    /// Runs a hub call, turning the hub's refusal into the plugin's error.
    private func hub<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as SyncClientError { throw Self.pluginError(error) }
    }

    /// The hub's refusal as a ``PluginError``: unreachable → `hubUnreachable`, a refused token →
    /// `notLoggedIn`, malformed input → `invalidInput` naming the field, anything else the hub's
    /// own code (`not_owner`, `last_owner`, …) with its message.
    static func pluginError(_ error: SyncClientError) -> PluginError {
        switch error.status {
        case 0: PluginError(.hubUnreachable, error.message)
        case 401: PluginError(.notLoggedIn, "the hub refused this device's token (\(error.code)): log in again with `tessera sync login NAME`")
        case 400: PluginError(.invalidInput, error.message, field: error.field)
        default: PluginError(PluginError.Code(rawValue: error.code), error.message, field: error.field)
        }
    }
}
