import Foundation
import TesseraIsolation
@_spi(TesseraHost) import TesseraSDK

/// The host's side of the child's sync calls: conflicts and spaces, answered by the sync
/// capability the provider built for this plugin (its tables, its spaces, the hub's role checks).
extension ProcessPlugin {
    func answerSync(_ method: String, _ params: JSONValue, on context: PluginContext) async throws -> JSONValue? {
        switch method {
        case CapabilityMethod.syncConflicts:
            return .array(try await context.capability(.sync).conflicts().map(\.wire))
        case CapabilityMethod.syncResolve:
            try await context.capability(.sync).resolveConflict(
                table: try params.wireField("table"), id: try params.wireField("id"), column: try params.wireField("column"),
                value: try SQLValue(wire: params["value"] ?? .null))
            return .null
        case CapabilityMethod.syncMail:
            return try await context.capability(.sync).sendMail(try HubMailMessage(wire: params)).wire
        default:
            guard method.hasPrefix(CapabilityMethod.spaces) else { return nil }
            return try await answerSpaces(String(method.dropFirst(CapabilityMethod.spaces.count)), params,
                                          spaces: try context.capability(.sync).spaces)
        }
    }

    private func answerSpaces(_ what: String, _ p: JSONValue, spaces: any PluginSpaces) async throws -> JSONValue {
        func role(_ key: String = "role") throws -> SpaceMemberRole { SpaceMemberRole(rawValue: try p.wireField(key)) }
        switch what {
        case "create": return try await spaces.create(name: try p.wireField("name")).wire
        case "list": return .array(try await spaces.list().map(\.wire))
        case "invite":
            return try await spaces.invite(to: try p.wireField("space"), role: try role(), pluginRole: p["pluginRole"]?.stringValue,
                                           person: p["person"]?.stringValue, expiresIn: p["expiresIn"]?.integerValue.map { Int($0) }).wire
        case "members": return try await spaces.members(of: try p.wireField("space")).wire
        case "cancelInvitation":
            try await spaces.cancelInvitation(try p.wireField("invitation"), in: try p.wireField("space"))
        case "invitationsForMe": return .array(try await spaces.invitationsForMe().map(\.wire))
        case "accept":
            if let code = p["code"]?.stringValue { return try await spaces.accept(code: code).wire }
            return try await spaces.accept(invitationID: try p.wireField("invitation")).wire
        case "decline": try await spaces.decline(invitationID: try p.wireField("invitation"))
        case "setRole":
            try await spaces.setRole(try role(), pluginRole: p["pluginRole"]?.stringValue, of: try p.wireField("person"), in: try p.wireField("space"))
        case "revoke": try await spaces.revoke(try p.wireField("person"), from: try p.wireField("space"))
        case "leave": try await spaces.leave(try p.wireField("space"))
        case "delete": try await spaces.delete(try p.wireField("space"))
        case "currentPerson": return try await spaces.currentPerson()?.wire ?? .null
        default: throw PluginError(.forbidden, "the plugin's process asked for spaces '\(what)', which the host does not answer")
        }
        return .null
    }
}
