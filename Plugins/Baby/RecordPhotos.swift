import Synchronization
import TesseraSDK

/// A record's photos as rows of `record_photos`, one address per row, so that the hub and every
/// member's device see each photo as a file reference (a synced cell holding exactly one 64-hex
/// address, docs/files.md "Through the hub") and its bytes travel like a child's photo. A row's id
/// is the record's id and the photo's position (`<record>-<n>`), so two devices that write the
/// same list write the same rows. Operations still answer `photos` as one list, in order.
extension Diary {
    /// The rows for `photos` of record `recordID`, written in the record's batch, and the rows of
    /// a longer previous list (`previousCount`) deleted.
    static func putPhotoRows(_ batch: inout WriteBatch, recordID: String, childID: String, photos: [String], previousCount: Int = 0) {
        for (position, address) in photos.enumerated() {
            batch.put("record_photos", id: photoRowID(recordID, position),
                      ["record_id": .text(recordID), "child_id": .text(childID), "address": .text(address), "position": .integer(Int64(position))])
        }
        for position in photos.count..<max(photos.count, previousCount) { batch.delete("record_photos", id: photoRowID(recordID, position)) }
    }

    static func photoRowID(_ recordID: String, _ position: Int) -> String { "\(recordID)-\(position)" }

    /// Links each photo to its row, so the files capability keeps it while the row exists (the
    /// collector drops a link whose row is gone). `previous` are the addresses the rows held.
    func linkPhotoRows(recordID: String, photos: [String], previous: [String] = []) async throws {
        guard let files else { return }
        for (position, address) in previous.enumerated() where position >= photos.count || photos[position] != address {
            try await files.unlink(address, table: "record_photos", id: Self.photoRowID(recordID, position))
        }
        for (position, address) in photos.enumerated() {
            try await files.link(address, table: "record_photos", id: Self.photoRowID(recordID, position))
        }
    }

    /// The photo addresses of each of `recordIDs`, in position order.
    func photoRows(of recordIDs: [String]) async throws -> [String: [String]] {
        var photos: [String: [String]] = [:]
        for start in stride(from: 0, to: recordIDs.count, by: 500) {
            let chunk = Array(recordIDs[start..<min(start + 500, recordIDs.count)])
            let rows = try await query("SELECT record_id, address FROM record_photos WHERE record_id IN (\(Self.marks(chunk.count))) ORDER BY record_id, position",
                                       chunk.map { .text($0) })
            for row in rows { photos[row["record_id"].text ?? "", default: []].append(row["address"].text ?? "") }
        }
        return photos
    }

    /// Records as callers see them, each with its photos from `record_photos`.
    func recordsJSON(_ rows: [Row]) async throws -> [JSONValue] {
        let photos = try await photoRows(of: rows.compactMap { $0["id"].text })
        return rows.map { Self.recordJSON($0, photos: photos[$0["id"].text ?? ""]) }
    }

    /// Moves the photo lists of the schema before `record_photos` (a JSON list in `records.photos`)
    /// into rows, once per generation, after the host stamps writes for sync (not in `start`, whose
    /// writes would not be pushed). Only this person's own records (or all, without sync): a
    /// guardian may not write someone else's rows, and reads fall back to the list meanwhile.
    func moveLegacyPhotoLists() async throws {
        guard legacyPhotoLists.claim() else { return }
        let person = try await me().person
        let rows = try await query("SELECT id, child_id, photos, created_by FROM records WHERE photos NOT IN ('', '[]')")
        for row in rows where !shares || row["created_by"].text == person {
            guard let id = row["id"].text, let childID = row["child_id"].text else { continue }
            let photos = Self.legacyPhotoList(row["photos"].text)
            try await write(in: childID) { batch in
                Self.putPhotoRows(&batch, recordID: id, childID: childID, photos: photos)
                batch.patch("records", id: id, ["photos": "[]"])
            }
            try await linkPhotoRows(recordID: id, photos: photos)
        }
    }

    static func legacyPhotoList(_ text: String?) -> [String] {
        (try? JSONValue(parsing: text ?? "[]"))?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}

/// Whether this generation has moved the old photo lists yet: the first operation claims it.
final class LegacyPhotoLists: Sendable {
    private let claimed = Mutex(false)

    func claim() -> Bool {
        claimed.withLock { done in
            defer { done = true }
            return !done
        }
    }
}
