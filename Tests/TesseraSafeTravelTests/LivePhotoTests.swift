import Foundation
import Testing
import TesseraSDK
@testable import TesseraSafeTravel
import TesseraTesting

/// Trip photos on the live view (LivePhotos.swift): each reached through a token derived from a
/// working link of its own trip, and through nothing else.
@Suite("Safe travel's photos on the live view", .hangWatchdog)
struct LivePhotoTests {
    static func photo(_ host: PluginTestHost, _ token: String) async throws -> JSONValue {
        try await host.call("live-photo", ["token": .string(token)], as: LiveViewTests.link)
    }

    static func closed(_ host: PluginTestHost, _ token: String) async -> String? {
        do { _ = try await photo(host, token); return nil } catch let error as PluginError {
            return "\(error.code.rawValue): \(error.message)"
        } catch { return "\(error)" }
    }

    @Test func aPhotoIsServedThroughItsTripsLinkOnly() async throws {
        let host = try await TravelFixture.ada()
        let (_, token) = try await LiveViewTests.startTrip(host)
        _ = try await host.call("position-report", ["lat": 50.07, "lon": 14.42, "accuracy": 8, "battery": 61])
        _ = try await host.call("trip-photo-put", ["data": .string(Data(TripPhotoTests.png).base64EncodedString())])
        let view = try await LiveViewTests.view(host, token)
        let photoToken = try #require(view["photos"]?.arrayValue?.first?["photo"]?.stringValue)
        #expect(photoToken.wholeMatch(of: /[A-Za-z0-9_-]{32}/) != nil && photoToken != token)
        let address = TripPhotoTests.hex(SHA256.digest(TripPhotoTests.png))
        #expect(!view.serialized().contains(address), "the view names no file")

        let answer = try await Self.photo(host, photoToken)
        #expect(answer["mediaType"] == "image/png")
        #expect(answer["data"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map(Array.init) == TripPhotoTests.png, "byte for byte")

        // Not through the bearer API, not by the link's own token, not by a file's address.
        for role in [Principal.Role.user, .admin] {
            await #expect(throws: PluginError.self) { try await host.call("live-photo", ["token": .string(photoToken)], as: role) }
        }
        #expect(await Self.closed(host, token) == "not_found: \(Travel.noLiveView.message)")
        // A photo of this trip is not reached from another trip's link.
        _ = try await host.call("trip-end", ["pin": .string(TravelFixture.pin)])
        let (_, other) = try await LiveViewTests.startTrip(host)
        #expect(await Self.closed(host, Travel.photoToken(link: other, address: address)) != nil)
        #expect(await Self.closed(host, photoToken) == nil, "the first trip's link is in its hour of grace")
        // Revoked with its trip's links, the photo's token answers as an unknown one.
        let firstTrip = try #require(try await host.query("SELECT trip_id FROM live_links WHERE token = ?", [.text(token)]).first?["trip_id"].text)
        _ = try await host.call("live-link-revoke", ["tripId": .string(firstTrip)])
        #expect(await Self.closed(host, photoToken) == "not_found: \(Travel.noLiveView.message)")
        await host.stop()
    }
}
