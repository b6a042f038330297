import Foundation
import Synchronization
import TesseraSystem
@_spi(TesseraHost) import TesseraSDK

/// One end of the host–child socket, carrying frames: a 4-byte big-endian length, then that many
/// bytes of UTF-8 JSON (docs/isolation.md, "The frame format"), each one ``PeerMessage``.
///
/// Sends may come from any thread (one lock keeps frames whole); each frame is serialised straight
/// into the bytes that go out, header and body in one `send(2)`. Receiving is done by one reader
/// thread (``PeerConnection``): it reads as much as the socket holds into a buffer kept between
/// calls and cuts frames from it, so a frame usually costs one `recv(2)`, and several frames that
/// arrived together cost one between them.
public final class FrameConnection: Sendable {
    /// The largest body accepted, either way: a bigger length means a broken or hostile peer.
    public static let maximumBodyBytes = 64 << 20

    public let fd: Int32
    private let writing = Mutex(())
    /// The receive timeout last set on the socket, in microseconds (0: none): ``readWaiting(atMost:)``.
    private let receiveTimeout = Atomic<Int64>(0)
    /// Bytes read and not yet cut into frames; only the reader thread touches it.
    private let reading = Mutex(ReadBuffer())

    public init(fd: Int32) { self.fd = fd }

    /// Writes one frame whole.
    public func send(_ body: JSONValue) throws {
        try sendFrame { body.appendSerialized(to: &$0) }
    }

    /// Writes one message whole: its envelope written around the payload (``PeerMessage``).
    public func send(_ message: PeerMessage) throws {
        try sendFrame { message.appendSerialized(to: &$0) }
    }

    private func sendFrame(_ writeBody: (inout [UInt8]) -> Void) throws {
        var frame: [UInt8] = [0, 0, 0, 0]
        frame.reserveCapacity(512)
        writeBody(&frame)
        let count = frame.count - 4
        guard count <= Self.maximumBodyBytes else { throw FrameError.tooLarge(count) }
        let n = UInt32(count)
        frame[0] = UInt8(n >> 24); frame[1] = UInt8((n >> 16) & 0xff); frame[2] = UInt8((n >> 8) & 0xff); frame[3] = UInt8(n & 0xff)
        try writing.withLock { _ in try Self.writeAll(fd, frame) }
    }

    /// Reads one message (``PeerMessage``); `nil` when the peer closed the socket between frames.
    public func receiveMessage() throws -> PeerMessage? {
        try reading.withLock { buffer in
            while true {
                if let body = try buffer.nextFrame() { return try PeerMessage(frame: body) }
                // Asleep in `ppoll`, not in `read(2)`: a thread asleep in `read` on a Unix stream
                // socket was woken each time the peer *read* from it (the kernel signalled write
                // space on the same wait queue), so it woke once for nothing on every call the
                // other side took in; `ppoll` wakes only for what it asked for. (Kernel 6.18 does
                // not wake it so: ``readWaiting(atMost:)``.)
                _ = waitUntilReadable()
                guard try buffer.fill(from: fd) else { return nil }
            }
        }
    }

    /// The next message already read, without reading: `nil` when no whole frame is buffered.
    public func bufferedMessage() throws -> PeerMessage? {
        try reading.withLock { buffer in
            guard let body = try buffer.nextFrame() else { return nil }
            return try PeerMessage(frame: body)
        }
    }

    /// One `recv(2)` of what the socket holds into the buffer (blocking if it holds nothing);
    /// `false` at the end of the stream. A stream that ends inside a frame throws.
    public func readAvailable() throws -> Bool {
        try reading.withLock { buffer in try buffer.fill(from: fd) }
    }

    /// What one read of a lane came to (``readIfAvailable()``, ``readWaiting(atMost:)``).
    public enum LaneRead {
        /// Bytes were read into the buffer.
        case read
        /// The peer closed the socket between frames.
        case ended
        /// Nothing came: at once (``readIfAvailable()``) or within the time (``readWaiting(atMost:)``).
        case nothing
    }

    /// One `recv(2)` of what the socket holds, without waiting (a caller polling its lane): one
    /// system call where asking `ppoll` first and then reading took two. A stream that ends inside
    /// a frame throws.
    public func readIfAvailable() throws -> LaneRead {
        try reading.withLock { buffer in try buffer.receive(from: fd, flags: Int32(MSG_DONTWAIT)) }
    }

    /// One `recv(2)` of what the socket holds, asleep in the read itself for at most `limit` (the
    /// socket's receive timeout, `SO_RCVTIMEO`, set when it differs from the last one set; the
    /// kernel rounds it up to whole ticks of its clock). A caller's brief wait on its lane
    /// (``PeerConnection``): one system call where `ppoll` and then `read` took two, and no
    /// high-resolution timer armed and cancelled per call; beside CPU burners the echo through the
    /// process tier took 24–25 µs this way against 38–43 µs in `ppoll` (docs/isolation.md, "Lanes";
    /// docs/benchmarks.md, eighteenth pass).
    ///
    /// The sleep is in `read`, which ``receiveMessage()`` avoids on the main socket for a kernel that
    /// woke a reader each time the peer read (`ppoll` wakes only for what it asked for). Kernel 6.18
    /// does not (one voluntary switch per round trip of a C anchor asleep in `read`, as asleep in
    /// `ppoll`); on a kernel that did, a lane's caller would wake once for nothing while the child
    /// takes its call in, which costs time, not correctness: it goes back to sleep in `read`.
    ///
    /// `limit` is at least 1 µs (a zero timeout would mean "for ever"). A stream that ends inside a
    /// frame throws.
    public func readWaiting(atMost limit: Duration) throws -> LaneRead {
        let microseconds = max(1, limit.nanoseconds / 1_000)
        if receiveTimeout.load(ordering: .relaxed) != microseconds {
            var timeout = timeval(tv_sec: Int(microseconds / 1_000_000), tv_usec: Int(microseconds % 1_000_000))
            guard setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
                throw FrameError.closed("setsockopt(SO_RCVTIMEO): " + String(cString: strerror(errno)))
            }
            receiveTimeout.store(microseconds, ordering: .relaxed)
        }
        return try reading.withLock { buffer in try buffer.receive(from: fd, flags: 0) }
    }

    /// Waits up to `nanoseconds` (`nil`: for as long as it takes) for the socket to have bytes or
    /// to end, in `ppoll(2)` (`poll`'s timeout is whole milliseconds, far longer than a call):
    /// `false` when the time ran out.
    public func waitUntilReadable(nanoseconds: Int64? = nil) -> Bool {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let n = SystemCall.retryingInterrupted { () -> Int32 in
            guard let nanoseconds else { return PPoll.call(&ready, 1, nil, nil) }
            var timeout = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
            return PPoll.call(&ready, 1, &timeout, nil)
        }
        return n != 0
    }

    /// Stops both directions: a reader blocked in `read(2)` sees the end, and so does the peer.
    public func shutDown() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                SystemCall.retryingInterrupted { Glibc.send(fd, raw.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            }
            if n < 0 { throw FrameError.closed(String(cString: strerror(errno))) }
            offset += n
        }
    }
}

/// The reader's buffer: `bytes[start..<end]` is what was read and not yet handed out as frames.
struct ReadBuffer {
    /// What one read asks for at least: a few frames of the usual size arrive in one read.
    static let readSize = 64 << 10

    private var bytes = [UInt8](repeating: 0, count: ReadBuffer.readSize)
    private var start = 0
    private var end = 0

    var isEmpty: Bool { start == end }

    /// The next whole frame's body, if the buffer holds one; a length past the limit throws.
    mutating func nextFrame() throws -> ArraySlice<UInt8>? {
        guard end - start >= 4 else { return nil }
        let length = Int(bytes[start]) << 24 | Int(bytes[start + 1]) << 16 | Int(bytes[start + 2]) << 8 | Int(bytes[start + 3])
        guard length <= FrameConnection.maximumBodyBytes else { throw FrameError.tooLarge(length) }
        guard end - start >= 4 + length else {
            makeRoom(for: 4 + length)
            return nil
        }
        let body = bytes[(start + 4)..<(start + 4 + length)]
        start += 4 + length
        if start == end { start = 0; end = 0 }
        return body
    }

    /// One `recv(2)` into the free space, waiting as the socket waits; `false` at the end of the
    /// stream (a stream that ends inside a frame throws).
    mutating func fill(from fd: Int32) throws -> Bool {
        switch try receive(from: fd, flags: 0) {
        case .read: return true
        case .ended: return false
        // Only a socket with a receive timeout (a lane's) comes back empty: as read(2) reported it.
        case .nothing: throw FrameError.closed(String(cString: strerror(EAGAIN)))
        }
    }

    /// One `recv(2)` into the free space with `flags`: ``FrameConnection/LaneRead/nothing`` when it
    /// would have blocked (`MSG_DONTWAIT`) or its receive timeout passed.
    mutating func receive(from fd: Int32, flags: Int32) throws -> FrameConnection.LaneRead {
        if bytes.count - end < Self.readSize / 4 { makeRoom(for: end - start + Self.readSize) }
        let n = bytes.withUnsafeMutableBytes { raw in
            SystemCall.retryingInterrupted { Glibc.recv(fd, raw.baseAddress! + end, raw.count - end, flags) }
        }
        if n > 0 { end += n; return .read }
        if n == 0 {
            if isEmpty { return .ended }
            throw FrameError.truncated
        }
        let error = errno
        if error == EAGAIN || error == EWOULDBLOCK { return .nothing }
        throw FrameError.closed(String(cString: strerror(error)))
    }

    /// Moves the unread bytes to the front and grows the buffer so `count` bytes fit from there.
    private mutating func makeRoom(for count: Int) {
        if start > 0 {
            let unread = end - start
            bytes.withUnsafeMutableBytes { raw in
                _ = memmove(raw.baseAddress!, raw.baseAddress! + start, unread)
            }
            start = 0
            end = unread
        }
        if bytes.count < count { bytes.append(contentsOf: repeatElement(0, count: count - bytes.count)) }
    }
}

/// `ppoll(2)`, looked up by name: Swift's Glibc module declares it only under _GNU_SOURCE.
enum PPoll {
    typealias Function = @convention(c) (UnsafeMutablePointer<pollfd>, nfds_t, UnsafePointer<timespec>?, UnsafeRawPointer?) -> Int32
    static let call: Function = unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "ppoll")!, to: Function.self)
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
