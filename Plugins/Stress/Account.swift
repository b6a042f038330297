import Foundation
import TesseraSDK

/// The participant's lifecycle (§3.5): registered (the module is enabled for them) → active, by
/// giving informed consent (F1, G3) → cancelled, by withdrawing it (G9). Cancelling deletes every
/// record of theirs irreversibly, cancels every reminder, and leaves only the fact of the
/// cancellation, so that the account can never be used again.
extension Study {
    static let consentVersion = "1"

    struct AccountStatus: Encodable, Sendable {
        var state: String
        var consentVersion: String
        var consentGivenAt: String?
        var checklist: Checklist
    }

    /// The thesis's checklist (E14).
    struct Checklist: Encodable, Sendable {
        var consent: Bool
        var entryTest: Bool
        var screen: Bool
        var exitRetest: Bool
        var exitEvaluation: Bool
    }

    func accountStatus() async throws -> AccountStatus {
        let s = try await snapshot()
        return AccountStatus(state: s.state.rawValue, consentVersion: Self.consentVersion, consentGivenAt: s.consentAt?.iso,
                             checklist: Checklist(consent: s.state == .active, entryTest: s.submissions["entry"] != nil,
                                                  screen: s.submissions["screen"] != nil, exitRetest: s.submissions["exit-retest"] != nil,
                                                  exitEvaluation: s.submissions["exit-evaluation"] != nil))
    }

    struct ConsentInput: Decodable, Sendable { var consentVersion: String; var accepted: Bool }

    func giveConsent(_ input: ConsentInput) async throws -> AccountStatus {
        let s = try await snapshot()
        switch s.state {
        case .revoked: throw PluginError.refused(.accountRevoked, "this account was cancelled; it cannot be logged into again")
        case .active: return try await accountStatus()  // asked once only (G4): giving it again changes nothing
        case .registered: break
        }
        guard input.accepted else { throw PluginError.invalid("consent must be accepted to take part", field: "$.accepted", .consentRequired) }
        guard input.consentVersion == Self.consentVersion else {
            throw PluginError.invalid("the consent text in force is version \(Self.consentVersion); read it again (about-research)",
                                      field: "$.consentVersion", .contentOutdated)
        }
        let now = clock.now()
        try await storage.write { batch in
            batch.put("participant", id: "me", ["state": .text("active"), "consent_version": .text(input.consentVersion),
                                                "consent_at": .text(now.iso)])
        }
        return try await accountStatus()
    }

    /// Withdraws consent (G9, F1): deletes every row of the participant's in one transaction,
    /// cancels their reminders and timers, and marks the account cancelled for good.
    func cancelAccount(confirm: Bool) async throws -> AccountStatus {
        let s = try await snapshot()
        guard s.state != .revoked else { throw PluginError.refused(.accountRevoked, "the account is already cancelled") }
        guard confirm else {
            throw PluginError.invalid("cancelling deletes all your data irreversibly and cannot be undone; send confirm: true",
                                      field: "$.confirm", .confirmationRequired)
        }
        var rows: [(String, String)] = []
        for table in Self.personalTables {
            rows += try await storage.query("SELECT id FROM \(table)").compactMap { row in row["id"].text.map { (table, $0) } }
        }
        let now = clock.now()
        try await storage.write { batch in
            for (table, id) in rows { batch.delete(table, id: id) }
            batch.put("participant", id: "me", ["state": .text("revoked"), "revoked_at": .text(now.iso)])
        }
        try await cancelEveryReminder()
        return try await accountStatus()
    }

    /// Every table holding the participant's own data; `participant` keeps only the cancellation.
    static let personalTables = ["settings", "progress", "answers", "submissions", "evaluations", "relaxation_sessions", "diary", "feedback"]
}
