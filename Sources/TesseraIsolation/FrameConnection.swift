import Foundation
import Synchronization
@_spi(TesseraHost) import TesseraSDK

/// One end of the host–child socket, carrying frames: a 4-byte big-endian length, then that many
/// bytes of UTF-8 JSON (docs/isolation.md, "The frame format").
///
/// Sends may come from any thread (one lock keeps frames whole); receiving is done by one reader
/// thread (``PeerConnection``), blocking in `read(2)`.
public final class FrameConnection: Sendable {
    /// The largest body accepted, either way: a bigger length means a broken or hostile peer.
    public static let maximumBodyBytes = 64 << 20

    public let fd: Int32
    private let writing = Mutex(())

    public init(fd: Int32) { self.fd = fd }

    /// Writes one frame whole: the body is serialised straight into the frame's bytes, after room
    /// for the length, and header and body go out in one `send(2)`.
    public func send(_ body: JSONValue) throws {
        var frame: [UInt8] = [0, 0, 0, 0]
        frame.reserveCapacity(512)
        body.appendSerialized(to: &frame)
        let count = frame.count - 4
        guard count <= Self.maximumBodyBytes else { throw FrameError.tooLarge(count) }
        let n = UInt32(count)
        frame[0] = UInt8(n >> 24); frame[1] = UInt8((n >> 16) & 0xff); frame[2] = UInt8((n >> 8) & 0xff); frame[3] = UInt8(n & 0xff)
        try writing.withLock { _ in try Self.writeAll(fd, frame) }
    }

    /// Reads one frame; `nil` when the peer closed the socket between frames.
    public func receive() throws -> JSONValue? {
        var header = [UInt8](repeating: 0, count: 4)
        guard try Self.readAll(fd, &header, allowEOF: true) else { return nil }
        let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        guard length <= Self.maximumBodyBytes else { throw FrameError.tooLarge(length) }
        var body = [UInt8](repeating: 0, count: length)
        guard try Self.readAll(fd, &body, allowEOF: false) else { throw FrameError.truncated }
        do { return try JSONValue(parsing: body) } catch { throw FrameError.notJSON("\(error)") }
    }

    /// Stops both directions: a reader blocked in `read(2)` sees the end, and so does the peer.
    public func shutDown() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in Glibc.send(fd, raw.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FrameError.closed(String(cString: strerror(errno)))
            }
            offset += n
        }
    }

    /// Fills `buffer`; `false` at a clean end before its first byte (when `allowEOF`).
    private static func readAll(_ fd: Int32, _ buffer: inout [UInt8], allowEOF: Bool) throws -> Bool {
        var offset = 0
        while offset < buffer.count {
            let count = buffer.count
            let n = buffer.withUnsafeMutableBytes { raw in Glibc.read(fd, raw.baseAddress! + offset, count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FrameError.closed(String(cString: strerror(errno)))
            }
            if n == 0 {
                if offset == 0 && allowEOF { return false }
                throw FrameError.truncated
            }
            offset += n
        }
        return true
    }
}

/// A frame that could not be sent or read.
public enum FrameError: Error, CustomStringConvertible {
    case tooLarge(Int)
    case truncated
    case notJSON(String)
    case closed(String)

    public var description: String {
        switch self {
        case .tooLarge(let n): return "frame of \(n) bytes exceeds \(FrameConnection.maximumBodyBytes)"
        case .truncated: return "the peer closed the socket inside a frame"
        case .notJSON(let why): return "frame body is not JSON: \(why)"
        case .closed(let why): return "socket: \(why)"
        }
    }
}
