import Foundation
import Glibc
import Synchronization

/// An HTTP proxy on loopback between devices and the hub that misbehaves on purpose, from a seed.
///
/// Each request, read whole, meets one fault drawn from the seeded generator:
/// - `pass`: forwarded, the answer relayed;
/// - `drop`: never forwarded; the device's connection is closed;
/// - `loseAnswer`: forwarded and answered by the hub, but the answer never reaches the device;
/// - `duplicate`: forwarded twice in a row, the second answer relayed;
/// - `replayLater`: forwarded and answered, and a copy kept to be sent again after a few later
///   requests — a stale duplicate arriving out of order, long after;
/// - `cut`: only the first half of the body reaches the hub before the connection is cut.
///
/// One request per connection (`Connection: close` both ways), which URLSession handles by opening
/// another. Blocking sockets on threads: the proxy is test equipment, not production code.
public final class FaultProxy: @unchecked Sendable {
    public enum Fault: CaseIterable { case pass, drop, loseAnswer, duplicate, replayLater, cut }

    public let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let state: Mutex<State>

    private struct State {
        var generator: SplitMix64
        var faulty = true
        var held: [[UInt8]] = []
        var counts: [String: Int] = [:]
        var holdMarker: String?
        var offline = false
        var unanswered: [String] = []
    }
    private let heldSignal = DispatchSemaphore(value: 0), releaseSignal = DispatchSemaphore(value: 0)

    /// Starts forwarding to `127.0.0.1:upstreamPort`, misbehaving as `seed` says.
    public init(upstreamPort: Int, seed: UInt64) throws {
        self.upstreamPort = upstreamPort
        state = Mutex(State(generator: SplitMix64(seed: seed)))
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw SpawnFailure("the proxy cannot listen: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// From now on every request passes (and nothing held is replayed): the network healed.
    public func heal() { state.withLock { $0.faulty = false; $0.held.removeAll() } }

    /// The device behind the proxy loses its network: from now on every request is dropped
    /// unforwarded (its connection closed), until ``goOnline()``.
    public func goOffline() { state.withLock { $0.offline = true } }

    /// The device's network is back: requests pass again (or meet the seeded faults, if not healed).
    public func goOnline() { state.withLock { $0.offline = false } }

    /// How many requests met each fault so far.
    public var counts: [String: Int] { state.withLock { $0.counts } }

    /// Requests that should have passed but got no answer, each with why (the hub refused the
    /// connection, closed it without an answer…), and requests the proxy could not read whole:
    /// what a test that failed on one says.
    public var unanswered: [String] { state.withLock { $0.unanswered } }

    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        release()
    }

    /// From now on no faults, except that the first request whose request line contains `marker`
    /// (e.g. `/push`) is forwarded to the hub and its answer held back: the device waits for an
    /// answer that never comes, with the hub having acted — the moment to `kill -9` it.
    /// ``waitUntilHeld(timeout:)`` returns when that happened.
    public func holdAnswer(to marker: String) {
        state.withLock { $0.faulty = false; $0.held.removeAll(); $0.holdMarker = marker }
    }

    /// Waits (on a semaphore, not the clock) until a request was held; false after `timeout` seconds.
    public func waitUntilHeld(timeout: Double) -> Bool { heldSignal.wait(timeout: .now() + timeout) == .success }

    /// Holds nothing after all: the request ``holdAnswer(to:)`` waited for did not come.
    public func cancelHold() { state.withLock { $0.holdMarker = nil } }

    /// Lets a held connection go (closed without an answer).
    public func release() { releaseSignal.signal() }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0, errno == EINTR || errno == ECONNABORTED { continue }
            guard client >= 0 else { return }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        guard let request = Self.readRequest(client) else {
            let reason = errno
            state.withLock { $0.unanswered.append("a request not read whole (the device closed, or errno \(reason))") }
            return
        }
        if holds(request) {
            _ = forward(request)
            heldSignal.signal()
            releaseSignal.wait()
            return
        }
        let (fault, replay) = state.withLock { state -> (Fault, [UInt8]?) in
            if state.offline {
                state.counts["offline", default: 0] += 1
                return (.drop, nil)
            }
            // Half the requests pass; the other half draw any of the six (pass included).
            var fault = Fault.pass
            if state.faulty, state.generator.next() % 12 >= 6 { fault = Fault.allCases[Int(state.generator.next() % 6)] }
            state.counts["\(fault)", default: 0] += 1
            if fault == .replayLater { state.held.append(request) }
            // Now and then a held request goes again, long after its first delivery.
            let replay = state.faulty && !state.held.isEmpty && state.generator.next() % 4 == 0 ? state.held.removeFirst() : nil
            return (fault, replay)
        }
        if let replay { _ = forward(replay) }
        switch fault {
        case .drop: return
        case .loseAnswer: _ = forward(request)
        case .duplicate: _ = forward(request); relay(forward(request), to: client)
        case .cut: _ = forward(Array(request.prefix(request.count - Self.bodyLength(request) / 2 - 1)))
        case .pass, .replayLater: pass(request, to: client)
        }
    }

    private static func requestLine(_ request: [UInt8]) -> String {
        String(decoding: request.prefix { $0 != 13 }, as: UTF8.self)
    }

    /// Whether `request` is the one to hold (only the first match is).
    private func holds(_ request: [UInt8]) -> Bool {
        let line = Self.requestLine(request)
        return state.withLock { state in
            guard let marker = state.holdMarker, line.contains(marker) else { return false }
            state.holdMarker = nil
            return true
        }
    }

    /// Sends `request` to the hub on a new connection and reads the whole answer (to EOF); nil
    /// when the hub could not be reached or said nothing.
    private func forward(_ request: [UInt8]) -> [UInt8]? { try? exchange(request).get() }

    /// Why the hub gave a request no answer.
    private struct NoAnswer: Error { let why: String }

    private func exchange(_ request: [UInt8]) -> Result<[UInt8], NoAnswer> {
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard upstream >= 0 else { return .failure(NoAnswer(why: "no socket: errno \(errno)")) }
        defer { close(upstream) }
        var address = Self.loopback(port: upstreamPort)
        var connected: Int32
        repeat {
            connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        } while connected != 0 && errno == EINTR
        guard connected == 0 else { return .failure(NoAnswer(why: "the hub refused the connection: errno \(errno)")) }
        guard Self.writeAll(upstream, request) else { return .failure(NoAnswer(why: "the request could not be sent: errno \(errno)")) }
        shutdown(upstream, Int32(SHUT_WR))
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = read(upstream, &buffer, buffer.count)
            if n < 0, errno == EINTR { continue }
            if n < 0 { return .failure(NoAnswer(why: "reading the answer failed after \(answer.count) bytes: errno \(errno)")) }
            if n == 0 { break }
            answer += buffer[0..<n]
        }
        return answer.isEmpty ? .failure(NoAnswer(why: "the hub closed the connection without an answer")) : .success(answer)
    }

    /// Forwards a request that is to pass and relays its answer; a request that got none is kept
    /// in ``unanswered`` with why (its device then sees the connection closed without an answer).
    private func pass(_ request: [UInt8], to client: Int32) {
        let line = Self.requestLine(request)
        switch exchange(request) {
        case .success(let answer):
            if !Self.writeAll(client, answer) { state.withLock { $0.unanswered.append("\(line): the answer could not be relayed: errno \(errno)") } }
        case .failure(let failure):
            state.withLock { $0.unanswered.append("\(line): \(failure.why)") }
        }
    }

    private func relay(_ answer: [UInt8]?, to client: Int32) {
        guard let answer else { return }
        _ = Self.writeAll(client, answer)
    }

    /// Reads one request: its head, with `Connection: close` put in, and its body.
    private static func readRequest(_ fd: Int32) -> [UInt8]? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil || bytes.count < headEnd! + contentLength(bytes[..<headEnd!]) {
            let n = read(fd, &buffer, buffer.count)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return nil }
            bytes += buffer[0..<n]
            if headEnd == nil, let found = bytes.firstRange(of: separator) { headEnd = found.upperBound }
        }
        let head = String(decoding: bytes[..<headEnd!], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty && !$0.lowercased().hasPrefix("connection:") }
        return Array((lines.joined(separator: "\r\n") + "\r\nConnection: close\r\n\r\n").utf8) + bytes[headEnd!...]
    }

    private static func contentLength(_ head: ArraySlice<UInt8>) -> Int {
        let text = String(decoding: head, as: UTF8.self).lowercased()
        guard let line = text.components(separatedBy: "\r\n").first(where: { $0.hasPrefix("content-length:") }) else { return 0 }
        return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
    }

    private static func bodyLength(_ request: [UInt8]) -> Int {
        guard let end = request.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound else { return 0 }
        return request.count - end
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }  // no SIGPIPE
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
