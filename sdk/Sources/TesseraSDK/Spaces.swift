import Foundation

/// The plugin's shared spaces at the hub (SDK 1.4), reached through the `sync` capability:
/// `try context.capability(.sync).spaces`.
///
/// A shared space is what a plugin shares with other people: a child in a baby diary, a trip
/// watched by guardians. Its records are written with `WriteBatch.inSpace(_:)` and sync to every
/// member's devices; the hub keeps its members and their roles and checks every change against
/// them. Through this object a plugin's own operations create spaces, invite people, and manage
/// members — the hub's routes of docs/hub.md, called with this device's token.
///
/// ```swift
/// let spaces = try context.capability(.sync).spaces
/// let child = try await spaces.create(name: "Ema")                    // works offline too
/// try await storage.write { $0.inSpace(child.id); $0.put("children", id: child.id, ["name": .text("Ema")]) }
/// let invitation = try await spaces.invite(to: child.id, role: .editor, person: "bob")
/// // bob's device: try await spaces.invitationsForMe() … try await spaces.accept(invitationID: invitation.id)
/// ```
///
/// **Why through `sync` and not a capability of its own:** a space exists only for records that
/// sync, and being a member of one gives access to that plugin's synced records. The grant that
/// lets a plugin sync is therefore the grant that lets it share; a separate grant would mean
/// nothing without it. A plugin sees and manages only the spaces it registered, never another
/// plugin's.
///
/// **Online and offline.** ``create(name:)`` works offline: the space is the device's at once and
/// is registered at the hub on the next sync round (or at once, when the hub is reachable).
/// Everything else changes or reads who has access, which the hub alone decides: without the hub
/// it throws ``PluginError`` with code ``PluginError/Code-swift.struct/hubUnreachable``.
///
/// **Errors.** The hub's refusals come back as ``PluginError`` with the hub's code:
/// ``PluginError/Code-swift.struct/notOwner``, ``PluginError/Code-swift.struct/lastOwner``,
/// ``PluginError/Code-swift.struct/spaceNotFound``, ``PluginError/Code-swift.struct/spaceDeleted``,
/// ``PluginError/Code-swift.struct/memberNotFound``, ``PluginError/Code-swift.struct/personNotFound``,
/// ``PluginError/Code-swift.struct/invitationNotFound``, … (docs/hub.md lists each and when);
/// malformed input is `invalidInput` naming the field; a device not logged in to a hub is
/// ``PluginError/Code-swift.struct/notLoggedIn``.
public protocol PluginSpaces: Sendable {
    /// Creates a shared space named `name` (1–200 characters) whose owner is this device's person.
    ///
    /// The id is a new lowercase UUID chosen here. Offline, the space is registered on the next
    /// sync round; ``SyncSpace/registered`` says which happened.
    func create(name: String) async throws -> SyncSpace

    /// The plugin's shared spaces this person belongs to, with their role in each, oldest first;
    /// spaces created offline and not registered yet come last.
    func list() async throws -> [SyncSpace]

    /// Invites someone into `space` with `role`; owners only.
    ///
    /// - Parameters:
    ///   - space: the space's id.
    ///   - role: the role the invitee gets on accepting.
    ///   - person: the invitee's name on the hub (their account name), or `nil` for an invitation
    ///     by code alone. An addressed invitation appears in the invitee's ``invitationsForMe()``,
    ///     and only they may accept it. A person who registered has their e-mail address as
    ///     their name; an address nobody registered yet gets the code by mail from the hub, and
    ///     whoever registers with it later finds the invitation (SDK 1.5 hubs). Or pass the code
    ///     (``SpaceInvitation/code``) by any channel to invite someone without knowing their name.
    ///   - expiresIn: seconds until it expires, 60 to 2,592,000 (30 days); `nil` for 7 days.
    /// - Returns: the invitation with its code, which is shown only here.
    func invite(to space: String, role: SpaceMemberRole, person: String?, expiresIn: Int?) async throws -> SpaceInvitation

    /// The members of `space` (any member may list them) and its open invitations (listed to
    /// owners only; empty for other members).
    func members(of space: String) async throws -> SpaceMembership

    /// Cancels an open invitation of `space`; owners only. Its code stops working at once.
    func cancelInvitation(_ invitationID: String, in space: String) async throws

    /// The open invitations addressed to this person by name, for this plugin's spaces, oldest first.
    func invitationsForMe() async throws -> [SpaceInvitation]

    /// Accepts an invitation addressed to this person; the space's records arrive with the next
    /// sync round (which follows at once).
    func accept(invitationID: String) async throws -> SyncSpace

    /// Accepts an invitation by its code (any case, blanks ignored).
    func accept(code: String) async throws -> SyncSpace

    /// Declines an invitation addressed to this person: it is removed and its code stops working.
    func decline(invitationID: String) async throws

    /// Changes a member's role; owners only. The last owner cannot be demoted
    /// (``PluginError/Code-swift.struct/lastOwner``).
    func setRole(_ role: SpaceMemberRole, of person: String, in space: String) async throws

    /// Invites someone into `space` with `role` and a per-plugin role (SDK 1.5); owners only.
    ///
    /// `pluginRole` names one of the roles the plugin's manifest declares in `sync.roles` (say
    /// `"guardian"`): the member may then change only what that role allows per table — rows they
    /// created (`own`), or nothing (`none`) — and the hub refuses the rest with
    /// ``PluginError/Code-swift.struct/tableReadOnly`` or ``PluginError/Code-swift.struct/notRowCreator``.
    /// `role` must be the hub role the plugin role stands on (`hubRole`), else `invalidInput`;
    /// an unknown plugin role is `invalidInput` naming `$.pluginRole`. `nil` is
    /// ``invite(to:role:person:expiresIn:)``. The other parameters are as there.
    func invite(to space: String, role: SpaceMemberRole, pluginRole: String?, person: String?, expiresIn: Int?) async throws -> SpaceInvitation

    /// Changes a member's role and per-plugin role (SDK 1.5); owners only. `nil` takes the plugin
    /// role away (the member then has the hub role's rights alone). See
    /// ``invite(to:role:pluginRole:person:expiresIn:)`` for what a plugin role is.
    func setRole(_ role: SpaceMemberRole, pluginRole: String?, of person: String, in space: String) async throws

    /// Revokes a member's access; owners only. Their devices drop the space's records at their
    /// next round; what they wrote stays.
    func revoke(_ person: String, from space: String) async throws

    /// This person leaves `space`; their devices drop its records. The last owner cannot leave.
    func leave(_ space: String) async throws

    /// Deletes `space` for good; owners only. Every member's devices drop its records, and the hub
    /// refuses any further change in it.
    func delete(_ space: String) async throws

    /// The person this device is logged in as at the hub, or `nil` when it is not logged in (or
    /// the deployment names no hub) (SDK 1.6). Answered from the device's own login, without
    /// asking the hub, so it works offline; ``LoggedInPerson/name`` is the name the hub gives
    /// the person in ``SpaceMember/name`` and ``SpaceInvitation/invitee``.
    func currentPerson() async throws -> LoggedInPerson?
}

extension PluginSpaces {
    /// The default for a conformer written before SDK 1.5: without a plugin role it is
    /// ``invite(to:role:person:expiresIn:)``; with one it throws `unavailable`.
    public func invite(to space: String, role: SpaceMemberRole, pluginRole: String?, person: String?,
                       expiresIn: Int?) async throws -> SpaceInvitation {
        guard pluginRole == nil else { throw PluginError(.unavailable, "this host's spaces do not know per-plugin roles") }
        return try await invite(to: space, role: role, person: person, expiresIn: expiresIn)
    }

    /// The default for a conformer written before SDK 1.5: without a plugin role it is
    /// ``setRole(_:of:in:)``; with one it throws `unavailable`.
    public func setRole(_ role: SpaceMemberRole, pluginRole: String?, of person: String, in space: String) async throws {
        guard pluginRole == nil else { throw PluginError(.unavailable, "this host's spaces do not know per-plugin roles") }
        try await setRole(role, of: person, in: space)
    }

    /// Invites by code alone, expiring in 7 days.
    public func invite(to space: String, role: SpaceMemberRole) async throws -> SpaceInvitation {
        try await invite(to: space, role: role, person: nil, expiresIn: nil)
    }

    /// Invites the person with this account name, expiring in 7 days.
    public func invite(to space: String, role: SpaceMemberRole, person: String) async throws -> SpaceInvitation {
        try await invite(to: space, role: role, person: person, expiresIn: nil)
    }
}

extension PluginSync {
    /// The default for a `sync` object that does not manage spaces: every call throws `unavailable`.
    public var spaces: any PluginSpaces { UnavailableSpaces() }
}

/// What ``PluginSync/spaces`` is on a host that does not provide spaces.
struct UnavailableSpaces: PluginSpaces {
    private var refusal: PluginError { PluginError(.unavailable, "this host's sync capability does not manage spaces") }
    func create(name: String) async throws -> SyncSpace { throw refusal }
    func list() async throws -> [SyncSpace] { throw refusal }
    func invite(to space: String, role: SpaceMemberRole, person: String?, expiresIn: Int?) async throws -> SpaceInvitation { throw refusal }
    func members(of space: String) async throws -> SpaceMembership { throw refusal }
    func cancelInvitation(_ invitationID: String, in space: String) async throws { throw refusal }
    func invitationsForMe() async throws -> [SpaceInvitation] { throw refusal }
    func accept(invitationID: String) async throws -> SyncSpace { throw refusal }
    func accept(code: String) async throws -> SyncSpace { throw refusal }
    func decline(invitationID: String) async throws { throw refusal }
    func setRole(_ role: SpaceMemberRole, of person: String, in space: String) async throws { throw refusal }
    func revoke(_ person: String, from space: String) async throws { throw refusal }
    func leave(_ space: String) async throws { throw refusal }
    func delete(_ space: String) async throws { throw refusal }
}

/// A member's role in a space. The hub knows `owner` (reads, writes, manages members, deletes),
/// `editor` (reads and writes) and `viewer` (reads only).
public struct SpaceMemberRole: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The role's name, as the hub spells it.
    public let rawValue: String
    /// Creates a role from its name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The role's name.
    public var description: String { rawValue }

    /// Reads and writes, manages members, deletes the space.
    public static let owner = SpaceMemberRole(rawValue: "owner")
    /// Reads and writes.
    public static let editor = SpaceMemberRole(rawValue: "editor")
    /// Reads only: the hub refuses its changes.
    public static let viewer = SpaceMemberRole(rawValue: "viewer")
}

/// A shared space as this person sees it.
public struct SyncSpace: Sendable, Hashable {
    /// The space's id (a lowercase UUID): what `WriteBatch.inSpace(_:)` takes.
    public var id: String
    /// Its name.
    public var name: String
    /// This person's role in it.
    public var role: SpaceMemberRole
    /// Whether the hub knows it yet (`false` for a space created offline, until a round registers it).
    public var registered: Bool
    /// This person's per-plugin role in it (one of the manifest's `sync.roles`), if they have one
    /// (SDK 1.5).
    public var pluginRole: String? = nil

    /// Creates a space value.
    public init(id: String, name: String, role: SpaceMemberRole, registered: Bool = true) {
        self.id = id
        self.name = name
        self.role = role
        self.registered = registered
    }

    /// Creates a space value with a per-plugin role (SDK 1.5).
    public init(id: String, name: String, role: SpaceMemberRole, pluginRole: String?, registered: Bool = true) {
        self.init(id: id, name: name, role: role, registered: registered)
        self.pluginRole = pluginRole
    }
}

/// A member of a space.
public struct SpaceMember: Sendable, Hashable {
    /// The person's id at the hub: what ``PluginSpaces/setRole(_:of:in:)`` and
    /// ``PluginSpaces/revoke(_:from:)`` take.
    public var person: String
    /// Their account name.
    public var name: String
    /// Their role.
    public var role: SpaceMemberRole
    /// Their per-plugin role (one of the manifest's `sync.roles`), if they have one (SDK 1.5).
    public var pluginRole: String? = nil

    /// Creates a member value.
    public init(person: String, name: String, role: SpaceMemberRole) {
        self.person = person
        self.name = name
        self.role = role
    }

    /// Creates a member value with a per-plugin role (SDK 1.5).
    public init(person: String, name: String, role: SpaceMemberRole, pluginRole: String?) {
        self.init(person: person, name: name, role: role)
        self.pluginRole = pluginRole
    }
}

/// An invitation into a space.
public struct SpaceInvitation: Sendable, Hashable {
    /// Its id: to cancel, accept or decline it.
    public var id: String
    /// The space.
    public var space: String
    /// The space's name (empty in the answer to ``PluginSpaces/invite(to:role:person:expiresIn:)``).
    public var spaceName: String
    /// The role it gives.
    public var role: SpaceMemberRole
    /// The account name it is addressed to; `nil` for an invitation by code alone.
    public var invitee: String?
    /// Who invited (empty in the answer to ``PluginSpaces/invite(to:role:person:expiresIn:)``).
    public var inviter: String
    /// When it expires, on the hub's clock.
    public var expiresAt: Date
    /// The code, only in the answer to ``PluginSpaces/invite(to:role:person:expiresIn:)``; `nil` in lists.
    public var code: String?
    /// The per-plugin role it gives, if any (SDK 1.5).
    public var pluginRole: String? = nil
    /// The names the inviter registered with ("Ada Lovelace"), to show beside ``inviter``; `nil`
    /// for an account the operator made, and in the answer to ``PluginSpaces/invite(to:role:person:expiresIn:)`` (SDK 1.9).
    public var inviterDisplayName: String? = nil

    /// Creates an invitation value.
    public init(id: String, space: String, spaceName: String, role: SpaceMemberRole, invitee: String?, inviter: String,
                expiresAt: Date, code: String?) {
        self.id = id
        self.space = space
        self.spaceName = spaceName
        self.role = role
        self.invitee = invitee
        self.inviter = inviter
        self.expiresAt = expiresAt
        self.code = code
    }

    /// Creates an invitation value with a per-plugin role (SDK 1.5).
    public init(id: String, space: String, spaceName: String, role: SpaceMemberRole, pluginRole: String?, invitee: String?,
                inviter: String, expiresAt: Date, code: String?) {
        self.init(id: id, space: space, spaceName: spaceName, role: role, invitee: invitee, inviter: inviter, expiresAt: expiresAt, code: code)
        self.pluginRole = pluginRole
    }
}

/// Who is in a space, and who is invited.
public struct SpaceMembership: Sendable, Hashable {
    /// The members, by name.
    public var members: [SpaceMember]
    /// The open invitations (owners see them; empty for other members).
    public var invitations: [SpaceInvitation]

    /// Creates a membership value.
    public init(members: [SpaceMember], invitations: [SpaceInvitation]) {
        self.members = members
        self.invitations = invitations
    }
}

extension PluginError.Code {
    /// The hub cannot be reached now; membership changes need it (HTTP 503).
    public static let hubUnreachable = PluginError.Code(rawValue: "hub_unreachable")
    /// This device is not logged in to a hub, or its token was refused: log in again (HTTP 503).
    public static let notLoggedIn = PluginError.Code(rawValue: "not_logged_in")
    /// Only an owner of the space may do this (HTTP 403).
    public static let notOwner = PluginError.Code(rawValue: "not_owner")
    /// The only owner cannot be demoted, removed or leave (HTTP 409).
    public static let lastOwner = PluginError.Code(rawValue: "last_owner")
    /// No such space of this plugin that this person belongs to (HTTP 404).
    public static let spaceNotFound = PluginError.Code(rawValue: "space_not_found")
    /// The space was deleted (HTTP 410).
    public static let spaceDeleted = PluginError.Code(rawValue: "space_deleted")
    /// The person is not a member of the space (HTTP 404).
    public static let memberNotFound = PluginError.Code(rawValue: "member_not_found")
    /// No account of that name on the hub (HTTP 404).
    public static let personNotFound = PluginError.Code(rawValue: "person_not_found")
    /// No such open invitation (HTTP 404).
    public static let invitationNotFound = PluginError.Code(rawValue: "invitation_not_found")
    /// The invitation was accepted already (HTTP 409).
    public static let invitationUsed = PluginError.Code(rawValue: "invitation_used")
    /// The invitation expired (HTTP 410).
    public static let invitationExpired = PluginError.Code(rawValue: "invitation_expired")
    /// The invitation is addressed to someone else (HTTP 403).
    public static let notInvitee = PluginError.Code(rawValue: "not_invitee")
    /// The person is a member already (HTTP 409).
    public static let alreadyMember = PluginError.Code(rawValue: "already_member")
    /// A personal space has no other members and cannot be deleted (HTTP 409).
    public static let personalSpace = PluginError.Code(rawValue: "personal_space")
    /// This person's per-plugin role may not change this table of the space (its `sync.roles`
    /// access is `none`); nothing of the batch was written (HTTP 403, SDK 1.5).
    public static let tableReadOnly = PluginError.Code(rawValue: "table_read_only")
    /// This person's per-plugin role changes only the rows they created (`own`), and this row is
    /// someone else's; nothing of the batch was written (HTTP 403, SDK 1.5).
    public static let notRowCreator = PluginError.Code(rawValue: "not_row_creator")
}
