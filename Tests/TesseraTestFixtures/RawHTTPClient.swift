import Foundation
import Glibc
import TesseraSDK

/// A response as it came off the socket.
public struct RawResponse: Sendable {
    public var status: Int
    /// Header names in lowercase.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: JSONValue? { try? JSONValue(parsing: body) }
    /// `error.code` of a JSON error body.
    public var errorCode: String? { json?["error"]?["code"]?.stringValue }
}

/// A deliberately small HTTP/1.1 client on a raw TCP socket, so a test controls every byte: a
/// missing or lying header, a chunked body that never ends, a malformed request line. Its
/// ``request(port:_:_:headers:body:)`` reads one response (headers, then `Content-Length` bytes)
/// and closes, never needing the server to close; ``requestUntilClosed(port:_:_:headers:body:timeout:)``
/// is the plain client the hub and served-host tests use for every request.
///
/// Its calls block, so they run on a thread of their own (``onThread(_:)``), never on the Swift
/// concurrency pool the server's handlers need.
public enum RawHTTPClient {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Sends `method path` with `headers` and `body` (Content-Length added when there is a body).
    public static func request(port: Int, _ method: String, _ path: String, headers: [(String, String)] = [],
                        body: [UInt8]? = nil) async throws -> RawResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body, !headers.contains(where: { $0.0.lowercased() == "content-length" || $0.0.lowercased() == "transfer-encoding" }) {
            head += "Content-Length: \(body.count)\r\n"
        }
        return try await exchange(port: port, parts: [Array((head + "\r\n").utf8) + (body ?? [])], expectBody: method != "HEAD")
    }

    /// Sends one request with `Connection: close` and reads its response until the server closes
    /// the connection: a body of any length, with `Content-Length` or chunked (a hub's file
    /// download). `timeout`: seconds without data before it fails.
    ///
    /// What a client of a real server uses here, rather than Foundation's `URLSession`: on this
    /// toolchain a `URLSession` request now and then sends its head and never its body, in a
    /// process that opens and closes sockets as fast as a test server does, and the server closes
    /// the connection a minute later ("Empty reply from server").
    public static func requestUntilClosed(port: Int, _ method: String, _ path: String, headers: [(String, String)] = [],
                                          body: [UInt8]? = nil, timeout: Int = 180) async throws -> RawResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body?.count ?? 0)\r\n\r\n"
        let request = Array(head.utf8) + (body ?? [])
        return try await onThread {
            let fd = try connect(port: port, timeout: timeout)
            defer { close(fd) }
            _ = send(fd, request)
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = recv(fd, &chunk, chunk.count, 0)
                if n < 0 && errno == EINTR { continue }
                if n == 0 { break }
                guard n > 0 else { throw Failure(description: "\(method) \(path): \(String(cString: strerror(errno))) after \(received.count) bytes") }
                received += chunk[..<n]
            }
            guard let end = find([13, 10, 13, 10], in: received) else {
                throw Failure(description: "\(method) \(path): the connection closed after \(received.count) bytes, before a whole head")
            }
            var response = try parseHead(Array(received[..<end]))
            let content = Array(received[(end + 4)...])
            if method == "HEAD" {
                response.body = []
            } else if response.headers["transfer-encoding"]?.lowercased() == "chunked" {
                response.body = try dechunked(content)
            } else if let length = response.headers["content-length"].flatMap({ Int($0) }) {
                guard content.count >= length else {
                    throw Failure(description: "\(method) \(path): \(content.count) of \(length) body bytes before the connection closed")
                }
                response.body = Array(content[..<length])
            } else {
                response.body = content
            }
            return response
        }
    }

    /// One request to `url`, a served host's address and a path (`http://127.0.0.1:PORT/v1/…`), as
    /// ``requestUntilClosed(port:_:_:headers:body:timeout:)`` sends it: `token` as a bearer token,
    /// `json` with `Content-Type: application/json`, or `body` with `contentType` (none if `nil`).
    public static func request(_ method: String, url: String, token: String? = nil, json: String? = nil,
                               body: [UInt8]? = nil, contentType: String? = nil, timeout: Int = 180) async throws -> RawResponse {
        guard let rest = ["http://127.0.0.1:", "http://localhost:"].lazy.compactMap({ url.hasPrefix($0) ? url.dropFirst($0.count) : nil }).first,
              let port = Int(rest.prefix { $0.isNumber }) else {
            throw Failure(description: "not a loopback http address: \(url)")
        }
        let path = rest.drop { $0.isNumber }
        var headers: [(String, String)] = []
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if let contentType = contentType ?? (json == nil ? nil : "application/json") { headers.append(("Content-Type", contentType)) }
        let body = body ?? json.map { Array($0.utf8) }
        return try await requestUntilClosed(port: port, method, path.isEmpty ? "/" : String(path), headers: headers, body: body, timeout: timeout)
    }

    /// A chunked body's bytes, its chunk sizes and trailers taken out.
    static func dechunked(_ bytes: [UInt8]) throws -> [UInt8] {
        var body: [UInt8] = [], at = 0
        func lineEnd(from start: Int) -> Int? {
            var i = start
            while i + 1 < bytes.count { if bytes[i] == 13 && bytes[i + 1] == 10 { return i }; i += 1 }
            return nil
        }
        while let lineEnd = lineEnd(from: at) {
            let sizeText = String(decoding: bytes[at..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw Failure(description: "bad chunk size line: \(sizeText)")
            }
            if size == 0 { return body }
            guard lineEnd + 2 + size <= bytes.count else { throw Failure(description: "a chunk of \(size) bytes cut short") }
            body += bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]
            at = lineEnd + 2 + size + 2
            guard at <= bytes.count else { throw Failure(description: "a chunk without its line end") }
        }
        throw Failure(description: "a chunked body without its last chunk")
    }

    /// Sends `parts` one after another (a pause between them lets the server act on each) and
    /// reads one response.
    public static func exchange(port: Int, parts: [[UInt8]], pause: Duration = .zero, expectBody: Bool = true) async throws -> RawResponse {
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

    public static func connect(port: Int, timeout seconds: Int = 180) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        // A watchdog, not a measurement: a test must fail rather than hang if the server never answers.
        // Three minutes unless the caller says: the whole suite starts at once on two cores, and a busy host answers late
        // (one of 200 concurrent calls waited more than a minute in a fresh-clone CI run).
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
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
    public static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
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
    public static func pipelined(port: Int, _ requests: [(bytes: [UInt8], expectBody: Bool)]) async throws -> [RawResponse] {
        try await onThread {
            let fd = try connect(port: port)
            defer { close(fd) }
            _ = send(fd, requests.flatMap(\.bytes))
            var buffer: [UInt8] = []
            return try requests.map { try readResponse(fd, expectBody: $0.expectBody, buffer: &buffer) }
        }
    }

    public static func readResponse(_ fd: Int32, expectBody: Bool) throws -> RawResponse {
        var buffer: [UInt8] = []
        return try readResponse(fd, expectBody: expectBody, buffer: &buffer)
    }

    /// Reads one response from `buffer` and the socket; what follows it stays in `buffer`.
    public static func readResponse(_ fd: Int32, expectBody: Bool, buffer: inout [UInt8]) throws -> RawResponse {
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

    public static func parseHead(_ bytes: [UInt8]) throws -> RawResponse {
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

    public static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
        return nil
    }
}

/// Runs blocking work (sockets, child processes) on a thread of its own and awaits its result, so
/// it never occupies one of the few threads Swift concurrency has for the server under test.
public func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
