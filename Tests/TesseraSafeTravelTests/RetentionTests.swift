import Foundation
import Testing
import TesseraSDK
@testable import TesseraSafeTravel
import TesseraTesting
import TesseraTestFixtures

/// Retention (Retention.swift) on the virtual clock: a finished trip, SOS or check-in with no alert is gone
/// `retentionDays` after it ended, at the first hourly purge after that, with everything that hangs
/// off it; one that raised an alert stays until `alertRetentionDays`; the traveller deletes a
/// finished trip or SOS at once with the PIN.
@Suite(.hangWatchdog) struct RetentionTests {
    static let config: JSONValue = ["requireGuardians": false, "pinIterations": 1000, "alertRetentionDays": 60, "maxRepeats": 0]

    static func rows(_ host: PluginTestHost, _ table: String, _ column: String, _ id: String) async throws -> Int64 {
        try await host.query("SELECT COUNT(*) AS n FROM \(table) WHERE \(column) = ?", [.text(id)]).first?["n"].integer ?? -1
    }

    /// A trip with a fix, a message and a photo, ended with the PIN before any deadline.
    static func quietTrip(_ host: PluginTestHost) async throws -> String {
        let trip = try #require(try await host.call("trip-start", ["expectedArrivalAt": "2026-03-02T09:00:00Z", "plan": ["WALKING"]])["id"]?.stringValue)
        _ = try await host.call("position-report", ["lat": 50.07, "lon": 14.42, "accuracy": 8, "battery": 70])
        _ = try await host.call("trip-message", ["text": "on my way"])
        _ = try await host.call("trip-photo-put", ["data": .string(Data(TripPhotoTests.png).base64EncodedString())])
        _ = try await host.call("trip-end", ["pin": .string(TravelFixture.pin)])
        return trip
    }

    @Test func aTripWithoutAnAlertIsGoneAfterThirtyDaysAndOneWithAnAlertStays() async throws {
        let host = try await TravelFixture.ada(config: Self.config)
        let quiet = try await Self.quietTrip(host)                                  // ended 08:00:00
        // A one-time check-in, answered with a position.
        let request = try #require(try await host.call("checkin-request", ["target": "ada"])["id"]?.stringValue)
        let slot = try #require(try await host.query("SELECT id FROM checkins WHERE request_id = ?", [.text(request)]).first?["id"].text)
        _ = try await host.call("checkin-confirm", ["checkinId": .string(slot), "lat": 50.07, "lon": 14.42])
        #expect(try await Self.rows(host, "checkin_answers", "id", slot) == 1)
        let address = TripPhotoTests.hex(SHA256.digest(TripPhotoTests.png))
        // A trip that goes silent: its guardians are alerted at 08:05:00; ended at 08:10:00.
        let alerted = try #require(try await host.call("trip-start", ["expectedArrivalAt": "2026-03-02T09:00:00Z"])["id"]?.stringValue)
        try await host.advanceClock(by: 600)
        #expect(try await host.call("trip-status")["alerts"]?.arrayValue?.map { $0["kind"] } == ["trip-silent"])
        _ = try await host.call("trip-end", ["pin": .string(TravelFixture.pin)])
        // An SOS made safe in time (no alert), at 08:10:03.
        _ = try await host.call("sos-touch-down")
        try await host.advanceClock(by: 3)
        _ = try await host.call("sos-touch-up")
        let sos = try #require(try await host.call("sos-enter-pin", ["pin": .string(TravelFixture.pin)])["sosId"]?.stringValue)
        #expect(try await Self.rows(host, "trip_activities", "trip_id", quiet) == 5)  // started, position, message, photo, ended
        #expect(try await Self.rows(host, "sos_positions", "sos_id", sos) > 0)

        // 30 days after the quiet trip ended, the hourly purge has not yet come round past it.
        try await TravelFixture.advance(host, to: Date("2026-04-01T08:00:00Z"))
        #expect(try await Self.rows(host, "trips", "id", quiet) == 1)
        try await TravelFixture.advance(host, to: Date("2026-04-01T09:00:00Z"))    // + the purge interval
        for (table, column) in [("trips", "id"), ("trip_activities", "trip_id"), ("trip_plan", "trip_id"), ("live_links", "trip_id")] {
            #expect(try await Self.rows(host, table, column, quiet) == 0, "\(table) of the quiet trip")
        }
        #expect(await refusal { try await host.call("trip-photo-get", ["address": .string(address)]) }?.field == "$.address")
        #expect(try await Self.rows(host, "sos", "id", sos) == 0)
        #expect(try await Self.rows(host, "sos_positions", "sos_id", sos) == 0)
        #expect(try await Self.rows(host, "checkin_requests", "id", request) == 0)
        #expect(try await Self.rows(host, "checkin_answers", "id", slot) == 0)
        #expect(try await Self.rows(host, "checkins", "request_id", request) == 0)
        // The trip that alerted stays, with its activities and its alert.
        #expect(try await Self.rows(host, "trips", "id", alerted) == 1)
        #expect(try await Self.rows(host, "trip_activities", "trip_id", alerted) == 2)
        #expect(try await Self.rows(host, "alerts", "subject_id", alerted) == 1)

        // Until its own retention (60 days here; 365 by default) has passed too.
        try await TravelFixture.advance(host, to: Date("2026-05-01T09:00:00Z"))
        #expect(try await Self.rows(host, "trips", "id", alerted) == 0)
        #expect(try await Self.rows(host, "alerts", "subject_id", alerted) == 0)
        #expect(try await Self.rows(host, "trip_activities", "trip_id", alerted) == 0)
        await host.stop()
    }

    @Test func theTravellerDeletesAFinishedTripNowWithThePIN() async throws {
        let host = try await TravelFixture.ada(config: Self.config)
        let trip = try await Self.quietTrip(host)
        let running = try #require(try await host.call("trip-start", ["expectedArrivalAt": "2026-03-02T09:00:00Z"])["id"]?.stringValue)
        let active = await refusal { try await host.call("trip-delete", ["tripId": .string(running), "pin": .string(TravelFixture.pin)]) }
        #expect(active?.code == "conflict" && active?.reason == "invalid_state")
        let wrong = await refusal { try await host.call("trip-delete", ["tripId": .string(trip), "pin": "0000"]) }
        #expect(wrong?.reason == "invalid_pin" && wrong?.field == "$.pin")
        #expect(try await Self.rows(host, "trip_activities", "trip_id", trip) == 5, "nothing deleted on a refusal")
        let deleted = try await host.call("trip-delete", ["tripId": .string(trip), "pin": .string(TravelFixture.pin)])
        #expect(deleted["deleted"]?.stringValue == trip && deleted["records"] == 8)  // 5 activities, 1 plan step, 1 link, the trip
        for (table, column) in [("trips", "id"), ("trip_activities", "trip_id"), ("trip_plan", "trip_id"), ("live_links", "trip_id")] {
            #expect(try await Self.rows(host, table, column, trip) == 0, "\(table)")
        }
        #expect(await refusal { try await host.call("trip-delete", ["tripId": .string(trip), "pin": .string(TravelFixture.pin)]) }?.code == "not_found")
        await host.stop()
    }

    /// A trip of more rows than one write of the purge deletes (`purgeBatch`) goes whole.
    @Test func aTripLargerThanOneBatchIsDeletedWhole() async throws {
        let host = try await TravelFixture.ada(config: ["requireGuardians": false, "pinIterations": 1000, "purgeBatch": 10, "retentionDays": 1])
        let trip = try #require(try await host.call("trip-start", ["expectedArrivalAt": "2026-03-02T09:00:00Z"])["id"]?.stringValue)
        for i in 0..<25 { _ = try await host.call("trip-message", ["text": .string("note \(i)")]) }
        _ = try await host.call("trip-end", ["pin": .string(TravelFixture.pin)])
        try await TravelFixture.advance(host, to: Date("2026-03-03T09:00:00Z"))
        #expect(try await Self.rows(host, "trips", "id", trip) == 0)
        #expect(try await Self.rows(host, "trip_activities", "trip_id", trip) == 0)
        await host.stop()
    }
}
