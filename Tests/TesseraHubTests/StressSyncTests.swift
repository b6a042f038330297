import TesseraHubFixtures
import TesseraTestFixtures
import Foundation
import Testing
import TesseraStress
import TesseraTesting

/// The stress programme on two of the participant's devices through a real hub: what one device
/// records, the other's rules see (a note allowed after the other device's stress record), the
/// reminders follow remote changes, and a cancellation on one device empties the other.
@Suite("The stress programme synced across devices", .hangWatchdog)
struct StressSyncTests {
    static let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("manifests/stress.json").path

    @Test func twoDevicesShareTheProgrammeTheDiaryAndTheCancellation() async throws {
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("ada")
            let url = "http://127.0.0.1:\(hub.port)"
            let phone = try await PluginTestHost(manifest: Self.manifest, plugin: { StressPlugin() }, syncHub: url)
            let laptop = try await PluginTestHost(manifest: Self.manifest, plugin: { StressPlugin() }, syncHub: url)
            try await phone.host.syncLogin(name: "ada", password: "correct horse battery", device: "phone")
            try await laptop.host.syncLogin(name: "ada", password: "correct horse battery", device: "laptop")
            try await phone.advanceClock(by: 1)
            try await laptop.advanceClock(by: 1)

            _ = try await phone.call("consent-give", ["consentVersion": "1", "accepted": true])
            _ = try await phone.call("questionnaire-submit", ["kind": "entry", "answers": .array((1...5).map { ["questionId": .integer(Int64($0)), "value": 1] })])
            _ = try await phone.call("questionnaire-submit", ["kind": "screen", "answers": .array((1...3).map { ["questionId": .integer(Int64($0)), "optionId": 1] })])
            _ = try await phone.call("diary-record", ["level": 2, "questionId": 201, "text": "přednášky"])
            try await phone.advanceClock(by: 3)
            try await laptop.advanceClock(by: 900)

            #expect(try await laptop.call("account-state")["state"] == "active")
            #expect(try await laptop.call("programme")["weeks"]?.arrayValue?.first?["state"] == "open")
            _ = try await laptop.call("diary-note", ["text": "z notebooku"])  // the phone's record counts today
            let answers: [JSONValue] = (1...4).map { ["questionId": .integer(Int64($0)), "text": "odpověď"] }
            _ = try await laptop.call("goal-complete", ["answers": .array(answers)])
            try await laptop.advanceClock(by: 3)
            try await phone.advanceClock(by: 900)
            #expect(try await phone.call("programme")["weeks"]?.arrayValue?.first?["state"] == "completed")
            #expect(try await phone.query("SELECT COUNT(*) AS n FROM diary").first?["n"].integer == 2)
            #expect(try phone.pendingNotifications().contains { $0.request.key == "week-open-1" })  // rescheduled on remote changes

            _ = try await phone.call("account-cancel", ["confirm": true])
            try await phone.advanceClock(by: 3)
            try await laptop.advanceClock(by: 900)
            #expect(try await laptop.call("account-state")["state"] == "revoked")
            #expect(try await laptop.query("SELECT COUNT(*) AS n FROM diary").first?["n"].integer == 0)
            #expect(try laptop.pendingNotifications().isEmpty)
            await phone.stop()
            await laptop.stop()
        }
    }
}
