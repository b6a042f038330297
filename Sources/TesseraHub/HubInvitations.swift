import Foundation
import TesseraSDK

/// Invitations by id: an owner lists a space's open invitations and cancels one; a person lists
/// the invitations addressed to them and accepts or declines one without its code. (Accepting by
/// code is ``HubStore/accept(code:by:)``.)
extension HubStore {
    /// The space's invitations not accepted and not expired, oldest first; owners only.
    public func invitations(of id: String, by person: String, plugin: String? = nil) async throws(HubError) -> [PendingInvitation] {
        if let plugin { try Self.checkPlugin(plugin) }
        let now = nowMillis
        return try await transaction { connection in
            let space = try Self.sharedSpaceID(id, person: person)
            try await Self.requirePluginSpace(space, plugin: plugin, on: connection)
            try await Self.requireOwner(space, person: person, on: connection)
            return try await Self.pendingInvitations(where: "i.space = ?", [.text(space)], now: now, person: person, on: connection)
        }
    }

    /// Cancels an open invitation of a space; owners only. Its code stops working at once.
    public func cancelInvitation(_ invitation: String, of id: String, by person: String, plugin: String? = nil) async throws(HubError) {
        if let plugin { try Self.checkPlugin(plugin) }
        try await transaction { connection in
            let space = try Self.sharedSpaceID(id, person: person)
            try await connection.lock(Self.membershipLock(space))
            try await Self.requirePluginSpace(space, plugin: plugin, on: connection)
            try await Self.requireOwner(space, person: person, on: connection)
            let removed = try await connection.execute("DELETE FROM hub_invitations WHERE id = ? AND space = ? AND accepted_by IS NULL",
                                                       [.text(invitation), .text(space)])
            guard removed == 1 else {
                throw HubError(.notFound, "invitation_not_found", "\(id) has no open invitation \(invitation)")
            }
        }
    }

    /// The open invitations addressed to `person` (with `plugin`, only to that plugin's spaces),
    /// oldest first: a badge's count.
    public func invitations(for person: String, plugin: String? = nil) async throws(HubError) -> [PendingInvitation] {
        if let plugin { try Self.checkPlugin(plugin) }
        let now = nowMillis
        return try await transaction { connection in
            var clause = "i.invitee = ?"
            var arguments: [SQLValue] = [.text(person)]
            if let plugin {
                clause += " AND (s.plugin IS NULL OR s.plugin = ?)"
                arguments.append(.text(plugin))
            }
            return try await Self.pendingInvitations(where: clause, arguments, now: now, person: person, on: connection)
        }
    }

    /// Accepts an invitation addressed to `person`, by its id.
    public func acceptInvitation(_ invitation: String, by person: String, plugin: String? = nil) async throws(HubError) -> (space: String, role: SpaceRole) {
        let hash = try await addressedInvitation(invitation, to: person, plugin: plugin)
        return try await accept(codeHash: hash, by: person)
    }

    /// Declines an invitation addressed to `person`: it is removed, and its code stops working.
    public func declineInvitation(_ invitation: String, by person: String, plugin: String? = nil) async throws(HubError) {
        _ = try await addressedInvitation(invitation, to: person, plugin: plugin)
        try await transaction { connection in
            try await connection.execute("DELETE FROM hub_invitations WHERE id = ? AND invitee = ? AND accepted_by IS NULL",
                                         [.text(invitation), .text(person)])
        }
    }

    /// The code hash of an open invitation addressed to `person`; `invitation_not_found` for any
    /// other (someone else's invitations are not theirs to know of).
    private func addressedInvitation(_ invitation: String, to person: String, plugin: String?) async throws(HubError) -> [UInt8] {
        if let plugin { try Self.checkPlugin(plugin) }
        return try await transaction { connection in
            guard let row = try await connection.fetchOne("""
                SELECT i.code_sha256, s.plugin FROM hub_invitations i JOIN hub_spaces s ON s.id = i.space
                WHERE i.id = ? AND i.invitee = ? AND i.accepted_by IS NULL
                """, [.text(invitation), .text(person)]),
                  plugin == nil || row[1].text == nil || row[1].text == plugin, let hash = row[0].blob else {
                throw HubError(.notFound, "invitation_not_found", "no open invitation \(invitation) is addressed to you")
            }
            return hash
        }
    }

    static func pendingInvitations(where clause: String, _ arguments: [SQLValue], now: Int64, person: String,
                                   on connection: any HubSQL) async throws -> [PendingInvitation] {
        try await connection.fetchAll("""
            SELECT i.id, i.space, s.name, i.role, i.inviter, pi.name, i.invitee, pe.name, i.expires_ms, i.plugin_role, i.invitee_email,
                pi.first_name, pi.surname
            FROM hub_invitations i JOIN hub_spaces s ON s.id = i.space
            JOIN hub_people pi ON pi.id = i.inviter LEFT JOIN hub_people pe ON pe.id = i.invitee
            WHERE \(clause) AND i.accepted_by IS NULL AND i.expires_ms >= ? AND s.deleted = 0
            ORDER BY i.expires_ms, i.id
            """, arguments + [.integer(now)]).map { row in
            PendingInvitation(id: row[0].text ?? "", space: row[1].text ?? "", spaceName: row[2].text ?? "",
                              role: SpaceRole(rawValue: row[3].text ?? "") ?? .viewer,
                              inviter: HubPerson(id: row[4].text ?? "", name: row[5].text ?? "",
                                                 displayName: HubStore.displayName(first: row[11].text, surname: row[12].text)),
                              invitee: row[6].text.map { HubPerson(id: $0, name: row[7].text ?? "") },
                              expiresAtMillis: row[8].integer ?? 0, pluginRole: row[9].text, inviteeEmail: row[10].text)
        }
    }

    // MARK: Which plugin a space is

    /// Refuses, as `space_not_found`, a space another plugin registered: a plugin manages only its
    /// own spaces. A space of an older hub (no plugin recorded) is anyone's, as before.
    static func requirePluginSpace(_ space: String, plugin: String?, on connection: any HubSQL) async throws {
        guard let plugin else { return }
        let owner = try await connection.fetchOne("SELECT plugin FROM hub_spaces WHERE id = ?", [.text(space)])?[0].text
        if let owner, owner != plugin { throw HubError(.notFound, "space_not_found", "no space \(space) that you are a member of") }
    }

    /// Whether a shared space is `plugin`'s: registered by it, or (from an older hub) holding its changes.
    static func space(_ space: String, kind: String?, owner: String?, isOf plugin: String, on connection: any HubSQL) async throws -> Bool {
        guard kind == SpaceKind.shared.rawValue else { return false }
        if let owner { return owner == plugin }
        return try await connection.fetchOne("SELECT 1 FROM hub_changes WHERE plugin = ? AND space = ? LIMIT 1",
                                             [.text(plugin), .text(space)]) != nil
    }

    /// The person an invitation is addressed to, by name: `person_not_found`, or `already_member`.
    static func invitee(named name: String, in space: String, on connection: any HubSQL) async throws -> HubPerson {
        guard let row = try await connection.fetchOne("SELECT id, name FROM hub_people WHERE name = ?", [.text(name)]) else {
            throw HubError(.notFound, "person_not_found", "no person named '\(name)' has an account on this hub", field: "$.person")
        }
        let person = HubPerson(id: row[0].text ?? "", name: row[1].text ?? "")
        if let role = try await role(of: person.id, in: space, on: connection) {
            throw HubError(.conflict, "already_member", "\(name) is already a member of \(space) (\(role.rawValue))", field: "$.person")
        }
        return person
    }
}

extension Optional {
    /// `map` with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
