import Foundation
import TesseraSDK

/// The files capability in the process tier. A writer is a handle the host holds open (its real
/// writer, from the provider) until `finish` or `cancel`; chunks and reads travel in pieces of at
/// most ``BytesWire/pieceSize``, so no frame nears its limit whatever the file's size.
struct FilesProxy: PluginFiles {
    let peer: PeerConnection

    func writer(mediaType: String?) async throws -> any PluginFileWriter {
        let answer = try await peer.call(CapabilityMethod.filesWriterOpen, ["mediaType": mediaType.map(JSONValue.string) ?? .null])
        guard let handle = answer["writer"]?.integerValue else { throw WireFormatError("a writer handle", answer) }
        return FileWriterProxy(peer: peer, handle: handle)
    }

    func stat(_ address: String) async throws -> FileDescriptor {
        try FileDescriptor(wire: try await peer.call(CapabilityMethod.filesStat, .string(address)))
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
        try BytesWire.decode(try await peer.call(CapabilityMethod.filesRead, ["address": .string(address), "range": RangeWire.encode(range)]))
    }

    func link(_ address: String, table: String, id: String) async throws {
        _ = try await peer.call(CapabilityMethod.filesLink, ["address": .string(address), "table": .string(table), "id": .string(id)])
    }

    func unlink(_ address: String, table: String, id: String) async throws {
        _ = try await peer.call(CapabilityMethod.filesUnlink, ["address": .string(address), "table": .string(table), "id": .string(id)])
    }

    func links(of address: String) async throws -> [FileLink] {
        try (try await peer.call(CapabilityMethod.filesLinks, .string(address)).arrayValue ?? []).map(FileLink.init(wire:))
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
            _ = try await peer.call(CapabilityMethod.filesWriterWrite, ["writer": .integer(handle), "bytes": BytesWire.encode(Array(chunk[start..<end]))])
            start = end
        } while start < chunk.count
    }

    func finish() async throws -> FileDescriptor {
        try FileDescriptor(wire: try await peer.call(CapabilityMethod.filesWriterFinish, ["writer": .integer(handle)]))
    }

    /// Cancels the write: the host drops the partial bytes and frees the writer's place. A cancel
    /// that does not reach the host has nothing left to do here: the call fails only when the
    /// connection has ended, and then the host cancels every writer this child left open
    /// (`ProcessPlugin.cancelOpenWriters`), this one with them.
    func cancel() async {
        _ = try? await peer.call(CapabilityMethod.filesWriterCancel, ["writer": .integer(handle)])
    }
}
