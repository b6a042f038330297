import Foundation
import TesseraSDK
import TesseraSync

/// A member's role in a space (DESIGN.md §5).
public enum SpaceRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// Reads and writes, manages members, deletes the space.
    case owner
    /// Reads and writes.
    case editor
    /// Reads only: the hub rejects its changes.
    case viewer

    /// Whether the role may write changes.
    public var canWrite: Bool { self != .viewer }
}

/// Whose data a space holds.
public enum SpaceKind: String, Sendable, Hashable, Codable {
    /// One person's own data, synced across that person's devices only.
    case personal
    /// A space shared by its members (a child, a trip).
    case shared
}

/// An authenticated device: what a device token stands for.
public struct HubDevice: Sendable, Hashable {
    /// The device's id.
    public let id: String
    /// The person it belongs to.
    public let person: String
    /// The name given at login.
    public let name: String
}

/// A person as the hub shows them (never with the password hash).
public struct HubPerson: Sendable, Hashable, Codable {
    public let id: String
    public let name: String
    /// The first name and surname a person gave when registering ("Jana Nováková"); absent for an
    /// account the operator made. Sent where a device shows or signs with the person's name.
    public var displayName: String? = nil
}

/// What a login hands out: the device and its token, shown this once.
public struct DeviceLogin: Sendable {
    public let person: HubPerson
    public let deviceID: String
    /// The bearer token; the hub keeps only its SHA-256.
    public let token: String
}

/// A space as one of its members sees it.
public struct SpaceSummary: Sendable, Hashable, Codable {
    /// The id as a device uses it: `personal` for the caller's personal space, else the UUID.
    public let id: String
    public let name: String
    public let kind: SpaceKind
    /// The caller's role.
    public let role: SpaceRole
    public let members: [Member]
    /// The caller's per-plugin role, if any (docs/sync.md, "Per-plugin roles").
    public var pluginRole: String? = nil
    /// The space's per-plugin role rules (the manifest's `sync.roles`, as its owner's device set
    /// them), if any: what each plugin role may change per table.
    public var roleRules: JSONValue? = nil

    public struct Member: Sendable, Hashable, Codable {
        public let person: String
        public let name: String
        public let role: SpaceRole
        /// Their per-plugin role, if any.
        public var pluginRole: String? = nil
    }
}

/// A space the caller no longer belongs to, so its devices drop its data.
public struct SpaceDeparture: Sendable, Hashable, Codable {
    public let id: String
    /// `revoked` (an owner removed the caller), `left` (the caller left) or `deleted` (the space was deleted).
    public let reason: String
    /// When, in milliseconds since 1970 on the hub's clock.
    public let atMillis: Int64
}

/// A new invitation; its code is shown this once (the hub keeps its SHA-256).
public struct Invitation: Sendable, Hashable, Codable {
    public let code: String
    public let space: String
    public let role: SpaceRole
    public let expiresAtMillis: Int64
    /// Its id: owners list and cancel it by this, and an addressed invitee accepts or declines by it.
    public var id: String = ""
    /// The person it is addressed to, if it is.
    public var invitee: HubPerson?
    /// The per-plugin role it gives, if any.
    public var pluginRole: String?
}

/// An invitation not accepted yet, as an owner of its space or its addressee sees it (never its code).
public struct PendingInvitation: Sendable, Hashable, Codable {
    public let id: String
    public let space: String
    /// The space's name.
    public let spaceName: String
    public let role: SpaceRole
    /// Who invited.
    public let inviter: HubPerson
    /// Whom it is addressed to; `nil` for an invitation by code alone.
    public let invitee: HubPerson?
    public let expiresAtMillis: Int64
    /// The per-plugin role it gives, if any.
    public var pluginRole: String? = nil
    /// The e-mail address it was sent to, if it was.
    public var inviteeEmail: String? = nil
}

/// A pushed change the hub did not accept, and why.
public struct RejectedChange: Sendable, Hashable, Codable {
    /// The change's HLC timestamp text.
    public let timestamp: String
    /// Its column (`""` for an existence change): with the timestamp, the change's id.
    public let column: String
    public let space: String
    public let table: String
    public let row: String
    /// `not_a_member`, `read_only`, `table_read_only`, `not_row_creator`, `invalid_space` or `clock_ahead`.
    public let reason: String
    public let message: String
}

/// The answer to a push.
public struct PushResult: Sendable, Hashable, Codable {
    /// Changes the hub holds after this push (stored now or before): the same for a repeated push.
    public let accepted: Int
    /// Of those, the ones stored by this push.
    public let stored: Int
    /// Of those, the ones the hub already held (a repeated push, or a change received from another device).
    public let duplicates: Int
    /// Changes refused, each with its reason; the device reverts them.
    public let rejected: [RejectedChange]
    /// Shared spaces this push registered (first seen), with the pusher as owner.
    public let createdSpaces: [String]
}

/// A page of a pull.
public struct PullPage: Sendable {
    /// Changes in arrival order, spaces as the device names them (`personal` for its own).
    public let changes: [SyncChange]
    /// The cursor to send next: the arrival sequence of the last change here (the request's if none).
    public let cursor: Int64
    /// Whether more changes follow the cursor.
    public let more: Bool
}

/// The check's answer for one space.
public struct SpaceCheck: Sendable, Hashable, Codable {
    /// `in_sync`, `differs`, `not_a_member` or `deleted`.
    public let status: String
    /// For `differs`: the earliest minute (ms since 1970) from which the two sides must exchange changes.
    public let sinceMillis: Int64?
    /// The hub's root hash for the space (0 when it holds nothing).
    public let hubRoot: UInt32?
}
