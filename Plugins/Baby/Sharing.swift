import Foundation
import TesseraSDK

/// Sharing a child (UC29–UC31) through the sync capability's spaces: each child is a space of the
/// hub's, its creator the owner. The owner invites a person by their hub login or by e-mail
/// address (the hub mails the invitation; whoever registers with the address finds it, and a
/// registered person's login is their address) as `parent` or `guardian`. Both stand on the hub's
/// `editor` role; the level itself is an `access` row the owner writes in the child's space, so
/// every member's device applies the same permission matrix (Permissions.swift) before a write.
/// Membership is the hub's to decide, so these need a connection (`hub_unreachable` offline).
extension Diary {
    struct Invite: Decodable, Sendable { var childId: String; var person: String?; var email: String?; var level: String }
    struct InvitationRef: Decodable, Sendable { var invitationId: String }
    struct Revoke: Decodable, Sendable { var childId: String; var person: String }
    struct ChildRef: Decodable, Sendable { var childId: String }

    func invite(_ input: Invite) async throws -> JSONValue {
        let spaces = try requireSpaces()
        let level = try Validate.oneOf(input.level, [AccessLevel.parent.rawValue, AccessLevel.guardian.rawValue], field: "level")
        let person = try Self.invitee(input)
        try await require(.share, on: input.childId)
        // The level is also the member's plugin role at the hub (the manifest's sync.roles), so the
        // hub refuses what the level may not write, whatever device it comes from.
        let invitation = try await spaces.invite(to: input.childId, role: .editor, pluginRole: level, person: person, expiresIn: nil)
        try await grant(level, to: person, on: input.childId)
        var answer: [String: JSONValue] = ["invitationId": .string(invitation.id), "childId": .string(input.childId), "person": .string(person),
                                           "level": .string(level), "expiresAt": .string(invitation.expiresAt.formatted(.iso8601))]
        if input.email != nil { answer["email"] = .string(person) }
        return .object(answer)
    }

    /// Who is invited: a hub login, or an e-mail address, which the hub compares in lowercase and
    /// which is a registered person's login, so the level is kept under it in lowercase.
    private static func invitee(_ input: Invite) throws -> String {
        switch (input.person, input.email) {
        case (let person?, nil): return try Validate.name(person, field: "person")
        case (nil, let email?):
            let address = email.trimmingCharacters(in: .whitespaces).lowercased()
            guard address.count <= 254, address.wholeMatch(of: /[^@\s]+@[^@\s]+\.[^@\s]+/) != nil else {
                throw BabyError.invalid("email", "'\(email)' is not an e-mail address (name@domain)")
            }
            return address
        default: throw BabyError.invalid("person", "give either person (a hub login) or email, not both")
        }
    }

    /// The owner's record of `person`'s level; synced to every member in the child's space.
    private func grant(_ level: String, to person: String, on childID: String) async throws {
        let me = try await me().person
        try await write(in: childID) {
            $0.put("access", id: "\(childID):\(person)", ["child_id": .text(childID), "person": .text(person), "level": .text(level),
                                                          "granted_by": .text(me), "granted_at": .text(stamp())])
        }
    }

    func invitations() async throws -> JSONValue {
        let waiting = try await requireSpaces().invitationsForMe()
        return ["invitations": .array(waiting.map { invitation in
            ["invitationId": .string(invitation.id), "childId": .string(invitation.space), "childName": .string(invitation.spaceName),
             "from": .string(invitation.inviter), "fromName": invitation.inviterDisplayName.map(JSONValue.string) ?? .null,
             "level": invitation.pluginRole.map(JSONValue.string) ?? .null,
             "expiresAt": .string(invitation.expiresAt.formatted(.iso8601))]
        })]
    }

    /// UC30: accepting brings the child's records to this device on the next round (seconds).
    func accept(_ input: InvitationRef) async throws -> JSONValue {
        let spaces = try requireSpaces()
        // Whom it was addressed to tells who this is, on a host that does not say so itself.
        var invitee: String?
        if try await loggedInPerson() == nil {
            invitee = try await spaces.invitationsForMe().first { $0.id == input.invitationId }?.invitee
        }
        let space = try await spaces.accept(invitationID: input.invitationId)
        if let invitee { try await learnPerson(invitee) }
        try await publish(BabyEvents.invitationAccepted, ["childId": .string(space.id)])
        return ["childId": .string(space.id), "childName": .string(space.name)]
    }

    func decline(_ input: InvitationRef) async throws {
        try await requireSpaces().decline(invitationID: input.invitationId)
    }

    /// The child's members and their levels, and the open invitations (owner only).
    func members(_ input: ChildRef) async throws -> JSONValue {
        let spaces = try requireSpaces()
        try await require(.share, on: input.childId)
        let membership = try await spaces.members(of: input.childId)
        let levels = Dictionary(try await query("SELECT person, level FROM access WHERE child_id = ?", [.text(input.childId)])
            .map { ($0["person"].text ?? "", $0["level"].text ?? "") }, uniquingKeysWith: { a, _ in a })
        // The hub names a member by id and login (`name`); levels are kept by login, as invited.
        return ["members": .array(membership.members.map { member in
            ["person": .string(member.name), "personId": .string(member.person),
             "level": .string(member.role == .owner ? AccessLevel.owner.rawValue : levels[member.name] ?? AccessLevel.guardian.rawValue)]
        }), "invitations": .array(membership.invitations.map { invitation in
            // The level asked is the invitation's plugin role (issue 41, defect 6); an invitation
            // by e-mail names its address until the person registers.
            ["invitationId": .string(invitation.id), "person": invitation.invitee.map(JSONValue.string) ?? .null,
             "level": invitation.pluginRole.map(JSONValue.string) ?? .null]
        })]
    }

    /// UC31: the hub removes the person, and their devices drop the child. What they entered stays.
    func revoke(_ input: Revoke) async throws {
        let spaces = try requireSpaces()
        try await require(.share, on: input.childId)
        let members = try await spaces.members(of: input.childId).members
        guard let member = members.first(where: { $0.name == input.person || $0.person == input.person }) else {
            throw BabyError.notFound("member", input.person)
        }
        try await spaces.revoke(member.person, from: input.childId)
        try await write(in: input.childId) { batch in
            batch.delete("access", id: "\(input.childId):\(input.person)")
            emit(BabyEvents.accessRevoked, ["childId": .string(input.childId), "person": .string(member.name)], in: &batch)
        }
    }

    private func requireSpaces() throws -> any PluginSpaces {
        // Without the grant the operator chose not to share: the host's answer for a capability
        // not granted (403 `not_granted`), whatever the input.
        guard let sync else { throw PluginError(.notGranted, "sharing needs the sync grant and a hub", reason: "sharing_unavailable") }
        return sync.spaces
    }
}
