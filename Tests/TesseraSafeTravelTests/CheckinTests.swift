import Foundation
import Testing
@testable import TesseraSafeTravel
import TesseraTesting
import TesseraTestFixtures

/// F5, §3.3: one-time and periodic check-ins, confirmation with position, a missed slot escalating
/// to the guardians, cancellation.
@Suite(.hangWatchdog) struct CheckinTests {
    @Test func aOneTimeCheckInConfirmedWithItsPositionTellsTheWatchers() async throws {
        let host = try await TravelFixture.ada()
        let request = try await host.call("checkin-request", ["target": "ada"])
        let slot = try #require(request["checkins"]?.arrayValue?.first?["id"]?.stringValue)
        #expect(request["type"] == "ONE_TIME" && request["state"] == "COMPLETED")
        #expect(try await host.call("checkins")["badge"] == 1)
        try await host.advanceClock(by: 120)
        #expect(try TravelFixture.delivered(host, "checkin-") == ["checkin-\(slot) @ 2026-03-02T08:00:00.000Z"])   // the prompt to the target
        let confirmed = try await host.call("checkin-confirm", ["checkinId": .string(slot), "lat": 50.08, "lon": 14.42, "accuracy": 6])
        #expect(confirmed["state"] == "CONFIRMED" && confirmed["confirmedAt"] == "2026-03-02T08:02:00.000Z")
        #expect(try await host.call("checkins")["badge"] == 0)
        try await host.advanceClock(by: 3600)
        let told = try #require(try host.deliveredNotifications().first { $0.key == "checkin-confirmed-\(slot)" })
        #expect(told.recipient.hasPrefix("space-others:") && told.payload["lat"] == 50.08)
        #expect(try TravelFixture.delivered(host, "alert-").isEmpty)
        #expect(await refusal { try await host.call("checkin-confirm", ["checkinId": .string(slot)]) }?.reason == "invalid_state")
        await host.stop()
    }

    @Test func periodicSlotsFireOnTimeAMissedOneEscalatesAndCancellingStopsTheRest() async throws {
        let host = try await TravelFixture.ada()
        let bad = await refusal { try await host.call("checkin-request-periodic", ["target": "ada", "startsAt": "2026-03-02T08:00:00Z",
                                                                                  "endsAt": "2026-03-02T09:00:00Z", "periodMinutes": 7]) }
        #expect(bad?.code == "invalid_input" && bad?.field == "$.periodMinutes")
        #expect(try await TravelFixture.count(host, "checkin_requests") == 0)
        let request = try await host.call("checkin-request-periodic", ["target": "ada", "startsAt": "2026-03-02T08:15:00Z",
                                                                       "endsAt": "2026-03-02T09:15:00Z", "periodMinutes": 15])
        let id = try #require(request["id"]?.stringValue)
        try await TravelFixture.advance(host, to: Date("2026-03-02T08:16:00Z"))
        _ = try await host.call("checkin-confirm", ["checkinId": .string("\(id):0")])
        // Slot 1 (08:30) goes unanswered: missed at 08:40 (min(period, 10 min)), the guardians told once.
        try await TravelFixture.advance(host, to: Date("2026-03-02T08:39:59Z"))
        #expect(try TravelFixture.delivered(host, "alert-").isEmpty)
        try await TravelFixture.advance(host, to: Date("2026-03-02T08:40:00Z"))
        #expect(try TravelFixture.delivered(host, "alert-") == ["alert-checkin-\(id):1-missed @ 2026-03-02T08:40:00.000Z"])
        // Confirmed late, it says so.
        #expect(try await host.call("checkin-confirm", ["checkinId": .string("\(id):1")])["state"] == "CONFIRMED_LATE")
        try await TravelFixture.advance(host, to: Date("2026-03-02T08:46:00Z"))
        let cancelled = try await host.call("checkin-cancel", ["requestId": .string(id)])
        #expect(cancelled["state"] == "CANCELLED")
        #expect(cancelled["checkins"]?.arrayValue?.map { $0["state"] } == ["CONFIRMED", "CONFIRMED_LATE", "CANCELLED"])
        try await TravelFixture.advance(host, to: Date("2026-03-02T10:00:00Z"))
        #expect(try await TravelFixture.count(host, "checkins") == 3)
        #expect(try TravelFixture.delivered(host, "alert-").count == 1)
        #expect(try TravelFixture.delivered(host, "checkin-\(id)").map { $0.components(separatedBy: " @ ")[1] } ==
                ["2026-03-02T08:15:00.000Z", "2026-03-02T08:30:00.000Z", "2026-03-02T08:45:00.000Z"])
        await host.stop()
    }

    @Test func theLastSlotAtExactlyEndsAtFiresAndCompletesTheRequest() async throws {
        let host = try await TravelFixture.ada()
        let id = try #require(try await host.call("checkin-request-periodic", ["target": "ada", "startsAt": "2026-03-02T08:00:00Z",
                                                                                "endsAt": "2026-03-02T08:10:00Z", "periodMinutes": 5])["id"]?.stringValue)
        for slot in 0...2 {
            try await TravelFixture.advance(host, to: Date("2026-03-02T08:00:00Z").addingTimeInterval(Double(slot) * 300 + 1))
            _ = try await host.call("checkin-confirm", ["checkinId": .string("\(id):\(slot)")])
        }
        try await TravelFixture.advance(host, to: Date("2026-03-02T09:00:00Z"))
        let request = try await host.call("checkins")["requestsForMe"]?.arrayValue?.first
        #expect(request?["state"] == "COMPLETED" && request?["checkins"]?.arrayValue?.count == 3)
        #expect(try TravelFixture.delivered(host, "alert-").isEmpty)
        await host.stop()
    }

    @Test func aMissedCheckInLeavesTheBadgeADayLaterButStaysInTheHistory() async throws {
        let host = try await TravelFixture.ada()
        let request = try await host.call("checkin-request", ["target": "ada"])
        let slot = try #require(request["checkins"]?.arrayValue?.first?["id"]?.stringValue)
        try await TravelFixture.advance(host, to: Date("2026-03-02T09:00:00Z"))  // long missed
        let missed = try await host.call("checkins")
        #expect(missed["badge"] == 1, "a fresh miss still asks for an answer")
        try await TravelFixture.advance(host, to: Date("2026-03-03T08:00:01Z"))
        let old = try await host.call("checkins")
        #expect(old["badge"] == 0 && old["unanswered"]?.arrayValue?.isEmpty == true)
        let history = old["requestsForMe"]?.arrayValue?.first?["checkins"]?.arrayValue ?? []
        #expect(history.map { $0["id"] } == [.string(slot)] && history.first?["state"] == "MISSED")
        await host.stop()
    }
}

@Suite struct DestinationHistoryTests {
    @Test func aPlaceTypedAgainIsOneEntryOfTheHistoryAndAFarOneOfTheSameNameAnother() async throws {
        let host = try await TravelFixture.ada()
        for (i, lat) in [50.0880, 50.0883, 50.0880].enumerated() {  // the second 33 m away: the same place
            _ = try await host.call("trip-start", ["destination": ["name": i == 1 ? "home" : "Home", "lat": .number(lat), "lon": 14.42]])
            _ = try await host.call("trip-end", ["pin": .string(TravelFixture.pin)])
            try await host.advanceClock(by: 60)
        }
        _ = try await host.call("trip-start", ["destination": ["name": "Home", "lat": 49.19, "lon": 16.61]])  // another city's "Home"
        let history = try await host.call("destinations")["destinations"]?.arrayValue ?? []
        #expect(history.count == 2, "\(history)")
        #expect(history.first?["lat"] == 49.19)  // the most recently used first
        #expect(try await TravelFixture.count(host, "destinations") == 2)
        await host.stop()
    }
}
