import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A message the hub sends: one plain-text mail to one address, with at most one attachment.
public struct OutgoingMail: Sendable, Hashable {
    /// The recipient's address.
    public var to: String
    public var subject: String
    /// Plain text; lines end as they like (sent as CRLF).
    public var body: String
    /// Where replies go (`Reply-To:`): the address of the person who sent it, if any.
    public var replyTo: String?
    /// A file sent with the text (the message is then multipart/mixed).
    public var attachment: MailAttachment?

    public init(to: String, subject: String, body: String, replyTo: String? = nil, attachment: MailAttachment? = nil) {
        self.to = to
        self.subject = subject
        self.body = body
        self.replyTo = replyTo
        self.attachment = attachment
    }
}

/// A file attached to an ``OutgoingMail``: its name as the recipient sees it, its media type and
/// its bytes (sent as base64, RFC 2045, in a part of its own with `Content-Disposition:
/// attachment`, RFC 2183).
public struct MailAttachment: Sendable, Hashable {
    public var fileName: String
    public var mediaType: String
    public var bytes: Data

    public init(fileName: String, mediaType: String, bytes: Data) {
        self.fileName = fileName
        self.mediaType = mediaType
        self.bytes = bytes
    }
}

/// Where the hub's mail goes: the deployment's SMTP server (``SMTPTransport``).
public protocol MailTransport: Sendable {
    /// Hands `mail` to the server. `messageID` is the same for every retry of one message.
    func send(_ mail: OutgoingMail, messageID: String, date: Date) async throws
}

/// A refusal or failure sending mail: `permanent` for the server's 5xx answers (the message will
/// never go as it is), transient otherwise (no connection, a 4xx, a timeout: try again later).
public struct MailError: Error, Sendable, CustomStringConvertible {
    public var permanent: Bool
    public var message: String
    public var description: String { message }
}

/// Plain SMTP (RFC 5321) to one server, with AUTH PLAIN when a user is configured: EHLO, MAIL
/// FROM, RCPT TO, DATA, QUIT over a blocking socket on a dispatch queue (mail is rare; a thread of
/// the cooperative pool is never held). STARTTLS is not spoken: point the hub at a relay on the
/// same host or network (docs/hub.md, "Mail").
public struct SMTPTransport: MailTransport {
    public var host: String
    public var port: Int
    /// The envelope and `From:` address.
    public var from: String
    public var username: String?
    public var password: String?
    /// Seconds each connect, read and write may take.
    public var timeoutSeconds = 30

    public init(host: String, port: Int, from: String, username: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.from = from
        self.username = username
        self.password = password
    }

    public func send(_ mail: OutgoingMail, messageID: String, date: Date) async throws {
        let message = MailMessage(from: from, mail: mail, messageID: messageID, date: date).text
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                do {
                    try self.converse(recipient: mail.to, message: message)
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    private func converse(recipient: String, message: String) throws {
        let line = try SMTPLine(host: host, port: port, timeoutSeconds: timeoutSeconds)
        defer { line.close() }
        try line.expect(220)
        try line.command("EHLO tessera-hub", expect: 250)
        if let username, let password {
            let token = Data(([0] + Array(username.utf8) + [0] + Array(password.utf8))).base64EncodedString()
            try line.command("AUTH PLAIN " + token, expect: 235, shown: "AUTH PLAIN …")
        }
        try line.command("MAIL FROM:<\(from)>", expect: 250)
        try line.command("RCPT TO:<\(recipient)>", expect: 250, 251)
        try line.command("DATA", expect: 354)
        try line.write(message + ".\r\n")
        try line.expect(250)
        try? line.command("QUIT", expect: 221)
    }
}

/// One SMTP connection: commands out, numbered replies (multi-line `250-…`) in.
private final class SMTPLine {
    private let socket: Int32
    private var buffer: [UInt8] = []
    private let server: String

    init(host: String, port: Int, timeoutSeconds: Int) throws {
        server = "\(host):\(port)"
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
            throw MailError(permanent: false, message: "cannot resolve the mail server \(host)")
        }
        defer { freeaddrinfo(found) }
        var address: UnsafeMutablePointer<addrinfo>? = first
        var lastError = ECONNREFUSED
        while let candidate = address {
            let fd = Glibc.socket(candidate.pointee.ai_family, candidate.pointee.ai_socktype, candidate.pointee.ai_protocol)
            if fd >= 0 {
                var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                if connect(fd, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen) == 0 {
                    socket = fd
                    return
                }
                lastError = errno
                Glibc.close(fd)
            }
            address = candidate.pointee.ai_next
        }
        throw MailError(permanent: false, message: "cannot connect to the mail server \(host):\(port): \(String(cString: strerror(lastError)))")
    }

    func close() { Glibc.close(socket) }

    /// Sends `text` and reads the reply, which must have one of `codes`.
    func command(_ text: String, expect codes: Int..., shown: String? = nil) throws {
        try write(text + "\r\n")
        try expect(codes, after: shown ?? text)
    }

    func expect(_ codes: Int...) throws { try expect(codes, after: nil) }

    private func expect(_ codes: [Int], after sent: String?) throws {
        let (code, text) = try reply()
        guard codes.contains(code) else {
            let context = sent.map { " to '\($0)'" } ?? ""
            throw MailError(permanent: (500..<600).contains(code), message: "the mail server \(server) answered \(code) \(text)\(context)")
        }
    }

    func write(_ text: String) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw MailError(permanent: false, message: "writing to the mail server \(server) failed: \(String(cString: strerror(errno)))") }
            bytes = bytes.dropFirst(sent)
        }
    }

    /// A whole reply: its code and its last line's text.
    private func reply() throws -> (Int, String) {
        while true {
            let line = try readLine()
            guard line.count >= 3, let code = Int(line.prefix(3)) else {
                throw MailError(permanent: false, message: "the mail server \(server) sent a malformed reply: \(line.prefix(80))")
            }
            let more = line.count > 3 && line[line.index(line.startIndex, offsetBy: 3)] == "-"
            if !more { return (code, String(line.dropFirst(4))) }
        }
    }

    private func readLine() throws -> String {
        while true {
            if let end = buffer.firstIndex(of: 0x0A) {
                let line = buffer[..<end]
                buffer.removeFirst(end + 1)
                return String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                throw MailError(permanent: false, message: "the mail server \(server) closed the connection or did not answer in time")
            }
            buffer += chunk[..<count]
        }
    }
}
