import Foundation
import Testing
@testable import TesseraSafeTravel
import TesseraTesting

/// The guardians' read-only live view (issue 21; LiveLinks.swift): the link minted at trip start
/// and carried by what the guardians are told, the view of the one trip it names, and the three
/// ways a link stops working — expired, revoked, never minted — which answer alike.
@Suite("Safe travel's live view", .hangWatchdog)
struct LiveViewTests {
    /// Whoever holds a link (the host's `Principal.Role.link`, spelled here as the manifest does).
    static let link = Principal.Role(rawValue: "link")

    static func view(_ host: PluginTestHost, _ token: String) async throws -> JSONValue {
        try await host.call("live-view", ["token": .string(token)], as: Self.link)
    }

    /// The code and message a link that does not open gets; `nil` when it opens.
    static func closed(_ host: PluginTestHost, _ token: String) async -> String? {
        do { _ = try await view(host, token); return nil } catch let error as PluginError {
            return "\(error.code.rawValue): \(error.message)"
        } catch { return "\(error)" }
    }

    static func startTrip(_ host: PluginTestHost) async throws -> (trip: String, token: String) {
        let status = try await host.call("trip-start", [
            "destination": ["name": "Home", "lat": 50.088, "lon": 14.42], "expectedArrivalAt": "2026-03-02T09:00:00Z",
            "route": [["lat": 50.07, "lon": 14.42], ["lat": 50.088, "lon": 14.42]],
        ])
        let trip = try #require(status["id"]?.stringValue)
        let token = try #require(status["liveLink"]?["token"]?.stringValue)
        return (trip, token)
    }

    @Test func aLinkIsMintedAtTripStartAndTheGuardiansAreToldIt() async throws {
        let host = try await TravelFixture.ada()
        let (trip, token) = try await Self.startTrip(host)
        #expect(token.wholeMatch(of: /[A-Za-z0-9_-]{32}/) != nil, "192 bits as base64url")
        let status = try await host.call("trip-status")
        #expect(status["liveLink"]?["path"]?.stringValue == "/ui/cz.tessera.safetravel/live.html#\(token)")
        #expect(status["liveLink"]?["expiresAt"] == "2026-03-03T08:00:00.000Z", "the 24 h cap while the trip runs")
        try await host.advanceClock(by: 1)
        let told = try #require(try host.deliveredNotifications().first { $0.key == "trip-started-\(trip)" })
        #expect(told.payload["liveView"]?["token"]?.stringValue == token)
        #expect(told.body.contains("Live view: /ui/cz.tessera.safetravel/live.html#\(token)"))
        // Two trips never share a token.
        _ = try await host.call("trip-end", ["pin": .string(TravelFixture.pin)])
        let (_, second) = try await Self.startTrip(host)
        #expect(second != token)
        await host.stop()
    }

    @Test func everyAlertToTheGuardiansCarriesTheLink() async throws {
        let host = try await TravelFixture.ada()
        let (trip, token) = try await Self.startTrip(host)
        _ = try await host.call("position-report", ["lat": 50.07, "lon": 14.42, "accuracy": 8, "battery": 40])
        try await host.advanceClock(by: 305 + 300)  // silent after 5 minutes, and its first repeat 5 minutes later
        let alerts = try host.deliveredNotifications().filter { $0.key.hasPrefix("alert-trip-\(trip)-silent-") }
        #expect(alerts.count == 2)
        for alert in alerts {
            #expect(alert.payload["liveView"]?["token"]?.stringValue == token, "\(alert.key)")
            #expect(alert.body.contains("#\(token)"), "\(alert.key)")
        }
        await host.stop()
    }

    @Test func theViewShowsTheTripUntilTheLinkExpiresAfterTheEnd() async throws {
        let host = try await TravelFixture.ada()
        let (trip, token) = try await Self.startTrip(host)
        for (lat, battery) in [(50.07, 70), (50.072, 69), (50.074, 68)] {
            _ = try await host.call("position-report", ["lat": .number(lat), "lon": 14.42, "accuracy": 8, "battery": .integer(Int64(battery))])
            try await host.advanceClock(by: 61)
        }
        let view = try await Self.view(host, token)
        #expect(view["traveller"] == "ada" && view["state"] == "ACTIVE")
        #expect(view["track"]?.arrayValue?.map { $0["lat"]?.doubleValue ?? 0 } == [50.07, 50.072, 50.074])
        #expect(view["last"]?["lat"] == 50.074 && view["battery"] == 68)
        #expect(view["destination"]?["name"] == "Home" && view["expectedArrivalAt"] == "2026-03-02T09:00:00.000Z")
        #expect(view["route"] == [[50.07, 14.42], [50.088, 14.42]])
        #expect(view["linkExpiresAt"] == "2026-03-03T08:00:00.000Z")

        // Ended at 08:03:03: the link works for the grace (1 h) and not a second longer.
        let ended = try await host.call("trip-end", ["pin": .string(TravelFixture.pin)])
        let end = try #require(Instant.date(ended["ended_at"]?.stringValue))
        try await TravelFixture.advance(host, to: end.addingTimeInterval(3_599))
        #expect(try await Self.view(host, token)["state"] == "ENDED")
        #expect(try await Self.view(host, token)["linkExpiresAt"]?.stringValue == Instant.text(end.addingTimeInterval(3_600)))
        try await host.advanceClock(by: 1)
        let expired = await Self.closed(host, token)
        let unknown = await Self.closed(host, String(repeating: "A", count: 32))
        #expect(expired == "not_found: no live view at this link: it may have expired or been revoked")
        #expect(expired == unknown, "expired and never minted answer alike")
        #expect(try await TravelFixture.count(host, "live_links") == 1)
        _ = trip
        await host.stop()
    }

    @Test func aLinkLeftRunningExpiresAtTheCapAndANewOneCanBeMinted() async throws {
        let host = try await TravelFixture.ada(config: ["requireGuardians": false, "pinIterations": 1000, "maxRepeats": 0])
        let (_, token) = try await Self.startTrip(host)
        try await host.advanceClock(by: 86_399)
        #expect(await Self.closed(host, token) == nil)
        try await host.advanceClock(by: 1)
        #expect(await Self.closed(host, token) != nil, "24 h after it was minted, the trip still active")
        #expect(try await host.call("trip-status")["liveLink"] == .null)
        let fresh = try await host.call("live-link")
        let newToken = try #require(fresh["token"]?.stringValue)
        #expect(try await Self.view(host, newToken)["state"] == "ACTIVE")
        #expect(fresh["expiresAt"] == "2026-03-04T08:00:00.000Z")
        await host.stop()
    }

    @Test func aRevokedLinkAnswersAsAnUnknownOne() async throws {
        let host = try await TravelFixture.ada()
        let (trip, token) = try await Self.startTrip(host)
        let second = try #require(try await host.call("live-link")["token"]?.stringValue)
        #expect(try await host.call("live-link-revoke") == ["tripId": .string(trip), "revoked": 2])
        #expect(await Self.closed(host, token) == "not_found: no live view at this link: it may have expired or been revoked")
        #expect(await Self.closed(host, second) == (await Self.closed(host, "0123456789abcdefghijklmnopqrstuv")))
        let third = try #require(try await host.call("live-link")["token"]?.stringValue)
        #expect(await Self.closed(host, third) == nil, "a new link after a revocation works")
        await host.stop()
    }

    @Test func aLinkShowsItsOwnTripAndNothingElse() async throws {
        let host = try await TravelFixture.ada()
        let (first, firstToken) = try await Self.startTrip(host)
        _ = try await host.call("position-report", ["lat": 49.1, "lon": 16.6, "accuracy": 8, "battery": 90])
        _ = try await host.call("trip-message", ["text": "secret words"])
        _ = try await host.call("trip-end", ["pin": .string(TravelFixture.pin)])
        try await host.advanceClock(by: 61)
        let (second, secondToken) = try await Self.startTrip(host)
        _ = try await host.call("position-report", ["lat": 50.07, "lon": 14.42, "accuracy": 8, "battery": 55])
        let view = try await Self.view(host, secondToken)
        let text = view.serialized()
        #expect(!text.contains("49.1") && !text.contains(first) && !text.contains(firstToken) && !text.contains("secret words"))
        #expect(!text.contains(secondToken), "the view does not repeat its own token either")
        #expect(!text.contains(second), "nor the trip's id")
        #expect(view["track"]?.arrayValue?.map { $0["lat"]?.doubleValue ?? 0 } == [50.07])
        // Only the fields the page needs: no PIN, no space, no account, no messages.
        #expect(Set(view.objectValue?.keys.map { $0 } ?? []) == ["kind", "traveller", "state", "startedAt", "endedAt", "arrivedAt", "expectedArrivalAt",
                                                                 "destination", "route", "last", "battery", "track", "photos", "alerts",
                                                                 "linkExpiresAt", "now"])
        await host.stop()
    }

    @Test func theViewIsOpenOnlyToLinksAndLinksOpenNothingElse() async throws {
        let host = try await TravelFixture.ada()
        let (_, token) = try await Self.startTrip(host)
        for role in [Principal.Role.user, .admin] {
            await #expect(throws: PluginError.self) { try await host.call("live-view", ["token": .string(token)], as: role) }
        }
        let refused = await refusal { try await host.call("trip-status", [:], as: Self.link) }
        #expect(refused?.code == "forbidden")
        let malformed = await refusal { try await host.call("live-view", ["token": "short"], as: Self.link) }
        #expect(malformed?.code == "invalid_input" && malformed?.field == "$.token")
        await host.stop()
    }
}
