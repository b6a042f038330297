import Foundation
import TesseraSDK

/// Guardians (F3, §3.1): a request by username is an invitation into the traveller's travel space
/// (role editor now; the `guardian` plugin role when per-plugin roles land, docs/safetravel.md);
/// accepting joins it and, for the thesis's two-way pairing, invites the requester back into the
/// accepter's own space, which the requester's device accepts by itself.
///
/// `guardians` rows on this device: `outgoing` (people who guard me: members of my space) and
/// `incoming` (people I guard: spaces I joined), each PENDING or ACCEPTED.
extension Travel {
    struct UsernameInput: Decodable, Sendable { var username: String }
    struct RequestInput: Decodable, Sendable { var requestId: String }

    func requireGuardian() async throws {
        guard config.requireGuardians else { return }
        let accepted = try await row("SELECT COUNT(*) AS n FROM guardians WHERE direction = 'outgoing' AND status = 'ACCEPTED'")?["n"].integer ?? 0
        guard accepted > 0 else {
            throw PluginError.refused(.noGuardians, "add a guardian first (guardian-add): nobody would be alerted")
        }
    }

    private func hubSpaces() throws -> any PluginSpaces {
        guard let spaces else { throw PluginError(.notGranted, "guardians need the sync capability: they are members of your travel space at the hub") }
        return spaces
    }

    func addGuardian(_ input: UsernameInput) async throws -> JSONValue {
        let me = try await me()
        guard input.username != me.username else { throw PluginError.invalid("you cannot be your own guardian", field: "$.username") }
        if let existing = try await row("SELECT status FROM guardians WHERE id = ?", [.text("out:\(input.username)")]) {
            throw PluginError.refused(.invalidState, "\(input.username) is already \(existing.string("status") == "ACCEPTED" ? "your guardian" : "asked")")
        }
        let invitation = try await hubSpaces().invite(to: me.space, role: .editor, pluginRole: "guardian", person: input.username, expiresIn: nil)
        let at = now
        try await storage.write { batch in
            batch.put("guardians", id: "out:\(input.username)", ["username": .text(input.username), "direction": "outgoing", "status": "PENDING",
                                                                 "invitation_id": .text(invitation.id), "created_at": SQLValue(at)])
        }
        return ["requested": .string(input.username), "invitationId": .string(invitation.id), "expiresAt": .string(Instant.text(invitation.expiresAt))]
    }

    /// Requests waiting for this person's answer, with the badge count (§3.1, L2290). Requests
    /// from people this person asked first complete the pairing by themselves.
    func guardianRequests() async throws -> JSONValue {
        _ = try await me()
        try await refreshGuardians()
        let waiting = try await hubSpaces().invitationsForMe()
        return ["badge": .integer(Int64(waiting.count)), "requests": .array(waiting.map { invitation in
            ["requestId": .string(invitation.id), "from": .string(invitation.inviter), "space": .string(invitation.spaceName),
             "expiresAt": .string(Instant.text(invitation.expiresAt))]
        })]
    }

    func acceptGuardian(_ input: RequestInput) async throws -> JSONValue {
        let me = try await me()
        let spaces = try hubSpaces()
        guard let invitation = try await spaces.invitationsForMe().first(where: { $0.id == input.requestId }) else {
            if try await spaces.members(of: me.space).invitations.contains(where: { $0.id == input.requestId }) {
                throw PluginError.forbidden(.ownRequest, "this is your own request: the person you asked accepts it")
            }
            throw PluginError.missing("no request \(input.requestId) waits for you", field: "$.requestId")
        }
        let joined = try await spaces.accept(invitationID: invitation.id)
        let at = now
        try await storage.write { batch in
            batch.put("guardians", id: "in:\(invitation.inviter)", ["username": .text(invitation.inviter), "direction": "incoming", "status": "ACCEPTED",
                                                                    "their_space": .text(joined.id), "created_at": SQLValue(at), "accepted_at": SQLValue(at)])
        }
        // Two-way pairing: the accepter guards the requester, and is guarded back.
        if try await row("SELECT id FROM guardians WHERE id = ?", [.text("out:\(invitation.inviter)")]) == nil {
            let back = try await spaces.invite(to: me.space, role: .editor, pluginRole: "guardian", person: invitation.inviter, expiresIn: nil)
            try await storage.write { batch in
                batch.put("guardians", id: "out:\(invitation.inviter)", ["username": .text(invitation.inviter), "direction": "outgoing",
                                                                         "status": "PENDING", "invitation_id": .text(back.id), "created_at": SQLValue(at)])
            }
        }
        try await refreshGuardians()
        return try await guardians()
    }

    func declineGuardian(_ input: RequestInput) async throws -> JSONValue {
        _ = try await me()
        try await hubSpaces().decline(invitationID: input.requestId)
        return ["declined": .string(input.requestId)]
    }

    /// Removal ends both directions: the person leaves my space and I leave theirs.
    func removeGuardian(_ input: UsernameInput) async throws -> JSONValue {
        let me = try await me()
        let spaces = try hubSpaces()
        let members = try await spaces.members(of: me.space)
        let paired = try await row("SELECT id FROM guardians WHERE id IN (?, ?)", [.text("out:\(input.username)"), .text("in:\(input.username)")]) != nil
        guard paired || members.members.contains(where: { $0.name == input.username })
                || members.invitations.contains(where: { $0.invitee == input.username }) else {
            throw PluginError.missing("\(input.username) is not your guardian, nor asked, nor someone you guard", field: "$.username")
        }
        if let member = members.members.first(where: { $0.name == input.username }) {
            try await spaces.revoke(member.person, from: me.space)
        }
        for invitation in members.invitations where invitation.invitee == input.username {
            try await spaces.cancelInvitation(invitation.id, in: me.space)
        }
        if let theirs = try await row("SELECT their_space FROM guardians WHERE id = ?", [.text("in:\(input.username)")]), !theirs.string("their_space").isEmpty {
            do { try await spaces.leave(theirs.string("their_space")) } catch let error as PluginError where error.code == .spaceNotFound {}
        }
        try await storage.write { batch in
            batch.delete("guardians", id: "out:\(input.username)")
            batch.delete("guardians", id: "in:\(input.username)")
        }
        return ["removed": .string(input.username)]
    }

    func guardians() async throws -> JSONValue {
        _ = try await me()
        do { try await refreshGuardians() } catch let error as PluginError where error.code == .hubUnreachable {
            log.info("guardians listed from this device's copy: the hub is unreachable")
        }
        let list = try await rows("SELECT username, direction, status, created_at, accepted_at FROM guardians ORDER BY direction, username")
        return ["guardians": .array(list.filter { $0.string("direction") == "outgoing" }.map(\.jsonObject)),
                "guarding": .array(list.filter { $0.string("direction") == "incoming" }.map(\.jsonObject))]
    }

    /// Brings the local rows in line with the hub: who has joined my space, and invitations from
    /// people I asked first (accepted here: that completes the two-way pairing).
    func refreshGuardians() async throws {
        guard let me = try await meIfSetUp(), let spaces, config.watcherName == nil else { return }
        await inviteWatcherIfReachable()
        let at = now
        let outgoing = try await rows("SELECT username, status FROM guardians WHERE direction = 'outgoing'")
        let members = Set(try await spaces.members(of: me.space).members.map(\.name))
        for row in outgoing where row.string("status") == "PENDING" && members.contains(row.string("username")) {
            let name = row.string("username")
            try await storage.write { $0.patch("guardians", id: "out:\(name)", ["status": "ACCEPTED", "accepted_at": SQLValue(at)]) }
            await notifyTraveller(key: "pairing-accepted-\(name)", title: "\(name) is now your guardian",
                                  body: "\(name) accepted your request: they are told if something is wrong.",
                                  message: NotificationMessage("notify.pairingAccepted", ["name": .text(name)]), payload: ["guardian": .string(name)], at: at)
        }
        let asked = Set(outgoing.map { $0.string("username") })
        for invitation in try await spaces.invitationsForMe() where asked.contains(invitation.inviter) {
            let joined = try await spaces.accept(invitationID: invitation.id)
            try await storage.write { batch in
                batch.put("guardians", id: "in:\(invitation.inviter)", ["username": .text(invitation.inviter), "direction": "incoming", "status": "ACCEPTED",
                                                                        "their_space": .text(joined.id), "created_at": SQLValue(at), "accepted_at": SQLValue(at)])
            }
        }
    }
}
