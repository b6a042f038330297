import Foundation
import Glibc
import TesseraSDK

/// A response as it came off the socket.
struct RawResponse: Sendable {
    var status: Int
    /// Header names in lowercase.
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue? { try? JSONValue(parsing: body) }
    /// `error.code` of a JSON error body.
    var errorCode: String? { json?["error"]?["code"]?.stringValue }
}

/// A deliberately small HTTP/1.1 client on a raw TCP socket, so a test controls every byte: a
/// missing or lying header, a chunked body that never ends, a malformed request line. It reads one
/// response (headers, then `Content-Length` bytes) and closes; it never needs the server to close.
///
/// Its calls block, so they run on a thread of their own (``onThread(_:)``), never on the Swift
/// concurrency pool the server's handlers need.
enum RawHTTPClient {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Sends `method path` with `headers` and `body` (Content-Length added when there is a body).
    static func request(port: Int, _ method: String, _ path: String, headers: [(String, String)] = [],
                        body: [UInt8]? = nil) async throws -> RawResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body, !headers.contains(where: { $0.0.lowercased() == "content-length" || $0.0.lowercased() == "transfer-encoding" }) {
            head += "Content-Length: \(body.count)\r\n"
        }
        return try await exchange(port: port, parts: [Array((head + "\r\n").utf8) + (body ?? [])], expectBody: method != "HEAD")
    }

    /// Sends `parts` one after another (a pause between them lets the server act on each) and
    /// reads one response.
    static func exchange(port: Int, parts: [[UInt8]], pause: Duration = .zero, expectBody: Bool = true) async throws -> RawResponse {
        try await onThread {
            let fd = try connect(port: port)
            defer { close(fd) }
            for (i, part) in parts.enumerated() {
                if i > 0, pause > .zero { Thread.sleep(forTimeInterval: pause.timeInterval) }
                // A write the server refused to wait for (it answered early) is not a failure here:
                // the answer is what the test reads next.
                if !send(fd, part) { break }
            }
            return try readResponse(fd, expectBody: expectBody)
        }
    }

    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        // A watchdog, not a measurement: a test must fail rather than hang if the server never answers.
        // Three minutes: the whole suite starts at once on two cores, and a busy host answers late
        // (one of 200 concurrent calls waited more than a minute in a fresh-clone CI run).
        var timeout = timeval(tv_sec: 180, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
        return fd
    }

    /// Writes all of `bytes`; `false` if the peer stopped reading. MSG_NOSIGNAL: no SIGPIPE.
    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Sends several requests at once on one connection and reads their responses in order: shows
    /// that each response is exactly as long as it says (a HEAD answer has no body).
    static func pipelined(port: Int, _ requests: [(bytes: [UInt8], expectBody: Bool)]) async throws -> [RawResponse] {
        try await onThread {
            let fd = try connect(port: port)
            defer { close(fd) }
            _ = send(fd, requests.flatMap(\.bytes))
            var buffer: [UInt8] = []
            return try requests.map { try readResponse(fd, expectBody: $0.expectBody, buffer: &buffer) }
        }
    }

    static func readResponse(_ fd: Int32, expectBody: Bool) throws -> RawResponse {
        var buffer: [UInt8] = []
        return try readResponse(fd, expectBody: expectBody, buffer: &buffer)
    }

    /// Reads one response from `buffer` and the socket; what follows it stays in `buffer`.
    static func readResponse(_ fd: Int32, expectBody: Bool, buffer: inout [UInt8]) throws -> RawResponse {
        var chunk = [UInt8](repeating: 0, count: 65536)
        var headerEnd: Int?
        var response: RawResponse?
        while true {
            if headerEnd == nil, let end = find([13, 10, 13, 10], in: buffer) {
                headerEnd = end + 4
                response = try parseHead(Array(buffer[..<end]))
            }
            if let headerEnd, var response {
                let length = expectBody ? Int(response.headers["content-length"] ?? "0") ?? 0 : 0
                if buffer.count - headerEnd >= length {
                    response.body = Array(buffer[headerEnd..<(headerEnd + length)])
                    buffer.removeFirst(headerEnd + length)
                    return response
                }
            }
            let n = recv(fd, &chunk, chunk.count, 0)
            if n < 0 && errno == EINTR { continue }  // a signal (a child process of another test ended)
            guard n > 0 else {
                let why = n == 0 ? "the server closed it" : String(cString: strerror(errno))
                throw Failure(description: "the connection ended after \(buffer.count) bytes (\(why)): \(String(decoding: buffer, as: UTF8.self))")
            }
            buffer += chunk[..<n]
        }
    }

    static func parseHead(_ bytes: [UInt8]) throws -> RawResponse {
        let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw Failure(description: "bad status line: \(lines[0])") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            // A repeated field (two WWW-Authenticate challenges) reads as one, its values joined
            // by commas, as HTTP allows combining them.
            let name = line[..<colon].lowercased(), value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return RawResponse(status: status, headers: headers, body: [])
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
        return nil
    }
}

/// Runs blocking work (sockets, child processes) on a thread of its own and awaits its result, so
/// it never occupies one of the few threads Swift concurrency has for the server under test.
func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
