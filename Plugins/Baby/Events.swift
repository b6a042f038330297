import TesseraSDK

/// What the diary tells other modules (specs/baby-diary.md §9.5, issue 41 defect 9), when the
/// deployment grants it `events`: a child added on this device, a child shared with this
/// device's person (an invitation accepted), a member's access revoked by the owner, this
/// device losing a child (its person's access was revoked elsewhere), and changes of this device
/// the hub refused (Refusals.swift). Those written with rows are
/// emitted in the same batch, so an event never exists without its change or the other way round.
/// The payloads carry ids and levels only: another module learns that something happened, and
/// asks this one (with its own grants) for anything more.
enum BabyEvents {
    /// The events the manifest's `events.emits` declares.
    static let childAdded = "child-added"
    static let invitationAccepted = "invitation-accepted"
    static let accessRevoked = "access-revoked"
    static let childLost = "child-lost"
    /// The hub refused changes this device made, and they were taken back (`reason`: the hub's code).
    static let changesRefused = "changes-refused"
}

extension Diary {
    /// Adds `name` to a write batch when the module may emit events.
    func emit(_ name: String, _ payload: JSONValue, in batch: inout WriteBatch) {
        guard events != nil else { return }
        batch.emit(name, payload)
    }

    /// Publishes `name` on its own (no rows go with it) when the module may emit events.
    func publish(_ name: String, _ payload: JSONValue) async throws {
        try await events?.publish(name, payload)
    }
}
