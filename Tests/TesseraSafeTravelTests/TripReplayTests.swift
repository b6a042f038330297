import Foundation
import Testing
@testable import TesseraSafeTravel
import TesseraLocation
import TesseraTesting
import TesseraTestFixtures

/// The issue's test: a whole trip replayed from a GPX track on the virtual clock. The traveller
/// leaves on time, walks the planned route for ten minutes, turns off it, then stops answering
/// and misses the ETA; each alert fires exactly once, at the right virtual second.
@Suite(.hangWatchdog) struct TripReplayTests {
    static let home: JSONValue = ["name": "Home", "lat": 50.088, "lon": 14.42]
    static let route: JSONValue = [["lat": 50.07, "lon": 14.42], ["lat": 50.088, "lon": 14.42]]

    /// Replays `file` from now on the host's clock: each fix at its due instant, firing what falls due between.
    /// Returns the keys of the timers that fired on the way.
    @discardableResult
    static func replay(_ host: PluginTestHost, _ file: String) async throws -> [String] {
        let document = try GPXReader().read(contentsOf: TravelFixture.fixtures.appendingPathComponent(file))
        let replay = try GPXReplay(points: document.replayPoints, deviceID: "ada/phone")
        var fired: [String] = []
        for fix in replay.schedule(startingAt: host.now) {
            let seconds = fix.timestamp.timeIntervalSince(host.now)
            if seconds > 0 { fired += try await host.advanceClock(by: seconds).map(\.timer.key) }
            let report = await host.feedLocation([fix])
            #expect(report.accepted == 1)
        }
        return fired
    }

    @Test func leaveOnTimeDeviateGoSilentMissTheETAEachAlertOnceAtItsSecond() async throws {
        let host = try await TravelFixture.ada(config: ["requireGuardians": false, "pinIterations": 1000, "maxRepeats": 1])
        let started = try await host.call("trip-start", ["destination": Self.home, "expectedArrivalAt": "2026-03-02T08:30:00Z",
                                                         "plan": ["WALKING"], "route": Self.route])
        let trip = try #require(started["id"]?.stringValue)
        #expect(started["active"] == true && started["plan"] == ["WALKING"])

        var fired = try await Self.replay(host, "walk-off-route.gpx")      // 08:00:00 … 08:15:00
        #expect(try await host.call("trip-status")["off_route_since"] == "2026-03-02T08:10:10.000Z")
        fired += try await host.advanceClock(by: Date("2026-03-02T10:00:00Z").timeIntervalSince(host.now)).map(\.timer.key)
        // Each deadline's timer fired once: fixes after a deadline do not arm it again.
        for timer in [Travel.offRoutePromptTimer, Travel.offRouteAlertTimer, Travel.tripSilenceTimer, Travel.etaTimer, Travel.overdueTimer] {
            #expect(fired.filter { $0 == "\(timer):\(trip)" }.count == 1, "\(timer)")
        }

        let since = Instant.millis(Date("2026-03-02T08:10:10Z")), seen = Instant.millis(Date("2026-03-02T08:15:00Z"))
        let eta = Instant.millis(Date("2026-03-02T08:30:00Z"))
        // The ladder: the traveller first, then the guardians, then one repeat (maxRepeats 1).
        #expect(try TravelFixture.delivered(host).filter { !$0.hasPrefix("trip-started") } == [
            "trip-offroute-\(trip)-\(since) @ 2026-03-02T08:11:10.000Z",               // dwell 60 s: the traveller
            "alert-trip-\(trip)-offroute-\(since) @ 2026-03-02T08:13:10.000Z",         // + 120 s: the guardians
            "alert-trip-\(trip)-offroute-\(since)-r1 @ 2026-03-02T08:18:10.000Z",
            "alert-trip-\(trip)-silent-\(seen) @ 2026-03-02T08:20:00.000Z",            // last fix + 5 min
            "alert-trip-\(trip)-silent-\(seen)-r1 @ 2026-03-02T08:25:00.000Z",
            "trip-eta-\(trip)-\(eta) @ 2026-03-02T08:30:00.000Z",                      // ETA: the traveller
            "alert-trip-\(trip)-overdue-\(eta) @ 2026-03-02T08:40:00.000Z",            // ETA + 10 min: the guardians
            "alert-trip-\(trip)-overdue-\(eta)-r1 @ 2026-03-02T08:45:00.000Z",
        ])
        let alerts = try await host.call("alerts")["alerts"]?.arrayValue ?? []
        #expect(alerts.map { "\($0["kind"]!.stringValue!) @ \($0["due_at"]!.stringValue!)" } == [
            "trip-off-route @ 2026-03-02T08:13:10.000Z", "trip-silent @ 2026-03-02T08:20:00.000Z", "trip-overdue @ 2026-03-02T08:40:00.000Z"])
        let overdue = try #require(try host.deliveredNotifications().first { $0.key == "alert-trip-\(trip)-overdue-\(eta)" })
        #expect(overdue.recipient.hasPrefix("space:") && !overdue.late)
        #expect(overdue.payload["lastPositions"]?.arrayValue?.compactMap { $0["at"]?.stringValue } == [
            "2026-03-02T08:15:00.000Z", "2026-03-02T08:14:00.000Z", "2026-03-02T08:13:00.000Z", "2026-03-02T08:12:00.000Z", "2026-03-02T08:11:00.000Z"])
        #expect(overdue.body.contains("m from Home"))
        // Positions were recorded once a minute, not for every fix.
        let positions = try await host.query("SELECT COUNT(*) AS n FROM trip_activities WHERE type = 'POSITION'").first?["n"].integer
        #expect(positions == 16)
        // Ending with the PIN stops everything.
        _ = try await host.call("trip-end", ["pin": .string(TravelFixture.pin)])
        #expect(try await host.call("trip-status")["active"] == false)
        await host.stop()
    }

    @Test func arrivingInsideTheRadiusSuppressesTheOverdueAlert() async throws {
        let host = try await TravelFixture.ada()
        _ = try await host.call("trip-start", ["destination": Self.home, "expectedArrivalAt": "2026-03-02T08:20:00Z", "route": Self.route])
        for step in 0...10 {       // 2 km in 10 minutes, a fix a minute, the last one at home
            await TravelFixture.fix(host, 50.07 + 0.0018 * Double(step), 14.42, accuracy: 8)
            try await host.advanceClock(by: 60)
        }
        let status = try await host.call("trip-status")
        #expect(status["arrived_at"] == "2026-03-02T08:10:00.000Z")
        #expect(try TravelFixture.delivered(host, "trip-arrived").count == 2)   // the guardians, and the traveller's "end with your PIN"
        // The phone is put away at home: silence still watches (the trip is not ended), overdue does not.
        try await TravelFixture.advance(host, to: Date("2026-03-02T09:00:00Z"))
        #expect(try await host.call("alerts")["alerts"]?.arrayValue?.map { $0["kind"] } == ["trip-silent"])
        #expect(try TravelFixture.delivered(host, "alert-").allSatisfy { $0.contains("-silent-") })
        #expect(try TravelFixture.delivered(host, "trip-eta").isEmpty)
        await host.stop()
    }

    @Test func aLowBatteryTellsTheGuardiansOncePerTrip() async throws {
        let host = try await TravelFixture.ada()
        let trip = try #require(try await host.call("trip-start", ["destination": Self.home])["id"]?.stringValue)
        _ = try await host.call("position-report", ["lat": 50.07, "lon": 14.42, "battery": 16])
        try await host.advanceClock(by: 30)
        _ = try await host.call("position-report", ["lat": 50.071, "lon": 14.42, "battery": 15])   // at the threshold
        try await host.advanceClock(by: 30)
        _ = try await host.call("position-report", ["lat": 50.072, "lon": 14.42, "battery": 9])
        try await host.advanceClock(by: 1)
        #expect(try TravelFixture.delivered(host, "alert-") == ["alert-trip-\(trip)-battery @ 2026-03-02T08:00:30.000Z"])
        let entry = try #require(try host.deliveredNotifications().first { $0.key.hasPrefix("alert-trip-") })
        #expect(entry.body.contains("Battery 15 %"))
        await host.stop()
    }

    @Test func aNewETAMovesTheDeadlinesAndAnAcknowledgementStopsTheRepeats() async throws {
        let host = try await TravelFixture.ada(config: ["requireGuardians": false, "pinIterations": 1000, "silenceTimeout": "1h"])
        _ = try await host.call("trip-start", ["destination": Self.home, "expectedArrivalAt": "2026-03-02T08:20:00Z"])
        try await host.advanceClock(by: 600)
        _ = try await host.call("position-report", ["lat": 50.08, "lon": 14.42, "accuracy": 12, "battery": 60])
        _ = try await host.call("trip-update-eta", ["expectedArrivalAt": "2026-03-02T08:40:00Z"])
        try await TravelFixture.advance(host, to: Date("2026-03-02T08:14:00Z"))
        _ = try await host.call("trip-message", ["text": "on the tram"])         // a sign of life
        try await TravelFixture.advance(host, to: Date("2026-03-02T08:50:00Z"))
        let eta = Instant.millis(Date("2026-03-02T08:40:00Z"))
        let keys = try TravelFixture.delivered(host, "alert-")
        #expect(keys.contains { $0.hasPrefix("alert-trip-") && $0.contains("-overdue-\(eta) @ 2026-03-02T08:50:00.000Z") })
        #expect(!keys.contains { $0.contains("08:30:00") })                         // the old ETA's deadline is gone
        _ = try await host.call("trip-acknowledge", ["pin": .string(TravelFixture.pin)])
        let before = try TravelFixture.delivered(host, "alert-").filter { $0.contains("-overdue-") }
        #expect(before.count == 1)
        try await TravelFixture.advance(host, to: Date("2026-03-02T10:00:00Z"))
        #expect(try TravelFixture.delivered(host, "alert-").filter { $0.contains("-overdue-") } == before)
        await host.stop()
    }
}
