import TesseraTestFixtures
import Foundation
import Testing
@testable import TesseraStress
import TesseraTesting

/// §3.5: consent at first use, and cancellation that deletes everything and cannot be undone.
@Suite(.hangWatchdog) struct StressAccountTests {
    @Test func nothingPersonalWorksBeforeConsentButTheConsentTextCanBeRead() async throws {
        let host = try await StressFixture.host()
        #expect(try await host.call("account-state")["state"] == "registered")
        #expect(await refusal { try await host.call("diary-record", ["level": 2, "questionId": 201, "text": "x"]) }?.reason == "consent_required")
        #expect(await refusal { try await host.call("programme") }?.reason == "consent_required")
        let research = try await host.call("about-research")
        #expect(research["consentVersion"] == "1")
        #expect(research["subsections"]?.arrayValue?.first?["name"] == "Informovaný souhlas")
        let declined = await refusal { try await host.call("consent-give", ["consentVersion": "1", "accepted": false]) }
        #expect(declined?.code == "invalid_input" && declined?.reason == "consent_required")
        #expect(await refusal { try await host.call("consent-give", ["consentVersion": "0", "accepted": true]) }?.reason == "content_outdated")
        #expect(try await StressFixture.count(host, "participant") == 0)
        let status = try await host.call("consent-give", ["consentVersion": "1", "accepted": true])
        #expect(status["state"] == "active" && status["checklist"]?["consent"] == true)
        #expect(status["consentGivenAt"] == "2026-01-01T00:00:00Z")
        // Asked once only (G4): giving it again changes nothing.
        _ = try await host.advanceClock(by: 60)
        #expect(try await host.call("consent-give", ["consentVersion": "1", "accepted": true])["consentGivenAt"] == "2026-01-01T00:00:00Z")
        await host.stop()
    }

    @Test func cancellingDeletesEveryRecordAndTheAccountCannotComeBack() async throws {
        let host = try await StressFixture.inWeekOne()
        _ = try await host.call("settings-set", ["diaryReminder": "20:00"])
        let record = try await host.call("diary-record", ["level": 1, "questionId": 101, "text": "Zkouškové"])
        _ = try await host.call("diary-note", ["text": "Poznámka"])
        _ = try await host.call("goal-save", ["questionId": 1, "text": "Škola"])
        _ = try await host.call("feedback-submit", ["text": "Díky"])
        #expect(try await host.pendingNotifications().map(\.request.key).contains(Study.diaryKey))

        // Without confirm: refused, and nothing is gone.
        #expect(await refusal { try await host.call("account-cancel") }?.reason == "confirmation_required")
        #expect(try await StressFixture.count(host, "diary") == 2)

        let cancelled = try await host.call("account-cancel", ["confirm": true])
        #expect(cancelled["state"] == "revoked")
        for table in Study.personalTables {
            #expect(try await StressFixture.count(host, table) == 0, "\(table) still has rows")
        }
        #expect(try await host.query("SELECT state, consent_version FROM participant").map { $0["state"].text } == ["revoked"])
        #expect(try await host.pendingNotifications().isEmpty)

        // Cannot be logged back into, nor used.
        #expect(await refusal { try await host.call("consent-give", ["consentVersion": "1", "accepted": true]) }?.reason == "account_revoked")
        let id = try #require(record["id"]?.stringValue)
        #expect(await refusal { try await host.call("diary-edit", ["id": .string(id), "text": "změna"]) }?.reason == "account_revoked")
        #expect(await refusal { try await host.call("account-cancel", ["confirm": true]) }?.reason == "account_revoked")
        #expect(await refusal { try await host.call("dashboard") }?.reason == "account_revoked")
        // A delivered STAG event after cancelling schedules nothing.
        try await host.deliver("exam-upcoming", from: "cz.tessera.stag", payload: ["termId": 7, "subject": "KMI/PRG", "subjectName": "Programování",
                                                                                   "start": "2026-01-20T09:00:00+01:00"])
        #expect(try await host.pendingNotifications().isEmpty)
        await host.stop()
    }

    @Test func settingsAreCheckedAndLanguageChangesTheTexts() async throws {
        let host = try await StressFixture.consented()
        #expect(try await host.call("library")["children"]?.arrayValue?.first?["title"] == "Co je stres")
        #expect(await refusal { try await host.call("settings-set", ["timeZone": "Mars/Olympus"]) }?.code == "invalid_input")
        #expect(await refusal { try await host.call("settings-set", ["diaryReminder": "25:00"]) }?.code == "invalid_input")
        let settings = try await host.call("settings-set", ["language": "en", "timeZone": "Europe/London"])
        #expect(settings["language"] == "en" && settings["timeZone"] == "Europe/London")
        #expect(try await host.call("library")["children"]?.arrayValue?.first?["title"] == "What stress is")
        await host.stop()
    }
}
