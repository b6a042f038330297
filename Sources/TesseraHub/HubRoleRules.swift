import Foundation
import TesseraSDK
import TesseraSync

/// Per-plugin roles at the hub (docs/sync.md, "Per-plugin roles"): the rules a space keeps, the
/// plugin role a member holds, and the creator of each row, which an `own` rule checks.
extension HubStore {
    /// Reads a space's rules as a device sends them (`$.roles` of `PUT /v1/hub/spaces/{space}`).
    static func roleRules(_ json: JSONValue) throws(HubError) -> SyncRoleRules {
        do { return try SyncRoleRules(json: json, at: "$.roles") } catch {
            throw HubError(.invalidInput, "invalid_roles", error.message, field: error.field)
        }
    }

    static func setRoleRules(_ rules: SyncRoleRules, of space: String, on connection: any HubSQL) async throws {
        try await connection.execute("UPDATE hub_spaces SET role_rules = ? WHERE id = ?", [.text(rules.json.serialized()), .text(space)])
    }

    /// The space's rules; `nil` when its owner's device set none.
    static func roleRules(of space: String, on connection: any HubSQL) async throws -> SyncRoleRules? {
        let text = try await connection.fetchOne("SELECT role_rules FROM hub_spaces WHERE id = ?", [.text(space)])?[0].text
        do { return try SyncRoleRules.parse(text) } catch {
            throw HubError(.internal, "role_rules_unreadable", "the role rules kept for space \(space) cannot be read (\(error)); its writes are refused until its owner sets them again")
        }
    }

    /// A plugin role given to a member must be one of the space's rules, and `role` the hub role
    /// it stands on, so the hub's own checks (viewers write nothing, owners manage) agree with it.
    static func checkPluginRole(_ pluginRole: String?, standingOn role: SpaceRole, in space: String, on connection: any HubSQL) async throws {
        guard let pluginRole else { return }
        guard let rule = try await roleRules(of: space, on: connection)?.roles[pluginRole] else {
            throw HubError(.invalidInput, "unknown_plugin_role",
                           "the space \(space) has no plugin role '\(pluginRole)' (its roles come from the plugin's manifest, sync.roles)",
                           field: "$.pluginRole")
        }
        guard rule.hubRole == role.rawValue else {
            throw HubError(.invalidInput, "role_mismatch",
                           "the plugin role '\(pluginRole)' stands on the hub role '\(rule.hubRole)', not '\(role.rawValue)'", field: "$.role")
        }
    }

    /// The rule a member's changes are checked against: their plugin role's, if they have one.
    static func pluginRule(of person: String, in space: String, on connection: any HubSQL) async throws -> SyncRoleRules.Role? {
        guard let name = try await connection.fetchOne("SELECT plugin_role FROM hub_members WHERE space = ? AND person = ?",
                                                       [.text(space), .text(person)])?[0].text else { return nil }
        // A member whose plugin role the rules no longer name may change nothing: the owner
        // changed the rules, and the member waits for a role that exists.
        return try await roleRules(of: space, on: connection)?.roles[name] ?? .unknown
    }

    /// The rows of `space` whose first change `person` pushed: theirs under an `own` rule. A
    /// device asks for them so that it refuses, offline, what the hub would.
    public func rowsCreated(plugin: String, space: String, by person: String) async throws(HubError) -> [(table: String, row: String)] {
        try Self.checkPlugin(plugin)
        return try await transaction { connection in
            try await Self.requireMember(space, person: person, on: connection)
            return try await connection.fetchAll("""
                SELECT tbl, row_id FROM hub_row_creators WHERE person = ? AND plugin = ? AND space = ? ORDER BY tbl, row_id
                """, [.text(person), .text(plugin), .text(space)]).map { ($0[0].text ?? "", $0[1].text ?? "") }
        }
    }
}
