import Foundation
import TesseraSDK

/// `files`: the plugin's files, their bytes kept by the host (quota, media types and links checked
/// there). A writer is a handle the host holds open until `finish` or `cancel`; bytes travel in
/// pieces of at most ``BytesWire/pieceSize``.
public enum FilesMethods {
    static let descriptor = WireSchema.value("FileDescriptor", required: ["address", "size", "mediaType"])
    static let writer = WireSchema.object(["writer": WireSchema.integer], required: ["writer"])
    static let linkToRow = WireSchema.object(["address": WireSchema.string, "table": WireSchema.string, "id": WireSchema.string],
                                        required: ["address", "table", "id"])

    public static let writerOpen = CapabilityMethodSpec(
        "files.writer.open", capability: "files", "Opens a writer for a new file of a media type; answers its handle.",
        parameters: WireSchema.object(["mediaType": WireSchema.nullable(WireSchema.string)], required: []), result: writer)
    public static let writerWrite = CapabilityMethodSpec(
        "files.writer.write", capability: "files", "Appends a piece of bytes to an open writer.",
        parameters: WireSchema.object(["writer": WireSchema.integer, "bytes": WireSchema.bytes], required: ["writer", "bytes"]),
        result: WireSchema.null)
    public static let writerFinish = CapabilityMethodSpec(
        "files.writer.finish", capability: "files", "Finishes a writer: the file is stored and described.",
        parameters: writer, result: descriptor)
    public static let writerCancel = CapabilityMethodSpec(
        "files.writer.cancel", capability: "files", "Cancels a writer: its bytes are dropped (a writer already gone is no error).",
        parameters: writer, result: WireSchema.null)
    public static let stat = CapabilityMethodSpec(
        "files.stat", capability: "files", "Describes the file at an address.", parameters: WireSchema.string, result: descriptor)
    public static let read = CapabilityMethodSpec(
        "files.read", capability: "files", "Reads a file's bytes, or a range [lower, upper) of them.",
        parameters: WireSchema.object(["address": WireSchema.string, "range": WireSchema.nullable(WireSchema.array(WireSchema.integer))],
                                      required: ["address"]),
        result: WireSchema.bytes)
    public static let link = CapabilityMethodSpec(
        "files.link", capability: "files", "Links a file to a row of the plugin's database, which keeps it.",
        parameters: linkToRow, result: WireSchema.null)
    public static let unlink = CapabilityMethodSpec(
        "files.unlink", capability: "files", "Removes a file's link to a row.", parameters: linkToRow, result: WireSchema.null)
    public static let links = CapabilityMethodSpec(
        "files.links", capability: "files", "The rows a file is linked to.", parameters: WireSchema.string,
        result: WireSchema.array(WireSchema.object(["table": WireSchema.string, "id": WireSchema.string], required: ["table", "id"], of: "FileLink")))

    public static let all = [writerOpen, writerWrite, writerFinish, writerCancel, stat, read, link, unlink, links]
}

/// The files capability in the process tier. A writer is a handle the host holds open (its real
/// writer, from the provider) until `finish` or `cancel`; chunks and reads travel in pieces of at
/// most ``BytesWire/pieceSize``, so no frame nears its limit whatever the file's size.
struct FilesProxy: PluginFiles {
    let peer: PeerConnection

    func writer(mediaType: String?) async throws -> any PluginFileWriter {
        let answer = try await peer.call(FilesMethods.writerOpen, ["mediaType": mediaType.map(JSONValue.string) ?? .null])
        guard let handle = answer["writer"]?.integerValue else { throw WireFormatError("a writer handle", answer) }
        return FileWriterProxy(peer: peer, handle: handle)
    }

    func stat(_ address: String) async throws -> FileDescriptor {
        try FileDescriptor(wire: try await peer.call(FilesMethods.stat, .string(address)))
    }

    func read(_ address: String, range: Range<Int64>?) async throws -> [UInt8] {
        let wanted: Range<Int64>
        if let range { wanted = range } else { wanted = 0..<(try await stat(address).size) }
        guard !wanted.isEmpty else { return try await readPiece(address, wanted) }
        var bytes: [UInt8] = []
        var offset = wanted.lowerBound
        while offset < wanted.upperBound {
            let end = min(offset + Int64(BytesWire.pieceSize), wanted.upperBound)
            let piece = try await readPiece(address, offset..<end)
            bytes += piece
            // A file shorter than the range asked for ends the read, as in the host.
            if piece.count < Int(end - offset) { break }
            offset = end
        }
        return bytes
    }

    private func readPiece(_ address: String, _ range: Range<Int64>) async throws -> [UInt8] {
        try BytesWire.decode(try await peer.call(FilesMethods.read, ["address": .string(address), "range": RangeWire.encode(range)]))
    }

    func link(_ address: String, table: String, id: String) async throws {
        _ = try await peer.call(FilesMethods.link, ["address": .string(address), "table": .string(table), "id": .string(id)])
    }

    func unlink(_ address: String, table: String, id: String) async throws {
        _ = try await peer.call(FilesMethods.unlink, ["address": .string(address), "table": .string(table), "id": .string(id)])
    }

    func links(of address: String) async throws -> [FileLink] {
        try (try await peer.call(FilesMethods.links, .string(address)).arrayValue ?? []).map(FileLink.init(wire:))
    }
}

/// One open writer, held by the host under `handle`.
struct FileWriterProxy: PluginFileWriter {
    let peer: PeerConnection
    let handle: Int64

    func write(_ chunk: [UInt8]) async throws {
        var start = 0
        repeat {
            let end = min(start + BytesWire.pieceSize, chunk.count)
            _ = try await peer.call(FilesMethods.writerWrite, ["writer": .integer(handle), "bytes": BytesWire.encode(Array(chunk[start..<end]))])
            start = end
        } while start < chunk.count
    }

    func finish() async throws -> FileDescriptor {
        try FileDescriptor(wire: try await peer.call(FilesMethods.writerFinish, ["writer": .integer(handle)]))
    }

    /// Cancels the write: the host drops the partial bytes and frees the writer's place. A cancel
    /// that does not reach the host has nothing left to do here: the call fails only when the
    /// connection has ended, and then the host cancels every writer this child left open
    /// (`FileWriterHandles.cancelAll`), this one with them.
    func cancel() async {
        _ = try? await peer.call(FilesMethods.writerCancel, ["writer": .integer(handle)])
    }
}
