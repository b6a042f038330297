import Foundation
import TesseraSDK

/// The sync capability's values on the wire: conflicts, spaces, members, invitations and the
/// remote changes delivered to the plugin's handler.
extension CellConflict {
    public var wire: JSONValue {
        ["table": .string(table), "id": .string(id), "column": .string(column), "current": current.wire,
         "others": .array(others.map(\.wire))]
    }
    public init(wire: JSONValue) throws {
        self.init(table: try wire.wireString("table"), id: try wire.wireString("id"), column: try wire.wireString("column"),
                  current: try SQLValue(wire: wire["current"] ?? .null),
                  others: try (wire["others"]?.arrayValue ?? []).map(SQLValue.init(wire:)))
    }
}

private func optionalString(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

extension SyncSpace {
    public var wire: JSONValue {
        ["id": .string(id), "name": .string(name), "role": .string(role.rawValue), "registered": .bool(registered),
         "pluginRole": optionalString(pluginRole)]
    }
    public init(wire: JSONValue) throws {
        self.init(id: try wire.wireString("id"), name: try wire.wireString("name"), role: SpaceMemberRole(rawValue: try wire.wireString("role")),
                  pluginRole: wire["pluginRole"]?.stringValue, registered: wire["registered"]?.boolValue ?? true)
    }
}

extension SpaceMember {
    public var wire: JSONValue {
        ["person": .string(person), "name": .string(name), "role": .string(role.rawValue), "pluginRole": optionalString(pluginRole)]
    }
    public init(wire: JSONValue) throws {
        self.init(person: try wire.wireString("person"), name: try wire.wireString("name"),
                  role: SpaceMemberRole(rawValue: try wire.wireString("role")), pluginRole: wire["pluginRole"]?.stringValue)
    }
}

extension SpaceInvitation {
    public var wire: JSONValue {
        ["id": .string(id), "space": .string(space), "spaceName": .string(spaceName), "role": .string(role.rawValue),
         "pluginRole": optionalString(pluginRole), "invitee": optionalString(invitee), "inviter": .string(inviter),
         "inviterDisplayName": optionalString(inviterDisplayName), "expiresAt": expiresAt.wire, "code": optionalString(code)]
    }
    public init(wire: JSONValue) throws {
        self.init(id: try wire.wireString("id"), space: try wire.wireString("space"), spaceName: try wire.wireString("spaceName"),
                  role: SpaceMemberRole(rawValue: try wire.wireString("role")), pluginRole: wire["pluginRole"]?.stringValue,
                  invitee: wire["invitee"]?.stringValue, inviter: try wire.wireString("inviter"),
                  expiresAt: try Date(wire: wire["expiresAt"]), code: wire["code"]?.stringValue)
        inviterDisplayName = wire["inviterDisplayName"]?.stringValue
    }
}

extension SpaceMembership {
    public var wire: JSONValue { ["members": .array(members.map(\.wire)), "invitations": .array(invitations.map(\.wire))] }
    public init(wire: JSONValue) throws {
        self.init(members: try (wire["members"]?.arrayValue ?? []).map(SpaceMember.init(wire:)),
                  invitations: try (wire["invitations"]?.arrayValue ?? []).map(SpaceInvitation.init(wire:)))
    }
}

extension RemoteChanges {
    public var wire: JSONValue {
        ["rows": .array(rows.map { ["table": .string($0.table), "id": .string($0.id), "deleted": .bool($0.deleted)] }),
         "refused": .array(refused.map { ["table": .string($0.table), "id": .string($0.id), "column": .string($0.column),
                                          "reason": .string($0.reason)] }),
         "droppedSpaces": .array(droppedSpaces.map(JSONValue.string))]
    }
    public init(wire: JSONValue) throws {
        let rows = try (wire["rows"]?.arrayValue ?? []).map {
            Row(table: try $0.wireString("table"), id: try $0.wireString("id"), deleted: $0["deleted"]?.boolValue ?? false)
        }
        let refused = try (wire["refused"]?.arrayValue ?? []).map {
            Refusal(table: try $0.wireString("table"), id: try $0.wireString("id"), column: try $0.wireString("column"),
                    reason: try $0.wireString("reason"))
        }
        self.init(rows: rows, refused: refused, droppedSpaces: (wire["droppedSpaces"]?.arrayValue ?? []).compactMap(\.stringValue))
    }
}
