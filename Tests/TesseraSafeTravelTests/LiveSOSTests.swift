import Foundation
import Testing
@testable import TesseraSafeTravel
import TesseraTesting
import TesseraTestFixtures

/// The live view of an SOS pressed outside a trip (LiveSOS.swift): the alert carries a link of its
/// own, minted with the SOS, that shows the SOS's positions and closes an hour after the traveller
/// reports safe.
@Suite("Safe travel's live view of an SOS", .hangWatchdog)
struct LiveSOSTests {
    @Test func anSOSOutsideATripAlertsWithALinkToItsPositions() async throws {
        let host = try await TravelFixture.ada()
        await TravelFixture.fix(host, 50.08, 14.42, battery: 33)
        _ = try await host.call("sos-touch-down")
        try await host.advanceClock(by: 4)                       // held at 08:00:03, sampled
        await TravelFixture.fix(host, 50.0805, 14.4207, battery: 32)
        try await host.advanceClock(by: 5)                       // sampled again at 08:00:08
        let sos = try #require(try await host.call("sos-touch-up")["sosId"]?.stringValue)  // released 08:00:09
        try await host.advanceClock(by: 15)                      // the alert at 08:00:24
        let alert = try #require(try host.deliveredNotifications().first { $0.key == "alert-sos-\(sos)" })
        let token = try #require(alert.payload["liveView"]?["token"]?.stringValue)
        #expect(alert.payload["liveView"]?["sosId"]?.stringValue == sos)
        #expect(alert.payload["liveView"]?["tripId"] == nil, "no trip: the link is the SOS's")
        #expect(alert.body.contains("Live view: /ui/cz.tessera.safetravel/live.html#\(token)"))

        let view = try await LiveViewTests.view(host, token)
        #expect(view["kind"] == "sos" && view["traveller"] == "ada" && view["state"] == "ALERTED")
        #expect(view["pressedAt"] == "2026-03-02T08:00:03.000Z" && view["releasedAt"] == "2026-03-02T08:00:09.000Z")
        #expect(view["track"]?.arrayValue?.map { $0["lat"]?.doubleValue ?? 0 } == [50.08, 50.0805])
        #expect(view["last"]?["lat"] == 50.0805 && view["battery"] == 32)
        #expect(view["alerts"]?.arrayValue?.first?["kind"] == "sos")
        #expect(!view.serialized().contains(sos) && !view.serialized().contains(token), "no ids, not the token")

        // Its repeat carries it too; the PIN after the alert reports safe, and the link closes an
        // hour later to the second.
        try await host.advanceClock(by: 300)
        let repeated = try #require(try host.deliveredNotifications().first { $0.key == "alert-sos-\(sos)-r1" })
        #expect(repeated.payload["liveView"]?["token"]?.stringValue == token)
        _ = try await host.call("sos-enter-pin", ["pin": .string(TravelFixture.pin)])  // 08:05:24
        #expect(try await LiveViewTests.view(host, token)["reportedSafeAt"] == "2026-03-02T08:05:24.000Z")
        try await host.advanceClock(by: 3_599)
        #expect(await LiveViewTests.closed(host, token) == nil, "open for the hour of grace")
        try await host.advanceClock(by: 1)
        #expect(await LiveViewTests.closed(host, token) == "not_found: \(Travel.noLiveView.message)")
        await host.stop()
    }

    @Test func anSOSDuringATripCarriesTheTripsLinkAndMintsNoOther() async throws {
        let host = try await TravelFixture.ada()
        let (_, tripToken) = try await LiveViewTests.startTrip(host)
        _ = try await host.call("sos-touch-down")
        try await host.advanceClock(by: 3)
        _ = try await host.call("sos-alert-now")
        try await host.advanceClock(by: 1)
        let alert = try #require(try host.deliveredNotifications().first { $0.key.hasPrefix("alert-sos-") })
        #expect(alert.payload["liveView"]?["token"]?.stringValue == tripToken)
        #expect(try await host.query("SELECT id FROM live_links WHERE sos_id != ''", []).isEmpty)
        await host.stop()
    }

    @Test func anSOSMadeSafeInTimeClosesItsLinkAfterTheGrace() async throws {
        let host = try await TravelFixture.ada()
        await TravelFixture.fix(host, 50.08, 14.42)
        _ = try await host.call("sos-touch-down")
        try await host.advanceClock(by: 3)
        _ = try await host.call("sos-touch-up")
        let token = try #require(try await host.query("SELECT token FROM live_links WHERE sos_id != ''", []).first?["token"].text)
        #expect(try await LiveViewTests.view(host, token)["state"] == "RELEASED")
        try await host.advanceClock(by: 5)
        #expect(try await host.call("sos-enter-pin", ["pin": .string(TravelFixture.pin)])["state"] == "SAFE")  // 08:00:08
        #expect(try await LiveViewTests.view(host, token)["linkExpiresAt"] == "2026-03-02T09:00:08.000Z")
        try await host.advanceClock(by: 3_600)
        #expect(await LiveViewTests.closed(host, token) != nil)
        #expect(try TravelFixture.delivered(host, "alert-").isEmpty)
        await host.stop()
    }
}
