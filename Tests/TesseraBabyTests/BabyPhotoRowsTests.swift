import Foundation
import Testing
@testable import TesseraBaby
import TesseraSDK
import TesseraStorage
import TesseraTesting

/// A record's photos are rows of `record_photos` (one address a row, in order), written with the
/// record, and the old schema's JSON lists move into rows.
@Suite struct BabyPhotoRowsTests {
    @Test func aPostsPhotosAreRowsInOrderWrittenChangedAndDeletedWithIt() async throws {
        let (host, child) = try await BabyFixture.withChild()
        var addresses: [String] = []
        for png in [BabyFixture.pngBase64, BabyFixture.secondPNGBase64] {
            addresses.append(try #require(try await host.call("photo-put", ["data": .string(png)])["address"]?.stringValue))
        }
        let post = try await host.call("post-add", ["childId": .string(child), "text": "U babičky", "date": "2026-02-28",
                                                    "photos": .array(addresses.map { .string($0) })])
        let id = try #require(post["id"]?.stringValue)
        #expect(post["photos"] == .array(addresses.map { .string($0) }))
        let rows = try await host.query("SELECT id, address, position, child_id FROM record_photos WHERE record_id = ? ORDER BY position", [.text(id)])
        #expect(rows.map { $0["address"].text } == addresses)
        #expect(rows.map { $0["id"].text } == ["\(id)-0", "\(id)-1"])
        #expect(rows.allSatisfy { $0["child_id"].text == child })
        #expect(try await host.query("SELECT photos FROM records WHERE id = ?", [.text(id)]).first?["photos"].text == "[]", "no list in the record")

        // Fewer photos: the second row goes; the answer's shape is as before.
        let changed = try await host.call("record-update", ["id": .string(id), "photos": [.string(addresses[1])]])
        #expect(changed["photos"] == [.string(addresses[1])])
        #expect(try await BabyFixture.count(host, "record_photos") == 1)
        #expect(try await host.call("timeline")["items"]?[0]?["photos"] == [.string(addresses[1])])
        _ = try await host.call("record-delete", ["id": .string(id)])
        #expect(try await BabyFixture.count(host, "record_photos") == 0)
    }

    /// A database made by the old schema (version 1, the list as JSON in `records.photos`),
    /// brought to version 2: the lists become rows in order, the record's column empties, and the
    /// record reads as before.
    @Test func theOldSchemasPhotoListsMoveIntoRows() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("baby-legacy-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage = try SQLitePluginStorage(pluginID: "cz.tessera.baby", path: directory + "/storage.sqlite", now: { Date() })
        try storage.migrate(Array(BabySchema.migrations.prefix(1)))
        let photos = [String(repeating: "a", count: 64), String(repeating: "b", count: 64)]
        try await storage.write { batch in
            batch.put("children", id: "ema", ["name": "Ema", "birth_date": "2025-06-15", "created_by": "me"])
            batch.put("records", id: "post", ["child_id": "ema", "type": "post", "occurred_at": "2026-02-28", "note": "U babičky",
                                              "photos": .text(#"["\#(photos[0])","\#(photos[1])"]"#), "created_by": "me"])
            batch.put("records", id: "weight", ["child_id": "ema", "type": "measurement", "kind": "weight", "value": .real(8.2),
                                                "occurred_at": "2026-03-01", "created_by": "me"])
        }
        try storage.migrate(BabySchema.migrations)
        let diary = Diary(storage: storage, clock: FixedClock(), notifications: nil, files: nil, sync: nil, config: BabyConfig([:]))
        #expect(try await diary.record("post")["photos"] == .array(photos.map { .string($0) }), "read from the list before the move")

        try await diary.moveLegacyPhotoLists()
        let rows = try await storage.query("SELECT id, record_id, address, position FROM record_photos ORDER BY position", [])
        #expect(rows.map { $0["address"].text } == photos)
        #expect(rows.map { $0["id"].text } == ["post-0", "post-1"])
        #expect(try await storage.query("SELECT photos FROM records WHERE id = 'post'", []).first?["photos"].text == "[]")
        #expect(try await diary.record("post")["photos"] == .array(photos.map { .string($0) }), "the same answer from the rows")
        #expect(try await diary.record("weight")["photos"] == [])
        try await diary.moveLegacyPhotoLists()
        #expect(try await storage.query("SELECT COUNT(*) AS n FROM record_photos", []).first?["n"].integer == 2, "moved once")
    }
}

/// A clock that stays at 2026-03-02T08:00Z, for a diary outside a host.
private struct FixedClock: HostClock {
    func now() -> Date { Date(timeIntervalSince1970: 1_772_438_400) }
    func sleep(until deadline: Date) async throws {}
    func schedule(_ timer: TimerRequest) async throws {}
    func cancelTimer(key: String) async throws {}
    func pendingTimers() async throws -> [TimerRequest] { [] }
}
