import Foundation
import Glibc
import TesseraHubFixtures

/// A TCP proxy on a loopback port in front of a real server, which can cut the connection in the
/// middle of an answer: after ``cut(afterAnswerBytes:)`` it forwards that many more bytes from
/// the server, then closes both sides, as a network that drops would. It keeps the text of the
/// requests that passed, to show what a client asked for after the cut.
final class CuttingProxy: @unchecked Sendable {
    let port: Int
    private let target: Int
    private let listener: Int32
    private let lock = NSLock()
    private var budget: Int?
    private var requestText = ""

    init(target: Int) throws {
        self.target = target
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(fd, 16) == 0 else { throw Failure("the proxy cannot listen: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    /// Cuts the connection once the server has sent `bytes` more bytes through the proxy.
    func cut(afterAnswerBytes bytes: Int) { lock.withLock { budget = bytes } }

    /// The requests' text (heads and bodies) that passed so far.
    var requests: String { lock.withLock { requestText } }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            Thread { [self] in serve(client) }.start()
        }
    }

    private func serve(_ client: Int32) {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(target).bigEndian
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else {
            close(client)
            close(upstream)
            return
        }
        Thread { [self] in
            pump(from: client, to: upstream) { bytes in
                lock.withLock { requestText += String(decoding: bytes, as: UTF8.self) }
                return bytes.count
            }
        }.start()
        pump(from: upstream, to: client) { bytes in
            lock.withLock {
                guard let left = budget else { return bytes.count }
                if bytes.count < left {
                    budget = left - bytes.count
                    return bytes.count
                }
                budget = nil
                return -left - 1  // send what is left of the budget, then cut
            }
        }
        shutdown(client, Int32(SHUT_RDWR))
        shutdown(upstream, Int32(SHUT_RDWR))
        close(client)
        close(upstream)
    }

    /// Copies until either side closes. `allow` says how many bytes of each read go on; a
    /// negative answer `-(n + 1)` sends `n` and then stops.
    private func pump(from source: Int32, to sink: Int32, allow: ([UInt8]) -> Int) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress!, $0.count, 0) }
            guard n > 0 else {
                shutdown(sink, Int32(SHUT_WR))
                return
            }
            let chunk = Array(buffer[..<n])
            let allowed = allow(chunk)
            let count = allowed >= 0 ? allowed : -allowed - 1
            var sent = 0
            while sent < count {
                let m = chunk.withUnsafeBytes { send(sink, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                guard m > 0 else { return }
                sent += m
            }
            if allowed < 0 {
                shutdown(sink, Int32(SHUT_RDWR))
                shutdown(source, Int32(SHUT_RDWR))
                return
            }
        }
    }
}
