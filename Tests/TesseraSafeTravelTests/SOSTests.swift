import Foundation
import Testing
@testable import TesseraSafeTravel
import TesseraTesting
import TesseraTestFixtures

/// F6, §3.2 and §7.8: the SOS button's state machine on the virtual clock, to the second.
@Suite(.hangWatchdog) struct SOSTests {
    @Test func aPressShorterThanThreeSecondsLeavesNoRecord() async throws {
        let host = try await TravelFixture.ada()
        #expect(try await host.call("sos-touch-down")["state"] == "ARMING")
        try await host.advanceClock(by: 2)
        #expect(try await host.call("sos-touch-up") == ["state": "IDLE", "aborted": true])
        try await host.advanceClock(by: 60)
        #expect(try await TravelFixture.count(host, "sos") == 0)
        #expect(try await host.call("sos-status")["state"] == "IDLE")
        await host.stop()
    }

    @Test func heldReleasedAndThePINInTimeIsSafeWithPositionsEveryFiveSeconds() async throws {
        let host = try await TravelFixture.ada()
        await TravelFixture.fix(host, 50.08, 14.42)
        _ = try await host.call("sos-touch-down")
        try await host.advanceClock(by: 3)
        #expect(try await host.call("sos-status")["state"] == "HOLDING")
        for _ in 0..<3 {  // the phone keeps sending fixes while the finger is down
            try await host.advanceClock(by: 4)
            await TravelFixture.fix(host, 50.0801, 14.4201)
        }
        try await host.advanceClock(by: 1)  // 08:00:16: samples at :03 (pressed), :08, :13
        let released = try await host.call("sos-touch-up")
        #expect(released["state"] == "RELEASED" && released["deadlineAt"] == "2026-03-02T08:00:31.000Z")
        let status = try await host.call("sos-status")
        #expect(status["positions"]?.arrayValue?.compactMap { $0["recorded_at"]?.stringValue } ==
                ["2026-03-02T08:00:03.000Z", "2026-03-02T08:00:08.000Z", "2026-03-02T08:00:13.000Z"])
        try await host.advanceClock(by: 9)
        #expect(try await host.call("sos-enter-pin", ["pin": .string(TravelFixture.pin)])["state"] == "SAFE")
        try await host.advanceClock(by: 600)
        #expect(try await TravelFixture.count(host, "alerts") == 0)
        #expect(try TravelFixture.delivered(host, "alert-").isEmpty)
        // No positions after the release (§7.7 sos.trackAfterRelease: false).
        #expect(try await TravelFixture.count(host, "sos_positions") == 3)
        await host.stop()
    }

    @Test func noPINByReleasePlusFifteenSecondsAlertsOnceWithTheLastPositions() async throws {
        let host = try await TravelFixture.ada(config: ["requireGuardians": false, "pinIterations": 1000, "maxRepeats": 2])
        await TravelFixture.fix(host, 50.08, 14.42, battery: 41)
        _ = try await host.call("sos-touch-down")
        try await host.advanceClock(by: 5)                      // pressed at 08:00:03
        let sos = try #require(try await host.call("sos-touch-up")["sosId"]?.stringValue)  // released 08:00:05
        try await host.advanceClock(by: 14)
        #expect(try TravelFixture.delivered(host, "alert-").isEmpty)  // 08:00:19: one second to go
        try await host.advanceClock(by: 1)
        #expect(try TravelFixture.delivered(host, "alert-") == ["alert-sos-\(sos) @ 2026-03-02T08:00:20.000Z"])
        let entry = try #require(try host.deliveredNotifications().first { $0.key == "alert-sos-\(sos)" })
        #expect(entry.recipient.hasPrefix("space:"))
        #expect(entry.payload["reason"] == "PIN_TIMEOUT" && entry.payload["battery"] == 41)
        #expect(entry.payload["lastPositions"]?.arrayValue?.first?["lat"] == 50.08)
        #expect(!entry.body.contains(TravelFixture.pin) && !entry.payload.serialized().contains(TravelFixture.pin))
        #expect(try await host.call("sos-status")["state"] == "ALERTED")
        // The ladder repeats every 5 minutes until acknowledged; the PIN after the alert reports safe and stops it.
        try await host.advanceClock(by: 300)
        #expect(try TravelFixture.delivered(host, "alert-sos").count == 2)
        let safe = try await host.call("sos-enter-pin", ["pin": .string(TravelFixture.pin)])
        #expect(safe["state"] == "ALERTED" && safe["reportedSafeAt"] == "2026-03-02T08:05:20.000Z")
        try await host.advanceClock(by: 3600)
        #expect(try TravelFixture.delivered(host, "alert-sos") == ["alert-sos-\(sos) @ 2026-03-02T08:00:20.000Z",
                                                                 "alert-sos-\(sos)-r1 @ 2026-03-02T08:05:20.000Z"])
        #expect(try TravelFixture.delivered(host, "sos-safe-").count == 1)
        #expect(try await TravelFixture.count(host, "alerts") == 1)
        await host.stop()
    }

    @Test func alertNowSkipsTheWait() async throws {
        let host = try await TravelFixture.ada()
        _ = try await host.call("sos-touch-down")
        try await host.advanceClock(by: 4)
        let alerted = try await host.call("sos-alert-now")
        #expect(alerted["reason"] == "USER_IMMEDIATE")
        let sos = try #require(alerted["sosId"]?.stringValue)
        try await host.advanceClock(by: 1)
        #expect(try TravelFixture.delivered(host, "alert-") == ["alert-sos-\(sos) @ 2026-03-02T08:00:04.000Z"])
        // The finger lifts later: nothing more happens.
        #expect(await refusal { try await host.call("sos-touch-up") }?.reason == "invalid_state")
        try await host.advanceClock(by: 60)
        #expect(try await TravelFixture.count(host, "alerts") == 1)
        await host.stop()
    }

    @Test func thePhoneDiesWhileTheButtonIsHeldAlertsAtTheSilenceThreshold() async throws {
        let host = try await TravelFixture.ada()
        await TravelFixture.fix(host, 50.08, 14.42)
        _ = try await host.call("sos-touch-down")
        try await host.advanceClock(by: 3)                     // HOLDING from 08:00:03
        for _ in 0..<2 { try await host.advanceClock(by: 5); await TravelFixture.fix(host, 50.08, 14.42) }  // last fix 08:00:13
        // Then nothing: no fix, no release. 15 s after the last sign of life the guardians are told.
        try await host.advanceClock(by: 14)
        #expect(try TravelFixture.delivered(host, "alert-").isEmpty)
        try await host.advanceClock(by: 1)
        let sos = try #require(try await host.call("sos-status")["id"]?.stringValue)
        #expect(try TravelFixture.delivered(host, "alert-") == ["alert-sos-\(sos) @ 2026-03-02T08:00:28.000Z"])
        #expect(try await host.call("sos-status")["alert_reason"] == "DEVICE_SILENT")
        await host.stop()
    }
}
