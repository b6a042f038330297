import Foundation
import Testing
import TesseraSDK
@testable import TesseraSafeTravel
import TesseraTesting

/// Trip photos through the files capability (TripPhotos.swift): stored by content address, named by
/// a PHOTO activity stamped with the newest fix, linked to it, and shown on the live view's track.
@Suite("Safe travel's trip photos", .hangWatchdog)
struct TripPhotoTests {
    /// A real 1×1 PNG.
    static let png = Array(Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!)

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func aPhotoIsStoredByItsHashLinkedToItsActivityAndShownOnTheTrack() async throws {
        let host = try await TravelFixture.ada()
        let status = try await host.call("trip-start", ["expectedArrivalAt": "2026-03-02T09:00:00Z"])
        let token = try #require(status["liveLink"]?["token"]?.stringValue)
        _ = try await host.call("position-report", ["lat": 50.07, "lon": 14.42, "accuracy": 8, "battery": 61])
        let added = try await host.call("trip-photo-put", ["data": .string(Data(Self.png).base64EncodedString()), "text": "the tram stop"])
        let address = Self.hex(SHA256.digest(Self.png))
        #expect(added["file"]?["address"]?.stringValue == address && added["file"]?["mediaType"] == "image/png")
        #expect(added["type"] == "PHOTO" && added["lat"] == 50.07 && added["battery"] == 61)
        let activity = try #require(added["activityId"]?.stringValue)
        let row = try await host.query("SELECT file_ref, message FROM trip_activities WHERE id = ?", [.text(activity)])
        #expect(row.first?["file_ref"].text == address && row.first?["message"].text == "the tram stop")
        #expect(try await host.call("trip-photo-get", ["address": .string(address)])["address"]?.stringValue == address)
        let view = try await host.call("live-view", ["token": .string(token)], as: LiveViewTests.link)
        #expect(view["photos"]?.arrayValue?.map { "\($0["lat"]?.doubleValue ?? 0) \($0["lon"]?.doubleValue ?? 0)" } == ["50.07 14.42"])
        // Linked to its row, the file outlives the collector's day of grace for unlinked files.
        _ = try await host.call("trip-end", ["pin": .string(TravelFixture.pin)])
        try await host.advanceClock(by: 26 * 3_600)
        #expect(try await host.call("trip-photo-get", ["address": .string(address)])["file"]?["size"] == .integer(Int64(Self.png.count)))
        await host.stop()
    }

    @Test func whatIsNotAPhotoIsRefusedAndNothingIsWritten() async throws {
        let host = try await TravelFixture.ada()
        _ = try await host.call("trip-start", ["expectedArrivalAt": "2026-03-02T09:00:00Z"])
        let before = try await TravelFixture.count(host, "trip_activities")
        let text = await refusal { try await host.call("trip-photo-put", ["data": .string(Data("just words, no photo".utf8).base64EncodedString())]) }
        #expect(text?.code == "unsupported_media_type")
        let malformed = await refusal { try await host.call("trip-photo-put", ["data": "not base64!"]) }
        #expect(malformed?.code == "invalid_input" && malformed?.field == "$.data")
        let stranger = await refusal { try await host.call("trip-photo-get", ["address": .string(String(repeating: "ab", count: 32))]) }
        #expect(stranger?.code == "not_found" && stranger?.field == "$.address")
        #expect(try await TravelFixture.count(host, "trip_activities") == before)
        _ = try await host.call("trip-end", ["pin": .string(TravelFixture.pin)])
        let noTrip = await refusal { try await host.call("trip-photo-put", ["data": .string(Data(Self.png).base64EncodedString())]) }
        #expect(noTrip?.reason == "no_active_trip")
        await host.stop()
    }
}
