import Foundation
import TesseraSDK

/// The hub's file routes (docs/hub.md, "Files"), from a device.
extension HubConnection {
    /// Whether the hub needs `address`'s bytes from this device's person (`held` false), and how
    /// many bytes of an earlier upload it kept.
    public func fileUploadState(_ address: String) async throws -> (held: Bool, offset: Int64) {
        let answer = try await send("GET", "/v1/hub/files/\(address)/upload")
        guard answer.status == 200, let json = try? JSONValue(parsing: answer.body) else { throw SyncClientError(answer) }
        return (json["held"]?.boolValue ?? false, json["offset"]?.integerValue ?? 0)
    }

    /// Sends bytes `offset…` of a file of `size` bytes; the bytes the hub now holds, and whether
    /// the file is whole (verified against its address) on the hub.
    public func uploadFilePiece(_ address: String, size: Int64, offset: Int64, bytes: [UInt8]) async throws -> (offset: Int64, complete: Bool) {
        let answer = try await send("PUT", "/v1/hub/files/\(address)?size=\(size)&offset=\(offset)", body: bytes,
                                    contentType: "application/octet-stream")
        guard answer.status == 200 || answer.status == 201, let json = try? JSONValue(parsing: answer.body) else { throw SyncClientError(answer) }
        return (json["offset"]?.integerValue ?? offset, json["complete"]?.boolValue ?? false)
    }

    /// Bytes `from…` (at most `count`) of a file a record of `plugin` refers to, and the file's
    /// whole size.
    public func downloadFilePiece(_ address: String, plugin: String, from: Int64, count: Int) async throws -> (bytes: [UInt8], size: Int64) {
        let answer = try await send("GET", "/v1/hub/files/\(address)?plugin=\(plugin)",
                                    headers: ["Range": "bytes=\(from)-\(from + Int64(count) - 1)"])
        switch answer.status {
        case 206:
            // Content-Range: bytes a-b/size
            guard let range = answer.headers["content-range"], let total = range.split(separator: "/").last.flatMap({ Int64($0) }),
                  range.hasPrefix("bytes \(from)-") else {
                throw SyncClientError(status: 206, code: "malformed_answer", message: "the hub's range answer does not start at byte \(from)")
            }
            return (answer.body, total)
        case 200 where from == 0:
            return (answer.body, Int64(answer.body.count))
        default:
            throw SyncClientError(answer)
        }
    }
}
