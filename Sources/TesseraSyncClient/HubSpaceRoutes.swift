import Foundation
import TesseraSDK

/// The hub's space and invitation routes (docs/hub.md, "Spaces and members"), as a plugin
/// manages its own spaces: every call names the plugin (`?plugin=`), so the hub records it on the
/// spaces it registers and shows and manages only that plugin's.
extension HubConnection {
    /// Registers `space` named `name` (this person becomes its owner), or renames it; whether it was created.
    /// `roles` (the plugin's `sync.roles`) sets the space's per-plugin role rules.
    public func registerSpace(_ space: String, name: String, plugin: String, roles: JSONValue? = nil) async throws -> Bool {
        var body: [String: JSONValue] = ["name": .string(name)]
        if let roles { body["roles"] = roles }
        let answer = try await json("PUT", "/v1/hub/spaces/\(Self.segment(space))", plugin: plugin, body: .object(body))
        guard answer.status == 200 || answer.status == 201 else { throw SyncClientError(answer) }
        return answer.status == 201
    }

    /// The plugin's shared spaces this person belongs to (with their members and the space's
    /// per-plugin role rules), and the ids of those they left or lost.
    public func spaces(plugin: String) async throws -> (spaces: [(space: SyncSpace, members: [SpaceMember], rules: JSONValue?)], departures: [String]) {
        let answer = try await json("GET", "/v1/hub/spaces", plugin: plugin)
        guard answer.status == 200, let json = try? JSONValue(parsing: answer.body) else { throw SyncClientError(answer) }
        let spaces = (json["spaces"]?.arrayValue ?? []).filter { $0["kind"]?.stringValue == "shared" }.map { space in
            (SyncSpace(id: space["id"]?.stringValue ?? "", name: space["name"]?.stringValue ?? "",
                       role: SpaceMemberRole(rawValue: space["role"]?.stringValue ?? "viewer"), pluginRole: space["pluginRole"]?.stringValue),
             (space["members"]?.arrayValue ?? []).map {
                SpaceMember(person: $0["person"]?.stringValue ?? "", name: $0["name"]?.stringValue ?? "",
                            role: SpaceMemberRole(rawValue: $0["role"]?.stringValue ?? "viewer"), pluginRole: $0["pluginRole"]?.stringValue)
             },
             space["roleRules"])
        }
        return (spaces, json["departures"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? [])
    }

    /// A new invitation, with its code (shown only here).
    public func invite(to space: String, role: SpaceMemberRole, pluginRole: String? = nil, person: String?, expiresIn: Int?,
                       plugin: String) async throws -> SpaceInvitation {
        var body: [String: JSONValue] = ["role": .string(role.rawValue)]
        if let pluginRole { body["pluginRole"] = .string(pluginRole) }
        if let person { body["person"] = .string(person) }
        if let expiresIn { body["expiresInSeconds"] = .integer(Int64(expiresIn)) }
        let answer = try await json("POST", "/v1/hub/spaces/\(Self.segment(space))/invitations", plugin: plugin, body: .object(body))
        guard answer.status == 201, let json = try? JSONValue(parsing: answer.body) else { throw SyncClientError(answer) }
        return Self.invitation(json)
    }

    /// A space's open invitations (owners only).
    public func invitations(of space: String, plugin: String) async throws -> [SpaceInvitation] {
        try await invitationList("/v1/hub/spaces/\(Self.segment(space))/invitations", plugin: plugin)
    }

    /// The open invitations addressed to this person.
    public func invitationsForMe(plugin: String) async throws -> [SpaceInvitation] {
        try await invitationList("/v1/hub/invitations", plugin: plugin)
    }

    /// Cancels an open invitation of a space (owners only).
    public func cancelInvitation(_ invitation: String, in space: String, plugin: String) async throws {
        try await expectNoContent(json("DELETE", "/v1/hub/spaces/\(Self.segment(space))/invitations/\(Self.segment(invitation))", plugin: plugin))
    }

    /// Accepts an invitation addressed to this person; the space and the role it gave.
    public func acceptInvitation(_ invitation: String, plugin: String) async throws -> (space: String, role: SpaceMemberRole) {
        try membership(try await json("POST", "/v1/hub/invitations/\(Self.segment(invitation))/accept", plugin: plugin, body: [:]))
    }

    /// Accepts an invitation by its code; the space and the role it gave.
    public func accept(code: String) async throws -> (space: String, role: SpaceMemberRole) {
        try membership(try await json("POST", "/v1/hub/invitations/accept", plugin: nil, body: ["code": .string(code)]))
    }

    /// Declines an invitation addressed to this person.
    public func declineInvitation(_ invitation: String, plugin: String) async throws {
        try await expectNoContent(json("POST", "/v1/hub/invitations/\(Self.segment(invitation))/decline", plugin: plugin, body: [:]))
    }

    /// Changes a member's role (owners only).
    public func setRole(_ role: SpaceMemberRole, pluginRole: String? = nil, of person: String, in space: String, plugin: String) async throws {
        var body: [String: JSONValue] = ["role": .string(role.rawValue)]
        if let pluginRole { body["pluginRole"] = .string(pluginRole) }
        let answer = try await json("PUT", "/v1/hub/spaces/\(Self.segment(space))/members/\(Self.segment(person))", plugin: plugin,
                                    body: .object(body))
        guard answer.status == 200 else { throw SyncClientError(answer) }
    }

    /// Removes a member: an owner revokes anyone, a member removes themselves (leaves).
    public func removeMember(_ person: String, from space: String, plugin: String) async throws {
        try await expectNoContent(json("DELETE", "/v1/hub/spaces/\(Self.segment(space))/members/\(Self.segment(person))", plugin: plugin))
    }

    /// Deletes a space (owners only).
    public func deleteSpace(_ space: String, plugin: String) async throws {
        try await expectNoContent(json("DELETE", "/v1/hub/spaces/\(Self.segment(space))", plugin: plugin))
    }

    /// The rows of `space` whose first change this person pushed (theirs under an `own` rule).
    public func rowsCreated(in space: String, plugin: String) async throws -> [(table: String, row: String)] {
        let answer = try await json("GET", "/v1/hub/sync/\(Self.segment(plugin))/created?space=\(Self.segment(space))", plugin: nil)
        guard answer.status == 200, let json = try? JSONValue(parsing: answer.body) else { throw SyncClientError(answer) }
        return (json["rows"]?.arrayValue ?? []).map { ($0["table"]?.stringValue ?? "", $0["row"]?.stringValue ?? "") }
    }

    /// Revokes this device's own token at the hub (`DELETE /v1/hub/devices/{me}`): logging out.
    public func revokeThisDevice() async throws {
        let answer = try await send("GET", "/v1/hub/me")
        guard answer.status == 200, let device = (try? JSONValue(parsing: answer.body))?["device"]?.stringValue else { throw SyncClientError(answer) }
        try expectNoContent(try await send("DELETE", "/v1/hub/devices/\(Self.segment(device))"))
    }

    /// This device's person's id (`GET /v1/hub/me`).
    public func me() async throws -> String {
        let answer = try await send("GET", "/v1/hub/me")
        guard answer.status == 200, let person = (try? JSONValue(parsing: answer.body))?["person"]?.stringValue else {
            throw SyncClientError(answer)
        }
        return person
    }

    // MARK: Helpers

    private func json(_ method: String, _ path: String, plugin: String?, body: JSONValue? = nil) async throws -> Answer {
        let query = plugin.map { "?plugin=\(Self.segment($0))" } ?? ""
        return try await send(method, path + query, body: body.map { Array($0.serialized().utf8) },
                              contentType: body == nil ? nil : "application/json")
    }

    private func expectNoContent(_ answer: Answer) throws {
        guard answer.status == 204 else { throw SyncClientError(answer) }
    }

    private func membership(_ answer: Answer) throws -> (space: String, role: SpaceMemberRole) {
        guard answer.status == 200, let json = try? JSONValue(parsing: answer.body), let space = json["space"]?.stringValue else {
            throw SyncClientError(answer)
        }
        return (space, SpaceMemberRole(rawValue: json["role"]?.stringValue ?? "viewer"))
    }

    private func invitationList(_ path: String, plugin: String) async throws -> [SpaceInvitation] {
        let answer = try await json("GET", path, plugin: plugin)
        guard answer.status == 200, let json = try? JSONValue(parsing: answer.body) else { throw SyncClientError(answer) }
        return (json["invitations"]?.arrayValue ?? []).map(Self.invitation)
    }

    static func invitation(_ json: JSONValue) -> SpaceInvitation {
        var invitation = SpaceInvitation(id: json["id"]?.stringValue ?? "", space: json["space"]?.stringValue ?? "",
                        spaceName: json["spaceName"]?.stringValue ?? "", role: SpaceMemberRole(rawValue: json["role"]?.stringValue ?? "viewer"),
                        pluginRole: json["pluginRole"]?.stringValue,
                        // An invitation by e-mail to someone with no account yet names its address.
                        invitee: json["invitee"]?["name"]?.stringValue ?? json["email"]?.stringValue, inviter: json["inviter"]?["name"]?.stringValue ?? "",
                        expiresAt: Date(timeIntervalSince1970: Double(json["expiresAtMillis"]?.integerValue ?? 0) / 1000),
                        code: json["code"]?.stringValue)
        invitation.inviterDisplayName = json["inviter"]?["displayName"]?.stringValue
        return invitation
    }

    /// A path segment: what a plugin passes is escaped, so it names one resource and no other route.
    static func segment(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
