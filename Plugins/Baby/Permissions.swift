import TesseraSDK

/// A person's level for one child (specs/baby-diary.md §5): the creator is the owner; the owner
/// grants `parent` or `guardian`.
enum AccessLevel: String, Sendable, Codable {
    case owner, parent, guardian
}

/// What a write does, for the permission matrix.
enum DiaryAction: Sendable {
    case editBasic            // name, birth date, photo
    case deleteChild
    case editHealthCard       // blood group, insurer, allergies, diseases, vaccinations
    case createRecord         // measurements, milestones, posts, health problems, contacts, …
    case changeRecord(createdBy: String)  // edit or delete an existing record or contact
    case share                // invite, revoke, list members
    case export
}

/// The permission matrix of §5 as one pure function, so the same rule can run wherever a write
/// is accepted. The hub will enforce the table-level part of it once per-plugin roles land
/// (docs/baby.md, "Roles at the hub").
enum Permissions {
    static func allows(_ level: AccessLevel, _ action: DiaryAction, me: String) -> Bool {
        switch (level, action) {
        case (.owner, _): return true
        case (.parent, .deleteChild), (.parent, .share): return false
        case (.parent, _): return true
        case (.guardian, .createRecord): return true
        case (.guardian, .changeRecord(let creator)): return creator == me
        case (.guardian, _): return false
        }
    }

    /// The refusal for an action `level` may not take.
    static func refusal(_ level: AccessLevel, _ action: DiaryAction) -> PluginError {
        switch action {
        case .editBasic: BabyError.forbidden("a \(level.rawValue) cannot change the child's basic data", code: "basic_data_read_only")
        case .deleteChild: BabyError.forbidden("only the child's owner can delete the child", code: "not_owner")
        case .editHealthCard: BabyError.forbidden("a \(level.rawValue) cannot change the health card", code: "health_card_read_only")
        case .createRecord: BabyError.forbidden("a \(level.rawValue) cannot add records", code: "forbidden")
        case .changeRecord: BabyError.forbidden("a guardian can change only the records it created", code: "not_record_creator")
        case .share: BabyError.forbidden("only the child's owner manages who has access", code: "not_owner")
        case .export: BabyError.forbidden("a guardian cannot export the child's data", code: "export_forbidden")
        }
    }
}

extension Diary {
    /// The person using this device: the hub login the host says this device is logged in as
    /// (SDK 1.6 `currentPerson()`), else the one `profile-set` named or the hub told before; and the
    /// name shown as a record's author. A device with neither is "me", which is right for a device alone.
    func me() async throws -> (person: String, name: String) {
        let rows = try await query("SELECT id, value FROM profile WHERE id IN ('person', 'name', 'name_for')")
        let values = Dictionary(rows.map { ($0["id"].text ?? "", $0["value"].text ?? "") }, uniquingKeysWith: { a, _ in a })
        let loggedIn = try await loggedInAccount()
        let person = loggedIn?.name ?? values["person"].flatMap { $0.isEmpty ? nil : $0 } ?? "me"
        // A name given with `profile-set` is its person's only: after a logout and a login as
        // someone else, records are not signed with the previous person's name (issue 41, defect 3).
        // (A name kept before `name_for` existed belongs to the profile's person.)
        let owner = values["name_for"] ?? values["person"] ?? person
        let name = owner == person ? values["name"].flatMap { $0.isEmpty ? nil : $0 } : nil
        // Without one, the names the person registered with at the hub, not their e-mail address
        // (issue 41, defect 8).
        return (person, name ?? loggedIn?.displayName ?? person)
    }

    /// The hub login this device is logged in as, or `nil` without sync, a login, or a host that
    /// knows it (one older than SDK 1.6).
    func loggedInPerson() async throws -> String? {
        try await loggedInAccount()?.name
    }

    /// The hub account this device is logged in as, with the names the person registered with
    /// (SDK 1.9), or `nil` as ``loggedInPerson()``.
    func loggedInAccount() async throws -> LoggedInPerson? {
        guard let sync else { return nil }
        return try await sync.spaces.currentPerson()
    }

    /// Remembers this device's person when the hub has just said who it is (the creator of a new
    /// space, the invitee of an accepted invitation) and no `profile-set` named them: only for a
    /// host that does not say who is logged in (before SDK 1.6), where a level is only as good as
    /// the person it is for.
    func learnPerson(_ person: String) async throws {
        guard try await query("SELECT 1 FROM profile WHERE id = 'person' AND value <> ''").isEmpty else { return }
        try await storage.write { $0.put("profile", id: "person", ["value": .text(person)]) }
    }

    /// This person's level for `childID`, refusing an unknown child. The creator is the owner; the
    /// others have the level the owner granted (the `access` row the owner wrote when inviting). A
    /// child whose grant has not arrived yet is treated as the least: guardian.
    func level(for childID: String) async throws -> AccessLevel {
        guard let child = try await query("SELECT created_by FROM children WHERE id = ?", [.text(childID)]).first else {
            throw BabyError.notFound("child", childID)
        }
        let me = try await me().person
        if child["created_by"].text == me { return .owner }
        let granted = try await query("SELECT level FROM access WHERE child_id = ? AND person = ?", [.text(childID), .text(me)])
        return granted.first?["level"].text.flatMap(AccessLevel.init(rawValue:)) ?? .guardian
    }

    /// Refuses unless this person may take `action` on `childID`; returns the level.
    @discardableResult
    func require(_ action: DiaryAction, on childID: String) async throws -> AccessLevel {
        let level = try await level(for: childID)
        guard Permissions.allows(level, action, me: try await me().person) else { throw Permissions.refusal(level, action) }
        return level
    }
}
