import Foundation
import TesseraSDK
import TesseraSync

/// Spaces, members and invitations: the online-only operations (specs/baby-diary.md: inviting,
/// accepting, revoking and deleting need the server, which checks every change of access).
extension HubStore {
    /// The longest an invitation may stay open, and the default.
    public static let maxInvitationSeconds: Int64 = 30 * 86_400
    public static let defaultInvitationSeconds: Int64 = 7 * 86_400

    /// The spaces `person` belongs to (not deleted), with their members, and the spaces they left,
    /// were removed from, or that were deleted (so their devices drop that data).
    ///
    /// With `plugin`, only that plugin's shared spaces (those it registered, and spaces of an older
    /// hub that hold its changes) and departures: a plugin never learns of another's spaces.
    public func spaces(of person: String, plugin: String? = nil) async throws(HubError) -> (spaces: [SpaceSummary], departures: [SpaceDeparture]) {
        if let plugin { try Self.checkPlugin(plugin) }
        return try await transaction { connection in
            var rows = try await connection.fetchAll("""
                SELECT s.id, s.name, s.kind, m.role, s.plugin, m.plugin_role, s.role_rules FROM hub_members m JOIN hub_spaces s ON s.id = m.space
                WHERE m.person = ? AND s.deleted = 0 ORDER BY s.kind DESC, s.created_ms, s.id
                """, [.text(person)])
            if let plugin {
                var kept: [[SQLValue]] = []
                for row in rows where try await Self.space(row[0].text ?? "", kind: row[2].text, owner: row[4].text, isOf: plugin, on: connection) {
                    kept.append(row)
                }
                rows = kept
            }
            var spaces: [SpaceSummary] = []
            for row in rows {
                let id = row[0].text ?? ""
                let members = try await connection.fetchAll("""
                    SELECT p.id, p.name, m.role, m.plugin_role FROM hub_members m JOIN hub_people p ON p.id = m.person WHERE m.space = ? ORDER BY p.name
                    """, [.text(id)]).map {
                        SpaceSummary.Member(person: $0[0].text ?? "", name: $0[1].text ?? "", role: SpaceRole(rawValue: $0[2].text ?? "") ?? .viewer,
                                            pluginRole: $0[3].text)
                    }
                spaces.append(SpaceSummary(id: SpaceID.forDevice(id, person: person), name: row[1].text ?? "",
                                           kind: SpaceKind(rawValue: row[2].text ?? "") ?? .shared,
                                           role: SpaceRole(rawValue: row[3].text ?? "") ?? .viewer, members: members,
                                           pluginRole: row[5].text, roleRules: row[6].text.flatMap { try? JSONValue(parsing: $0) }))
            }
            var departures: [SpaceDeparture] = []
            for row in try await connection.fetchAll("""
                SELECT d.space, d.reason, d.at_ms, s.plugin FROM hub_departures d LEFT JOIN hub_spaces s ON s.id = d.space
                WHERE d.person = ? ORDER BY d.at_ms, d.space
                """, [.text(person)]) {
                if let plugin, let owner = row[3].text, owner != plugin { continue }
                departures.append(SpaceDeparture(id: row[0].text ?? "", reason: row[1].text ?? "", atMillis: row[2].integer ?? 0))
            }
            return (spaces, departures)
        }
    }

    /// Registers a shared space (the caller becomes its owner) or renames it (owners only).
    /// Returns whether it was created.
    /// `plugin` (a plugin managing its spaces) is recorded on a new space, and an existing one
    /// must be that plugin's (`space_not_found` otherwise). `roles` (the plugin's `sync.roles`)
    /// sets the space's per-plugin role rules; on an existing space only an owner changes them.
    public func registerSpace(_ id: String, name: String, by person: String, plugin: String? = nil,
                              roles: JSONValue? = nil) async throws(HubError) -> Bool {
        if let plugin { try Self.checkPlugin(plugin) }
        var rules: SyncRoleRules?
        if let roles { rules = try Self.roleRules(roles) }
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 200 else {
            throw HubError(.invalidInput, "invalid_name", "a space's name must be 1 to 200 characters", field: "$.name")
        }
        return try await transaction { connection in
            let space = try Self.sharedSpaceID(id, person: person)
            try await connection.lock(Self.membershipLock(space))
            guard try await Self.spaceState(space, on: connection) != nil else {
                try await Self.createSharedSpace(space, name: name, owner: person, plugin: plugin, now: nowMillis, on: connection)
                if let rules { try await Self.setRoleRules(rules, of: space, on: connection) }
                return true
            }
            try await Self.requirePluginSpace(space, plugin: plugin, on: connection)
            try await Self.requireOwner(space, person: person, on: connection)
            try await connection.execute("UPDATE hub_spaces SET name = ? WHERE id = ?", [.text(name), .text(space)])
            if let rules { try await Self.setRoleRules(rules, of: space, on: connection) }
            return false
        }
    }

    /// A single-use invitation to `space` with `role`; owners only. The code is returned this once.
    ///
    /// `invitee` (a person's name) addresses it to that person: they find it in
    /// ``invitations(for:plugin:)`` and accept or decline it without the code, and nobody else may
    /// accept it. `inviteeEmail` (or an `invitee` name that is an address nobody registered)
    /// addresses it to an e-mail address: the code is mailed there, and a person who registers
    /// with that address later finds it among theirs.
    ///
    /// `pluginRole` (one of the space's role rules) is given to the member on accepting; `role`
    /// must then be the hub role it stands on.
    public func invite(to id: String, role: SpaceRole, expiresInSeconds: Int64?, by person: String,
                       invitee: String? = nil, plugin: String? = nil, pluginRole: String? = nil,
                       inviteeEmail: String? = nil) async throws(HubError) -> Invitation {
        if let plugin { try Self.checkPlugin(plugin) }
        let seconds = expiresInSeconds ?? Self.defaultInvitationSeconds
        guard (60...Self.maxInvitationSeconds).contains(seconds) else {
            throw HubError(.invalidInput, "invalid_expiry", "an invitation expires in 60 s to 30 days (\(Self.maxInvitationSeconds) s)",
                           field: "$.expiresInSeconds")
        }
        let code = HubSecrets.invitationCode()
        let invitationID = UUID().uuidString.lowercased()
        let expires = nowMillis + seconds * 1000
        let now = nowMillis
        let (addressee, mailed) = try await transaction { connection -> (HubPerson?, Bool) in
            let space = try Self.sharedSpaceID(id, person: person)
            try await connection.lock(Self.membershipLock(space))
            try await Self.requirePluginSpace(space, plugin: plugin, on: connection)
            try await Self.requireOwner(space, person: person, on: connection)
            try await Self.checkPluginRole(pluginRole, standingOn: role, in: space, on: connection)
            let (addressee, address) = try await Self.resolveInvitee(name: invitee, email: inviteeEmail, in: space, on: connection)
            try await connection.execute("""
                INSERT INTO hub_invitations(code_sha256, space, role, inviter, expires_ms, id, invitee, plugin_role, invitee_email)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.blob(HubSecrets.sha256(code)), .text(space), .text(role.rawValue), .text(person), .integer(expires),
                      .text(invitationID), addressee.map { .text($0.id) } ?? .null, pluginRole.map { .text($0) } ?? .null,
                      address.map { .text($0) } ?? .null])
            if let address {
                try await Self.queueInvitationMail(to: address, code: code, space: space, by: person, expires: expires, now: now, on: connection)
            }
            return (addressee, address != nil)
        }
        if mailed { mail.mailQueued() }
        return Invitation(code: code, space: id, role: role, expiresAtMillis: expires, id: invitationID, invitee: addressee, pluginRole: pluginRole)
    }

    /// Accepts an invitation: `person` joins its space with its role, and the code is used up.
    public func accept(code: String, by person: String) async throws(HubError) -> (space: String, role: SpaceRole) {
        try await accept(codeHash: HubSecrets.sha256(HubSecrets.normalizedCode(code)), by: person)
    }

    /// Accepts the invitation whose code has this hash (by code, or by id for its addressee).
    func accept(codeHash hash: [UInt8], by person: String) async throws(HubError) -> (space: String, role: SpaceRole) {
        let now = nowMillis
        return try await transaction { connection in
            guard let row = try await connection.fetchOne("SELECT space, role, expires_ms, accepted_by, invitee, plugin_role FROM hub_invitations WHERE code_sha256 = ?",
                                                    [.blob(hash)]) else {
                throw HubError(.notFound, "invitation_not_found", "no invitation has this code", field: "$.code")
            }
            if let invitee = row[4].text, invitee != person {
                throw HubError(.forbidden, "not_invitee", "this invitation is addressed to someone else", field: "$.code")
            }
            let space = row[0].text ?? ""
            let role = SpaceRole(rawValue: row[1].text ?? "") ?? .viewer
            try await connection.lock(Self.membershipLock(space))
            guard row[3] == .null else { throw HubError(.conflict, "invitation_used", "this invitation was already accepted", field: "$.code") }
            guard now <= row[2].integer ?? 0 else {
                throw HubError(.gone, "invitation_expired", "this invitation expired at \(Self.iso(row[2].integer ?? 0)); ask for a new one", field: "$.code")
            }
            if try await Self.spaceState(space, on: connection)?.deleted == true {
                throw HubError(.gone, "space_deleted", "the space \(space) was deleted")
            }
            if let current = try await Self.role(of: person, in: space, on: connection) {
                throw HubError(.conflict, "already_member", "you are already a member of \(space) (\(current.rawValue))")
            }
            // Claimed only if still open: two replicas accepting the same code at once admit one.
            let claimed = try await connection.execute("UPDATE hub_invitations SET accepted_by = ? WHERE code_sha256 = ? AND accepted_by IS NULL",
                                                       [.text(person), .blob(hash)])
            guard claimed == 1 else { throw HubError(.conflict, "invitation_used", "this invitation was already accepted", field: "$.code") }
            try await connection.execute("INSERT INTO hub_members(space, person, role, plugin_role) VALUES (?, ?, ?, ?)",
                                         [.text(space), .text(person), .text(role.rawValue), row[5]])
            try await connection.execute("DELETE FROM hub_departures WHERE space = ? AND person = ?", [.text(space), .text(person)])
            return (space, role)
        }
    }

    /// Changes a member's role and per-plugin role (`nil`: none); owners only. The last owner
    /// cannot be demoted.
    public func setRole(_ role: SpaceRole, of member: String, in id: String, by person: String, plugin: String? = nil,
                        pluginRole: String? = nil) async throws(HubError) {
        try await transaction { connection in
            let space = try Self.sharedSpaceID(id, person: person)
            try await connection.lock(Self.membershipLock(space))
            try await Self.requirePluginSpace(space, plugin: plugin, on: connection)
            try await Self.requireOwner(space, person: person, on: connection)
            guard let current = try await Self.role(of: member, in: space, on: connection) else {
                throw HubError(.notFound, "member_not_found", "\(member) is not a member of \(id)")
            }
            if current == .owner, role != .owner { try await Self.requireAnotherOwner(space, besides: member, on: connection) }
            try await Self.checkPluginRole(pluginRole, standingOn: role, in: space, on: connection)
            try await connection.execute("UPDATE hub_members SET role = ?, plugin_role = ? WHERE space = ? AND person = ?",
                                         [.text(role.rawValue), pluginRole.map { .text($0) } ?? .null, .text(space), .text(member)])
        }
    }

    /// Removes a member: an owner revokes anyone's access, any member may leave. The last owner
    /// cannot leave (delete the space instead, or make another owner first).
    public func removeMember(_ member: String, from id: String, by person: String, plugin: String? = nil) async throws(HubError) {
        let now = nowMillis
        try await transaction { connection in
            let space = try Self.sharedSpaceID(id, person: person)
            try await connection.lock(Self.membershipLock(space))
            try await Self.requirePluginSpace(space, plugin: plugin, on: connection)
            if member != person { try await Self.requireOwner(space, person: person, on: connection) } else { try await Self.requireMember(space, person: person, on: connection) }
            guard let current = try await Self.role(of: member, in: space, on: connection) else {
                throw HubError(.notFound, "member_not_found", "\(member) is not a member of \(id)")
            }
            if current == .owner { try await Self.requireAnotherOwner(space, besides: member, on: connection) }
            try await connection.execute("DELETE FROM hub_members WHERE space = ? AND person = ?", [.text(space), .text(member)])
            try await connection.execute("""
                INSERT INTO hub_departures(space, person, reason, at_ms) VALUES (?, ?, ?, ?)
                ON CONFLICT (space, person) DO UPDATE SET reason = excluded.reason, at_ms = excluded.at_ms
                """, [.text(space), .text(member), .text(member == person ? "left" : "revoked"), .integer(now)])
        }
    }

    /// Deletes a shared space for good; owners only. Its members are told (departures), and the
    /// hub refuses its pushes and pulls from now on (410 `space_deleted`).
    public func deleteSpace(_ id: String, by person: String, plugin: String? = nil) async throws(HubError) {
        let now = nowMillis
        try await transaction { connection in
            let space = try Self.sharedSpaceID(id, person: person)
            try await connection.lock(Self.membershipLock(space))
            try await Self.requirePluginSpace(space, plugin: plugin, on: connection)
            try await Self.requireOwner(space, person: person, on: connection)
            try await connection.execute("""
                INSERT INTO hub_departures(space, person, reason, at_ms) SELECT space, person, 'deleted', ? FROM hub_members WHERE space = ?
                ON CONFLICT (space, person) DO UPDATE SET reason = excluded.reason, at_ms = excluded.at_ms
                """, [.integer(now), .text(space)])
            try await connection.execute("DELETE FROM hub_members WHERE space = ?", [.text(space)])
            try await connection.execute("DELETE FROM hub_invitations WHERE space = ?", [.text(space)])
            try await connection.execute("UPDATE hub_spaces SET deleted = 1 WHERE id = ?", [.text(space)])
            // The relayed changes go too: nobody may read them any more.
            try await connection.execute("DELETE FROM hub_changes WHERE space = ?", [.text(space)])
            try await connection.execute("DELETE FROM hub_merkle WHERE space = ?", [.text(space)])
            try await connection.execute("DELETE FROM hub_row_creators WHERE space = ?", [.text(space)])
        }
    }

    // MARK: Shared checks

    /// The lock member management takes on a space, so that two hub replicas cannot, say, each
    /// demote one of the last two owners.
    static func membershipLock(_ space: String) -> String { "members:" + space }

    /// The stored id of a space a member-management route names; personal spaces have no members
    /// to manage.
    static func sharedSpaceID(_ id: String, person: String) throws -> String {
        if id == SpaceID.personalAlias || id.hasPrefix("personal:") {
            throw HubError(.conflict, "personal_space", "a personal space has no other members and cannot be deleted")
        }
        guard SpaceID.isSharedForm(id) else {
            throw HubError(.invalidInput, "invalid_space", "a shared space's id is a UUID, found '\(id)'")
        }
        return id
    }

    static func spaceState(_ space: String, on connection: any HubSQL) async throws -> (kind: SpaceKind, deleted: Bool)? {
        try await connection.fetchOne("SELECT kind, deleted FROM hub_spaces WHERE id = ?", [.text(space)])
            .map { (SpaceKind(rawValue: $0[0].text ?? "") ?? .shared, ($0[1].integer ?? 0) != 0) }
    }

    static func role(of person: String, in space: String, on connection: any HubSQL) async throws -> SpaceRole? {
        try await connection.fetchOne("SELECT role FROM hub_members WHERE space = ? AND person = ?", [.text(space), .text(person)])
            .flatMap { SpaceRole(rawValue: $0[0].text ?? "") }
    }

    /// The caller's role; 410 for a deleted space, 404 for an unknown one or one the caller is not
    /// in (a non-member learns nothing about which spaces exist).
    @discardableResult
    static func requireMember(_ space: String, person: String, on connection: any HubSQL) async throws -> SpaceRole {
        guard let state = try await spaceState(space, on: connection) else {
            throw HubError(.notFound, "space_not_found", "no space \(space) that you are a member of")
        }
        if state.deleted { throw HubError(.gone, "space_deleted", "the space \(space) was deleted") }
        guard let role = try await role(of: person, in: space, on: connection) else {
            throw HubError(.notFound, "space_not_found", "no space \(space) that you are a member of")
        }
        return role
    }

    static func requireOwner(_ space: String, person: String, on connection: any HubSQL) async throws {
        let role = try await requireMember(space, person: person, on: connection)
        guard role == .owner else {
            throw HubError(.forbidden, "not_owner", "only an owner of \(space) may do this; you are \(role.rawValue == "editor" ? "an editor" : "a viewer")")
        }
    }

    static func requireAnotherOwner(_ space: String, besides member: String, on connection: any HubSQL) async throws {
        let others = try await connection.fetchOne("SELECT count(*) FROM hub_members WHERE space = ? AND role = 'owner' AND person <> ?",
                                             [.text(space), .text(member)])?[0].integer ?? 0
        guard others > 0 else {
            throw HubError(.conflict, "last_owner", "\(member) is the last owner of \(space): make another member an owner first, or delete the space")
        }
    }

    static func createSharedSpace(_ space: String, name: String, owner: String, plugin: String? = nil, now: Int64,
                                  on connection: any HubSQL) async throws {
        try await connection.execute("INSERT INTO hub_spaces(id, name, kind, created_ms, plugin) VALUES (?, ?, 'shared', ?, ?)",
                                     [.text(space), .text(name), .integer(now), plugin.map { .text($0) } ?? .null])
        try await connection.execute("INSERT INTO hub_members(space, person, role) VALUES (?, ?, 'owner')", [.text(space), .text(owner)])
        try await connection.execute("DELETE FROM hub_departures WHERE space = ? AND person = ?", [.text(space), .text(owner)])
    }

    static func iso(_ millis: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(millis) / 1000))
    }
}
