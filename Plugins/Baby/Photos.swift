import Foundation
import TesseraSDK

/// Photos through the files capability (docs/files.md): a photo is stored first — streamed over
/// HTTP by `photo-upload`, or sent inline as base64 by `photo-put` (what the CLI can do) — and a
/// record then names its address and links it, so the host keeps it while a record refers to it.
extension Diary {
    struct InlinePhoto: Decodable, Sendable { var data: String }
    struct UploadedPhoto: Decodable, Sendable { var file: FileDescriptor }
    struct PhotoAddress: Decodable, Sendable { var address: String }

    func putPhoto(base64: String) async throws -> JSONValue {
        let files = try requireFiles()
        guard let bytes = Data(base64Encoded: base64, options: .ignoreUnknownCharacters), !bytes.isEmpty else {
            throw BabyError.invalid("data", "is not base64 of a photo")
        }
        return try await files.put(Array(bytes)).json
    }

    /// An upload: the host stored the body already (checked against the manifest's media types).
    func uploadedPhoto(_ file: FileDescriptor) -> JSONValue { file.json }

    /// A photo's address for a download, refused unless it is one of this module's images: an
    /// exported PDF goes only to the one who asked for it (`export-download`).
    func photoForDownload(_ address: String) async throws -> JSONValue {
        try await checkPhoto(address, field: "address")
        guard try await requireFiles().stat(address).mediaType.hasPrefix("image/") else {
            throw PluginError(.notFound, "address: no photo \(address) here", field: "$.address", reason: "unknown_photo")
        }
        return ["address": .string(address)]
    }

    func checkPhotos(_ addresses: [String]) async throws -> [String] {
        guard addresses.count <= 50 else { throw BabyError.invalid("photos", "at most 50 photos per record") }
        for (index, address) in addresses.enumerated() { try await checkPhoto(address, field: "photos[\(index)]") }
        return addresses
    }

    /// A photo named by a record must be one this module stored on this device.
    func checkPhoto(_ address: String, field: String) async throws {
        guard address.wholeMatch(of: /[0-9a-f]{64}/) != nil else { throw BabyError.invalid(field, "'\(address)' is not a photo address (64 hex digits)") }
        do {
            _ = try await requireFiles().stat(address)
        } catch let error as PluginError where error.code == .notFound {
            // A photo this device does not hold is a thing that does not exist (404), as an unknown
            // child is: the address itself is well formed.
            throw PluginError(.notFound, "\(field): no photo \(address) here: store it first (photo-put or photo-upload)", field: "$.\(field)", reason: "unknown_photo")
        }
    }

    private func requireFiles() throws -> any PluginFiles {
        guard let files else { throw BabyError.unprocessable("the operator has not granted files to this module", code: "photos_unavailable") }
        return files
    }
}
