import Foundation
import Glibc
import Synchronization

/// A minimal HTTP/1.1 server on 127.0.0.1 for tests that need a real peer (webhook receivers):
/// records each request and answers with the status the test chooses. One thread per connection;
/// `Connection: close` after every answer.
public final class LoopbackHTTPServer: Sendable {
    /// A request as received.
    public struct Request: Sendable {
        public let method: String
        public let path: String
        /// Header names lowercased.
        public let headers: [String: String]
        public let body: String
    }

    /// How to answer.
    public enum Behaviour: Sendable {
        /// Answer every request with this status.
        case status(Int)
        /// Answer the first requests with these statuses in turn, then 200.
        case sequence([Int])
        /// Read the request and never answer (a peer that hangs).
        case hang
    }

    public let port: Int
    private let listener: Int32
    private let state: Mutex<(requests: [Request], behaviour: Behaviour, answered: Int)>
    private let arrivals = DispatchSemaphore(value: 0)

    public init(_ behaviour: Behaviour = .status(200)) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        state = Mutex(([], behaviour, 0))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Everything received so far, in arrival order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Blocks until `count` requests in all have arrived (each arrival signals: no polling), then
    /// returns them. For a sender in another process, whose sends a test cannot await.
    public func waitForRequests(_ count: Int) -> [Request] {
        while requests.count < count { arrivals.wait() }
        return requests
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String = "/hook") -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Stops accepting connections.
    public func close() { shutdown(listener, Int32(SHUT_RDWR)); Glibc.close(listener) }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 { return }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { Glibc.close(connection) }
        guard let request = read(connection) else { return }
        let status = state.withLock { s -> Int? in
            s.requests.append(request)
            defer { s.answered += 1; arrivals.signal() }
            switch s.behaviour {
            case .status(let code): return code
            case .sequence(let codes): return s.answered < codes.count ? codes[s.answered] : 200
            case .hang: return nil
            }
        }
        guard let status else {
            var byte: UInt8 = 0
            _ = recv(connection, &byte, 1, 0)  // until the client gives up
            return
        }
        let answer = "HTTP/1.1 \(status) Test\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        _ = answer.withCString { send(connection, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }

    private func read(_ connection: Int32) -> Request? {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = data.firstRange(of: [13, 10, 13, 10]) {
                let head = String(decoding: data[..<end.lowerBound], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n")
                let start = lines.removeFirst().split(separator: " ")
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let length = Int(headers["content-length"] ?? "0") ?? 0
                while data.count - end.upperBound < length {
                    let n = recv(connection, &buffer, buffer.count, 0)
                    if n <= 0 { return nil }
                    data += buffer[..<n]
                }
                let body = String(decoding: data[end.upperBound..<(end.upperBound + length)], as: UTF8.self)
                return Request(method: start.first.map(String.init) ?? "", path: start.dropFirst().first.map(String.init) ?? "",
                               headers: headers, body: body)
            }
            let n = recv(connection, &buffer, buffer.count, 0)
            if n <= 0 { return nil }
            data += buffer[..<n]
        }
    }
}
