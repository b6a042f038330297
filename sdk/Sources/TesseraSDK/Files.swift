/// What the host knows of a stored file: its content address, size and media type.
///
/// The address is the SHA-256 of the bytes in lowercase hex (64 characters), so the same bytes
/// always have the same address and a plugin stores them once. Keep the address in a record (a
/// `TEXT` column) and ``PluginFiles/link(_:table:id:)`` the file to that record.
public struct FileDescriptor: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The SHA-256 of the bytes, lowercase hex.
    public var address: String
    /// The size in bytes.
    public var size: Int64
    /// The media type the host found by reading the content (`image/jpeg`, `application/pdf`…).
    public var mediaType: String

    /// Creates a descriptor.
    public init(address: String, size: Int64, mediaType: String) {
        self.address = address
        self.size = size
        self.mediaType = mediaType
    }

    /// `{"address", "size", "mediaType"}`, as operations return it.
    public var json: JSONValue {
        ["address": .string(address), "size": .integer(size), "mediaType": .string(mediaType)]
    }

    /// Reads `{"address", "size", "mediaType"}`; `nil` when a member is missing or of another type.
    public init?(json: JSONValue) {
        guard let address = json["address"]?.stringValue, let size = json["size"]?.integerValue,
              let mediaType = json["mediaType"]?.stringValue else { return nil }
        self.init(address: address, size: size, mediaType: mediaType)
    }

    /// `<address> (<size> bytes, <mediaType>)`.
    public var description: String { "\(address) (\(size) bytes, \(mediaType))" }
}

/// A record a file is linked to: the table and the record's id.
public struct FileLink: Sendable, Hashable, Codable {
    /// The table of the record.
    public var table: String
    /// The record's id.
    public var id: String

    /// Creates a link target.
    public init(table: String, id: String) {
        self.table = table
        self.id = id
    }
}

/// Writes one file in chunks, so that a large file is never held whole in memory. Get one from
/// ``PluginFiles/writer(mediaType:)``, ``write(_:)`` each chunk, then ``finish()``; or
/// ``cancel()`` to drop what was written. Nothing is visible until ``finish()`` returns.
public protocol PluginFileWriter: Sendable {
    /// Appends `chunk`. Throws as soon as the file passes the plugin's maximum file size or its
    /// quota (``PluginError/Code-swift.struct/payloadTooLarge``,
    /// ``PluginError/Code-swift.struct/quotaExceeded``); the writer is cancelled then.
    func write(_ chunk: [UInt8]) async throws
    /// Checks the content's media type, then makes the file durable and visible: when this returns,
    /// the file survives a crash of the host. A media type the manifest does not declare, or
    /// content that is not what the writer was told, is refused
    /// (``PluginError/Code-swift.struct/unsupportedMediaType``) and nothing is kept.
    func finish() async throws -> FileDescriptor
    /// Drops what was written. Calling it after ``finish()`` does nothing.
    func cancel() async
}

/// The files capability: photos and documents stored by the host, content-addressed (SDK 1.4).
///
/// A plugin puts bytes and gets a ``FileDescriptor`` (SHA-256 address, size, media type); it reads
/// them back by address, whole or a byte range at a time. A plugin sees only its own files: the
/// address of another plugin's file is `notFound`. The media types a plugin may store are those
/// its manifest declares (`permissions.files.mediaTypes`), checked by reading the content, never
/// by a name; the operator's grant sets the quota and the largest file.
///
/// A file put but linked to no record is kept for a grace period (a day), then the host's
/// collector removes it; so is a file whose last link is removed. Link a file to the record that
/// refers to it, in the same operation that writes the record:
///
/// ```swift
/// let files = try context.capability(.files)
/// let photo = try await files.put(bytes)                         // small: whole
/// let scan = try await files.put(chunks, mediaType: "application/pdf")   // large: an AsyncSequence of [UInt8]
/// try await storage.write { $0.put("posts", id: postID, ["photo": .text(photo.address)]) }
/// try await files.link(photo.address, table: "posts", id: postID)
/// let bytes = try await files.read(photo.address)
/// for try await chunk in files.chunks(scan.address) { … }       // 1 MiB at a time
/// ```
public protocol PluginFiles: Sendable {
    /// A writer for a new file. `mediaType`, when given, is what the caller says the content is
    /// (an HTTP `Content-Type`): the content must then be of that type.
    func writer(mediaType: String?) async throws -> any PluginFileWriter
    /// The descriptor of the file at `address`. Throws `notFound` if this plugin has no such file.
    func stat(_ address: String) async throws -> FileDescriptor
    /// The bytes of `range` (offsets from the start, the end excluded; clamped to the file), or the
    /// whole file for `nil`. Throws `notFound` if this plugin has no such file, `invalidInput` for
    /// a range that starts past the end.
    func read(_ address: String, range: Range<Int64>?) async throws -> [UInt8]
    /// Records that the record `id` of `table` refers to the file. A file with a link is never
    /// collected. Linking twice is linking once. Throws `notFound` if this plugin has no such file.
    func link(_ address: String, table: String, id: String) async throws
    /// Removes that link, if there is one. The file may be collected once it has none.
    func unlink(_ address: String, table: String, id: String) async throws
    /// The records linked to the file, sorted by table and id.
    func links(of address: String) async throws -> [FileLink]
}

extension PluginFiles {
    /// Stores `bytes` (a small file, already in memory).
    public func put(_ bytes: [UInt8], mediaType: String? = nil) async throws -> FileDescriptor {
        let writer = try await writer(mediaType: mediaType)
        do {
            try await writer.write(bytes)
            return try await writer.finish()
        } catch {
            await writer.cancel()
            throw error
        }
    }

    /// Stores the bytes of `chunks`, one chunk in memory at a time.
    public func put<Chunks: AsyncSequence>(_ chunks: Chunks, mediaType: String? = nil) async throws -> FileDescriptor
    where Chunks.Element == [UInt8] {
        let writer = try await writer(mediaType: mediaType)
        do {
            for try await chunk in chunks { try await writer.write(chunk) }
            return try await writer.finish()
        } catch {
            await writer.cancel()
            throw error
        }
    }

    /// The whole file. For a large one, prefer ``chunks(_:range:chunkSize:)``.
    public func read(_ address: String) async throws -> [UInt8] {
        try await read(address, range: nil)
    }

    /// The file's bytes (or those of `range`), `chunkSize` bytes at a time.
    public func chunks(_ address: String, range: Range<Int64>? = nil, chunkSize: Int = 1 << 20) -> AsyncThrowingStream<[UInt8], any Error> {
        let step = Int64(max(1, chunkSize))
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let size = try await stat(address).size
                    let wanted = range.map { $0.clamped(to: 0..<size) } ?? 0..<size
                    var offset = wanted.lowerBound
                    while offset < wanted.upperBound {
                        try Task.checkCancellation()
                        let end = min(offset + step, wanted.upperBound)
                        continuation.yield(try await read(address, range: offset..<end))
                        offset = end
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

extension CapabilityKey where Value == any PluginFiles {
    /// The plugin's own files: photos and documents, content-addressed.
    public static var files: CapabilityKey<any PluginFiles> { .init("files") }
}

extension PluginError.Code {
    /// The plugin's (or the person's) file quota would be exceeded (HTTP 507).
    public static let quotaExceeded = PluginError.Code(rawValue: "quota_exceeded")
    /// The file is larger than the plugin may store (HTTP 413).
    public static let payloadTooLarge = PluginError.Code(rawValue: "payload_too_large")
    /// The content's media type is not one the manifest declares, or not the one the caller said
    /// (HTTP 415).
    public static let unsupportedMediaType = PluginError.Code(rawValue: "unsupported_media_type")
}
