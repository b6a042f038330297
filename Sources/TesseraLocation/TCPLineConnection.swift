#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TesseraSystem

/// A TCP connection read line by line, with Glibc sockets and `poll`, so that a reader can stop
/// within one poll interval without closing the socket under another thread.
final class TCPLineConnection {
    /// Why a connection failed or ended.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    /// A line longer than this is dropped (gpsd's longest reports are a few KiB).
    static let maximumLine = 1 << 20

    /// Connects to `host:port` within `timeout` seconds.
    init(host: String, port: UInt16, timeout: TimeInterval) throws(Failure) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { throw Failure(description: "cannot resolve \(host): \(String(cString: gai_strerror(status)))") }
        defer { freeaddrinfo(list) }
        var lastError = "no address for \(host)"
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            if let fd = Self.connect(info.pointee, timeout: timeout, error: &lastError) {
                self.fd = fd
                return
            }
            candidate = info.pointee.ai_next
        }
        throw Failure(description: "cannot connect to \(host):\(port): \(lastError)")
    }

    deinit { close(fd) }

    /// A non-blocking connect bounded by `timeout`; the socket stays non-blocking.
    private static func connect(_ info: addrinfo, timeout: TimeInterval, error: inout String) -> Int32? {
        let fd = socket(info.ai_family, info.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), info.ai_protocol)
        guard fd >= 0 else { error = String(cString: strerror(errno)); return nil }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        if Glibc.connect(fd, info.ai_addr, info.ai_addrlen) != 0 && errno != EINPROGRESS {
            error = String(cString: strerror(errno)); close(fd); return nil
        }
        var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&pfd, 1, Int32(timeout * 1000)) == 1 else { error = "timed out"; close(fd); return nil }
        var soError: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
        guard soError == 0 else { error = String(cString: strerror(soError)); close(fd); return nil }
        return fd
    }

    /// Sends all of `text`.
    func send(_ text: String) throws(Failure) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { buffer in SystemCall.retryingInterrupted { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) } }
            if n < 0 {
                if errno == EAGAIN { waitFor(POLLOUT, milliseconds: 100); continue }
                throw Failure(description: "send failed: \(String(cString: strerror(errno)))")
            }
            bytes = bytes.dropFirst(n)
        }
    }

    /// The next complete line (without its newline), nil if none arrived within `milliseconds`.
    /// Throws when the peer closed the connection or it failed.
    func readLine(milliseconds: Int32) throws(Failure) -> [UInt8]? {
        if let line = takeLine() { return line }
        guard waitFor(POLLIN, milliseconds: milliseconds) else { return nil }
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let n = chunk.withUnsafeMutableBytes { buffer in SystemCall.retryingInterrupted { recv(fd, buffer.baseAddress, buffer.count, 0) } }
        if n == 0 { throw Failure(description: "the server closed the connection") }
        if n < 0 {
            if errno == EAGAIN { return nil }
            throw Failure(description: "receive failed: \(String(cString: strerror(errno)))")
        }
        buffer.append(contentsOf: chunk[0..<n])
        if buffer.count > Self.maximumLine, !buffer.contains(UInt8(ascii: "\n")) { buffer.removeAll() }
        return takeLine()
    }

    /// Removes and returns the first complete line in the buffer.
    private func takeLine() -> [UInt8]? {
        guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        var line = Array(buffer[..<newline])
        buffer.removeSubrange(...newline)
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return line
    }

    @discardableResult
    private func waitFor(_ event: Int32, milliseconds: Int32) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(event), revents: 0)
        return poll(&pfd, 1, milliseconds) > 0
    }
}
