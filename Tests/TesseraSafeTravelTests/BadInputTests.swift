import Foundation
import Testing
@testable import TesseraSafeTravel
import TesseraTesting
import TesseraTestFixtures

/// Bad input gets a clear error naming the field or rule, and nothing is written.
@Suite(.hangWatchdog) struct BadInputTests {
    /// Every synced table's row count, to show that a refusal wrote nothing.
    static func counts(_ host: PluginTestHost) async throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for table in Schema.synced + ["last_fix"] { counts[table] = try await TravelFixture.count(host, table) }
        return counts
    }

    @Test func anETAInThePastIsRefusedNamingTheFieldAndNoTripIsWritten() async throws {
        let host = try await TravelFixture.ada()
        let before = try await Self.counts(host)
        let refused = await refusal { try await host.call("trip-start", ["destination": ["name": "Home", "lat": 50.088, "lon": 14.42],
                                                                         "expectedArrivalAt": "2026-03-02T07:59:59Z"]) }
        #expect(refused?.code == "invalid_input" && refused?.field == "$.expectedArrivalAt" && refused?.reason == "eta_in_past")
        let malformed = await refusal { try await host.call("trip-start", ["expectedArrivalAt": "tonight"]) }
        #expect(malformed?.code == "invalid_input" && malformed?.field == "$.expectedArrivalAt")
        let farAway = await refusal { try await host.call("trip-start", ["destination": ["name": "Nowhere", "lat": 95, "lon": 14.42]]) }
        #expect(farAway?.code == "invalid_input" && farAway?.field == "$.destination.lat")
        #expect(try await Self.counts(host) == before)
        #expect(try await host.call("trip-status")["active"] == false)
        // And an ETA moved into the past on an active trip.
        _ = try await host.call("trip-start", ["expectedArrivalAt": "2026-03-02T08:30:00Z"])
        let after = try await Self.counts(host)
        #expect(await refusal { try await host.call("trip-update-eta", ["expectedArrivalAt": "2026-03-02T08:00:00Z"]) }?.reason == "eta_in_past")
        #expect(try await Self.counts(host) == after)
        await host.stop()
    }

    @Test func aFixWithImpossibleCoordinatesOrFromTheFutureIsRefusedAndNotStored() async throws {
        let host = try await TravelFixture.ada()
        _ = try await host.call("trip-start", [:])
        let before = try await Self.counts(host)
        let north = await refusal { try await host.call("position-report", ["lat": 90.5, "lon": 14.42]) }
        #expect(north?.code == "invalid_input" && north?.field == "$.lat")
        let east = await refusal { try await host.call("position-report", ["lat": 50, "lon": -181]) }
        #expect(east?.code == "invalid_input" && east?.field == "$.lon")
        let future = await refusal { try await host.call("position-report", ["lat": 50, "lon": 14.42, "at": "2026-03-02T08:05:00Z"]) }
        #expect(future?.code == "invalid_input" && future?.field == "$.at" && future?.reason == "fix_from_future")
        let battery = await refusal { try await host.call("position-report", ["lat": 50, "lon": 14.42, "battery": 140]) }
        #expect(battery?.field == "$.battery")
        let yearOld = await refusal { try await host.call("position-report", ["lat": 50, "lon": 14.42, "at": "2025-03-02T08:00:00Z"]) }
        #expect(yearOld?.field == "$.at" && yearOld?.reason == "fix_too_old", "issue 39: a position a year back")
        // The same fixes through the location feed are dropped by it, and counted.
        let report = await host.feedLocation([
            LocationFix(latitude: 91, longitude: 14.42, timestamp: host.now, deviceID: "ada/phone"),
            LocationFix(latitude: 50, longitude: 14.42, timestamp: host.now.addingTimeInterval(3600), deviceID: "ada/phone"),
        ])
        #expect(report.accepted == 0 && report.rejectedCount == 2)
        #expect(try await Self.counts(host) == before)
        // A fix a few seconds ahead (a phone's clock skew) is fine.
        _ = try await host.call("position-report", ["lat": 50, "lon": 14.42, "at": "2026-03-02T08:00:30Z"])
        #expect(try await TravelFixture.count(host, "last_fix") == 1)
        await host.stop()
    }

    @Test func changesToATripThatIsNotTheTravellersOwnAreRefused() async throws {
        let host = try await TravelFixture.ada()
        let trip = try #require(try await host.call("trip-start", ["expectedArrivalAt": "2026-03-02T08:30:00Z"])["id"]?.stringValue)
        _ = try await host.call("trip-end", ["pin": .string(TravelFixture.pin)])
        let before = try await Self.counts(host)
        #expect(await refusal { try await host.call("trip-message", ["tripId": .string(trip), "text": "hi"]) }?.reason == "invalid_state")
        #expect(await refusal { try await host.call("trip-update-eta", ["tripId": "no-such-trip", "expectedArrivalAt": "2026-03-02T09:00:00Z"]) }?.code == "not_found")
        #expect(await refusal { try await host.call("trip-end", ["pin": .string(TravelFixture.pin)]) }?.reason == "no_active_trip")
        // A wrong PIN ends nothing.
        _ = try await host.call("trip-start", [:])
        let wrong = await refusal { try await host.call("trip-end", ["pin": "0000"]) }
        #expect(wrong?.reason == "invalid_pin" && wrong?.field == "$.pin")
        #expect(try await host.call("trip-status")["active"] == true)
        _ = before
        await host.stop()
    }

    @Test func theGuardianPreconditionAndUnknownContactsAreNamed() async throws {
        let host = try await TravelFixture.ada(config: ["pinIterations": 1000])
        #expect(await refusal { try await host.call("trip-start", [:]) }?.reason == "no_guardians")
        #expect(await refusal { try await host.call("sos-touch-down") }?.reason == "no_guardians")
        #expect(await refusal { try await host.call("checkin-request", ["target": "bob"]) }?.reason == "not_a_contact")
        #expect(try await Self.counts(host).values.allSatisfy { $0 == 0 })
        // Without a hub, guardians cannot be asked: the error says why.
        #expect(await refusal { try await host.call("guardian-add", ["username": "bob"]) }?.code == "not_logged_in")
        await host.stop()
    }

    /// Issue 39's smaller defects: a name with a NUL, a periodic check-in ending before it starts.
    @Test func aNameWithAControlCharacterAndAnEndBeforeTheStartAreRefused() async throws {
        let host = try await TravelFixture.ada(config: ["pinIterations": 1000, "requireGuardians": false])
        let before = try await Self.counts(host)
        let nul = await refusal { try await host.call("trip-start", ["destination": ["name": "Home\u{0}", "lat": 50, "lon": 14.4]]) }
        #expect(nul?.code == "invalid_input" && nul?.field == "$.destination.name", "\(String(describing: nul))")
        let place = await refusal { try await host.call("place-add", ["name": "Work\nplace", "lat": 50, "lon": 14.4]) }
        #expect(place?.field == "$.name")
        let backwards = await refusal {
            try await host.call("checkin-request-periodic", ["target": "ada", "periodMinutes": 5, "startsAt": "2026-03-02T09:00:00Z",
                                                              "endsAt": "2026-03-02T08:30:00Z"])
        }
        #expect(backwards?.field == "$.endsAt" && backwards?.reason == "validation", "\(String(describing: backwards))")
        #expect(try await Self.counts(host) == before)
        await host.stop()
    }
}
