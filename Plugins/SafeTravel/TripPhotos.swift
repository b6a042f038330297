import Foundation
import TesseraSDK

/// Trip photos (F7.3) through the files capability (docs/files.md), as the baby diary keeps its
/// photos: the bytes are stored first — streamed over HTTP by `trip-photo` (the request body; the
/// host sniffs the type against the manifest's `mediaTypes` before the module sees it) or sent
/// inline as base64 by `trip-photo-put` (what the CLI can do) — then a PHOTO activity stamped with
/// the newest fix and battery names the file's address in `file_ref` and is linked to it. The
/// address (64 hex digits in a synced cell) is how the bytes follow the record through the hub: a
/// guardian's `trip-photo-get` reads the file, which the host fetches from the hub on first read.
extension Travel {
    struct UploadedPhoto: Decodable, Sendable { var file: FileDescriptor; var text: String?; var tripId: String? }
    struct InlinePhoto: Decodable, Sendable { var data: String; var text: String?; var tripId: String? }
    struct PhotoAddress: Decodable, Sendable { var address: String }

    /// `trip-photo`: the host stored the body already.
    func addUploadedPhoto(_ input: UploadedPhoto) async throws -> JSONValue {
        try await addPhoto(input.file, text: input.text, tripID: input.tripId)
    }

    /// `trip-photo-put`: the photo as base64 in the JSON input.
    func addInlinePhoto(_ input: InlinePhoto) async throws -> JSONValue {
        let files = try requireFiles()
        // The trip is checked before anything is stored: a refusal keeps nothing.
        _ = try await ownActiveTrip(input.tripId)
        guard let bytes = Data(base64Encoded: input.data, options: .ignoreUnknownCharacters), !bytes.isEmpty else {
            throw PluginError.invalid("not base64 of a photo", field: "$.data")
        }
        return try await addPhoto(try await files.put(Array(bytes)), text: input.text, tripID: input.tripId)
    }

    /// The PHOTO activity naming the file, and the link that keeps the file while the row exists.
    private func addPhoto(_ file: FileDescriptor, text: String?, tripID: String?) async throws -> JSONValue {
        let files = try requireFiles()
        guard file.mediaType.hasPrefix("image/") else {
            throw PluginError.invalid("a trip photo is an image, not \(file.mediaType)", field: "$.file")
        }
        var answer = try await addActivity(tripID, type: "PHOTO", values: ["message": .text(text ?? ""), "file_ref": .text(file.address)])
        if let activity = answer["activityId"]?.stringValue { try await files.link(file.address, table: "trip_activities", id: activity) }
        if case .object(var members) = answer { members["file"] = file.json; answer = .object(members) }
        return answer
    }

    /// `trip-photo-get` (a download): the address of a photo some trip of this host's records names —
    /// the traveller's own, or one a guardian holds by sync. Reading it (`stat`) brings the bytes from
    /// the hub when they are not here yet.
    func photoForDownload(_ input: PhotoAddress) async throws -> JSONValue {
        let files = try requireFiles()
        guard try await row("SELECT id FROM trip_activities WHERE type = 'PHOTO' AND file_ref = ?", [.text(input.address)]) != nil else {
            throw PluginError.missing("no trip photo \(input.address)", field: "$.address")
        }
        let file = try await files.stat(input.address)
        return ["address": .string(file.address), "file": file.json]
    }

    private func requireFiles() throws -> any PluginFiles {
        guard let files else { throw PluginError(.notGranted, "the operator has not granted files to this module: no trip photos") }
        return files
    }
}
