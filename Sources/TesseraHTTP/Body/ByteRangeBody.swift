import Hummingbird
import TesseraSystem

extension ResponseBody {
    /// How much of a file one read takes: the connection takes it before the next read.
    static let fileChunkSize = 256 * 1024

    /// The bytes `first…last` of a file, read a chunk at a time as the connection takes them:
    /// a stored file's (``FileRoutes``) or a hub blob's (``HubFileRoutes``).
    ///
    /// The body is written after the responder has returned, on the connection's task, which runs
    /// on the edge's own threads; the reads block their thread, so they run on the shared pool as
    /// the handler did (``onSharedPool``).
    static func fileBytes(from first: Int64, through last: Int64,
                          read: @escaping @Sendable (_ offset: Int64, _ count: Int) throws -> [UInt8]) -> ResponseBody {
        ResponseBody(contentLength: Int(max(0, last - first + 1))) { writer in
            try await onSharedPool {
                var offset = first
                while offset <= last {
                    let bytes = try read(offset, Int(min(Int64(fileChunkSize), last - offset + 1)))
                    try await writer.write(ByteBuffer(bytes: bytes))
                    offset += Int64(bytes.count)
                }
                try await writer.finish(nil)
            }
        }
    }
}
