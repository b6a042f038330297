import Foundation
import Testing
@testable import TesseraSafeTravel
import TesseraLocation
import TesseraTesting
import TesseraTestFixtures

/// Places (geofences; Places.swift): a walk to a place and away, replayed from a GPX track on the
/// virtual clock, tells the guardians of the arrival and of the departure exactly once each, at
/// their fixes' seconds, while GPS jitter across both edges of the hysteresis band tells nothing.
@Suite(.hangWatchdog) struct PlacesTests {
    static let school: JSONValue = ["name": "School", "lat": 50.08, "lon": 14.42, "radius": 100]

    /// The place notifications delivered, as "title @ second", after a second of the clock (a
    /// notification scheduled for now is delivered by the host's next pass).
    static func told(_ host: PluginTestHost) async throws -> [String] {
        try await host.advanceClock(by: 1)
        return try host.deliveredNotifications().filter { $0.key.hasPrefix("place-") }.map { "\($0.title) @ \(Instant.text($0.dueAt))" }
    }

    @Test func aWalkToAPlaceAndAwayTellsTheGuardiansOnceEachWayAndJitterTellsNothing() async throws {
        let host = try await TravelFixture.ada()
        let added = try await host.call("place-add", Self.school)
        let place = try #require(added["id"]?.stringValue)
        #expect(added["radius"]?.doubleValue == 100 && added["notifyOn"] == ["arrive", "leave"] && added["presence"] == "unknown")

        try await TripReplayTests.replay(host, "place-visit.gpx")  // 08:00:00 … 08:15:00, 46 fixes
        #expect(try await Self.told(host) == ["ada arrived at School @ 2026-03-02T08:03:00.000Z", "ada left School @ 2026-03-02T08:09:00.000Z"])
        let arrival = try #require(try host.deliveredNotifications().first { $0.key.hasPrefix("place-\(place)-arrive-") })
        #expect(arrival.recipient.hasPrefix("space-others:"), "to the guardians: \(arrival.recipient)")
        #expect(arrival.payload["event"] == "arrive" && arrival.payload["name"] == "School" && arrival.payload["place"]?.stringValue == place)
        let listed = try #require(try await host.call("places")["places"]?.arrayValue?.first)
        #expect(listed["presence"] == "outside" && listed["since"] == "2026-03-02T08:09:00.000Z")

        // Without the band, the same track's distances would have flapped at the 100 m edge.
        let document = try GPXReader().read(contentsOf: TravelFixture.fixtures.appendingPathComponent("place-visit.gpx"))
        let centre = GeoPoint(latitude: 50.08, longitude: 14.42)
        var state: String?, changes = 0
        for point in document.replayPoints {
            let distance = Geodesy.distance(from: GeoPoint(latitude: point.latitude, longitude: point.longitude), to: centre)
            let next = Travel.placeState(distance: distance, radius: 100, hysteresis: 0, previous: state)
            if state != nil, next != state { changes += 1 }
            state = next
        }
        #expect(changes > 2, "the jitter crosses the bare radius \(changes) times")
        await host.stop()
    }

    @Test func aFixTooInaccurateDecidesNothingAndTheFirstFixSetsTheStateSilently() async throws {
        let host = try await TravelFixture.ada()
        _ = try await host.call("position-report", ["lat": 50.08, "lon": 14.42, "accuracy": 5])  // standing in it already
        let place = try #require(try await host.call("place-add", Self.school)["id"]?.stringValue)
        try await host.advanceClock(by: 10)
        _ = try await host.call("position-report", ["lat": 50.08, "lon": 14.42, "accuracy": 5])
        #expect(try await Self.told(host) == [], "adding the place you stand in is no arrival")
        // 1 km away, but ±300 m: not believed.
        try await host.advanceClock(by: 10)
        _ = try await host.call("position-report", ["lat": 50.089, "lon": 14.42, "accuracy": 300])
        #expect(try await Self.told(host) == [])
        try await host.advanceClock(by: 10)
        _ = try await host.call("position-report", ["lat": 50.089, "lon": 14.42, "accuracy": 20])
        #expect(try await Self.told(host) == ["ada left School @ 2026-03-02T08:00:32.000Z"])
        // Only departures asked for: the way back in tells nothing.
        _ = try await host.call("place-remove", ["placeId": .string(place)])
        let leaveOnly = try #require(try await host.call("place-add", ["name": "Gym", "lat": 50.089, "lon": 14.42, "notifyOn": ["leave"]])["id"]?.stringValue)
        try await host.advanceClock(by: 10)
        _ = try await host.call("position-report", ["lat": 50.08, "lon": 14.42, "accuracy": 5])
        try await host.advanceClock(by: 10)
        _ = try await host.call("position-report", ["lat": 50.089, "lon": 14.42, "accuracy": 5])
        #expect(try await Self.told(host) == ["ada left School @ 2026-03-02T08:00:32.000Z"])
        #expect(try await host.call("places")["places"]?.arrayValue?.map { $0["id"] } == [.string(leaveOnly)])
        await host.stop()
    }

    @Test func badPlacesAreRefusedNamingTheFieldAndNothingIsWritten() async throws {
        let host = try await TravelFixture.ada()
        let cases: [(JSONValue, String)] = [
            (["name": "Far", "lat": 95, "lon": 14.42], "$.lat"),
            (["name": "Tiny", "lat": 50.08, "lon": 14.42, "radius": 5], "$.radius"),
            (["name": "Huge", "lat": 50.08, "lon": 14.42, "radius": 50_000], "$.radius"),
            (["name": "Odd", "lat": 50.08, "lon": 14.42, "notifyOn": ["enter"]], "$.notifyOn[0]"),
            (["lat": 50.08, "lon": 14.42], "$"),  // `name` is required
            (["name": "Extra", "lat": 50.08, "lon": 14.42, "colour": "red"], "$.colour"),
        ]
        for (input, field) in cases {
            let refused = await refusal { try await host.call("place-add", input) }
            #expect(refused?.code == "invalid_input" && refused?.field?.hasPrefix(field) == true, "\(input): \(String(describing: refused))")
        }
        #expect(try await TravelFixture.count(host, "places") == 0)
        let unknown = await refusal { try await host.call("place-remove", ["placeId": "nope"]) }
        #expect(unknown?.code == "not_found" && unknown?.field == "$.placeId")
        let limited = try await TravelFixture.ada(config: ["requireGuardians": false, "pinIterations": 1000, "maxPlaces": 1])
        _ = try await limited.call("place-add", Self.school)
        #expect(await refusal { try await limited.call("place-add", ["name": "Two", "lat": 50.0, "lon": 14.0]) }?.code == "conflict")
        #expect(try await TravelFixture.count(limited, "places") == 1)
        await host.stop(); await limited.stop()
    }
}
