import Foundation
import Glibc
import TesseraSDK
import TesseraTestFixtures

/// One message of a `text/event-stream`, or a comment line (a keep-alive).
struct SSEMessage: Sendable {
    var id: String?
    var event: String?
    var data: String = ""
    var comment: String?
    var json: JSONValue? { try? JSONValue(parsing: Array(data.utf8)) }
}

/// A client of `GET /v1/stream` on a raw socket: reads the head, then the chunked body as it
/// arrives, and hands out one SSE message at a time. Each read blocks (with the socket's 20 s
/// watchdog), so it runs on a thread of its own (``onThread(_:)``).
final class SSEConnection: @unchecked Sendable {
    let fd: Int32
    let status: Int
    let headers: [String: String]
    /// The body of a refusal (a JSON error), read whole.
    let errorBody: [UInt8]
    private var raw: [UInt8]
    private var text = ""

    static func open(port: Int, headers: [(String, String)]) async throws -> SSEConnection {
        try await onThread {
            let fd = try RawHTTPClient.connect(port: port)
            var head = "GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            _ = RawHTTPClient.send(fd, Array((head + "\r\n").utf8))
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while RawHTTPClient.find([13, 10, 13, 10], in: buffer) == nil {
                let n = recv(fd, &chunk, chunk.count, 0)
                guard n > 0 else { Glibc.close(fd); throw RawHTTPClient.Failure(description: "the stream closed before its head") }
                buffer += chunk[..<n]
            }
            let end = RawHTTPClient.find([13, 10, 13, 10], in: buffer)!
            let response = try RawHTTPClient.parseHead(Array(buffer[..<end]))
            var rest = Array(buffer[(end + 4)...])
            var errorBody: [UInt8] = []
            if response.status != 200 {
                let length = Int(response.headers["content-length"] ?? "0") ?? 0
                while rest.count < length {
                    let n = recv(fd, &chunk, chunk.count, 0)
                    guard n > 0 else { break }
                    rest += chunk[..<n]
                }
                errorBody = Array(rest.prefix(length))
                rest = []
            }
            return SSEConnection(fd: fd, status: response.status, headers: response.headers, errorBody: errorBody, raw: rest)
        }
    }

    private init(fd: Int32, status: Int, headers: [String: String], errorBody: [UInt8], raw: [UInt8]) {
        self.fd = fd
        self.status = status
        self.headers = headers
        self.errorBody = errorBody
        self.raw = raw
    }

    /// The next message or comment; `nil` when the server ended the stream.
    func next() async throws -> SSEMessage? {
        try await onThread { try self.readMessage() }
    }

    /// The next message with an `event` (not a comment, not the `retry:` preamble).
    func nextMessage() async throws -> SSEMessage? {
        while let message = try await next() {
            if message.comment == nil, message.event != nil { return message }
        }
        return nil
    }

    func close() { Glibc.close(fd) }

    private func readMessage() throws -> SSEMessage? {
        while true {
            if let range = text.range(of: "\n\n") {
                let block = String(text[..<range.lowerBound])
                text = String(text[range.upperBound...])
                return Self.parse(block)
            }
            guard try readChunk() else { return nil }
        }
    }

    /// Decodes one chunk of the chunked body into `text`; `false` at the last chunk or on close.
    private func readChunk() throws -> Bool {
        while true {
            if let lineEnd = RawHTTPClient.find([13, 10], in: raw) {
                let sizeLine = String(decoding: raw[..<lineEnd], as: UTF8.self)
                guard let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16) else {
                    throw RawHTTPClient.Failure(description: "bad chunk size line: \(sizeLine)")
                }
                if size == 0 { return false }
                if raw.count >= lineEnd + 2 + size + 2 {
                    text += String(decoding: raw[(lineEnd + 2)..<(lineEnd + 2 + size)], as: UTF8.self)
                    raw.removeFirst(lineEnd + 2 + size + 2)
                    return true
                }
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else { return false }
            raw += chunk[..<n]
        }
    }

    static func parse(_ block: String) -> SSEMessage {
        var message = SSEMessage()
        for line in block.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix(":") { message.comment = line.dropFirst().trimmingCharacters(in: .whitespaces); continue }
            let parts = line.split(separator: ":", maxSplits: 1)
            let value = parts.count > 1 ? parts[1].drop(while: { $0 == " " }) : ""
            switch parts[0] {
            case "id": message.id = String(value)
            case "event": message.event = String(value)
            case "data": message.data += String(value)
            default: break
            }
        }
        return message
    }
}
