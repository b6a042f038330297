/// The person this device is logged in as at the hub (SDK 1.6): what
/// ``PluginSpaces/currentPerson()`` answers.
///
/// A device holds one person's data at a time (`tessera sync login`, `tessera sync register`, or
/// the edge's `POST /v1/sync/login`); this is that person, as the hub names them in a space's
/// members (``SpaceMember/name``) and in invitations (``SpaceInvitation/invitee``).
public struct LoggedInPerson: Sendable, Hashable {
    /// The person's id at the hub (a lowercase UUID), as in ``SpaceMember/person``.
    public var id: String
    /// The person's account name: the name they log in with (their e-mail address, lowercased,
    /// when they registered themselves).
    public var name: String
    /// The name to show for the person, as they gave it when they registered ("Jana Nováková"),
    /// or `nil` when the hub has none (an account the operator made) or the device logged in
    /// before SDK 1.9. Sign what the person writes with it rather than with ``name``.
    public var displayName: String?

    /// Creates a person value (SDK 1.6).
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }

    /// Creates a person value with a display name (SDK 1.9).
    public init(id: String, name: String, displayName: String?) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }
}

extension PluginSpaces {
    /// The default for a conformer written before SDK 1.6: it does not know who is logged in, so
    /// the answer is `nil`, as on a device that is not logged in.
    public func currentPerson() async throws -> LoggedInPerson? { nil }
}
