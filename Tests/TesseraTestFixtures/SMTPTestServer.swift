import Foundation
import Synchronization
import TesseraSDK

/// A real SMTP server on loopback: Debian's `python3-aiosmtpd` (`/usr/bin/python3`, not pyenv's
/// `python3` on PATH), run as its own process with a handler that writes each message it accepts
/// to a file, decoded by Python's `email` package (base64 bodies and encoded subjects included).
/// It refuses any recipient at `refused.invalid` with `550`, and with `user` and `password` it
/// requires AUTH (without TLS, on loopback only).
public final class SMTPTestServer: Sendable {
    /// One message the server accepted.
    public struct Message: Sendable, Hashable {
        public let from: String
        public let to: [String]
        public let subject: String
        public let body: String
        public let messageID: String
        public let authenticated: Bool
        /// The `Reply-To:` header, empty without one.
        public let replyTo: String
        /// The message's media type (`text/plain`, `multipart/mixed`).
        public let contentType: String
        /// Its attachments, decoded by Python's `email` package as a mail program would.
        public let attachments: [Attachment]
    }

    /// A part of a message sent as an attachment: its name, type, disposition and decoded bytes
    /// (in a file of the server's directory).
    public struct Attachment: Sendable, Hashable {
        public let fileName: String
        public let mediaType: String
        /// `attachment` when the part says so (RFC 2183).
        public let disposition: String
        /// Where the server wrote the decoded bytes.
        public let path: String

        public var bytes: Data { FileManager.default.contents(atPath: path) ?? Data() }
    }

    public let port: Int
    public let directory: String
    private let process: ChildProcess
    /// What the server printed and was not read yet (it prints `MESSAGE n` for each one).
    private let printed = Mutex("")

    /// Starts the server on `port` (a free one by default) and returns once it listens.
    ///
    /// Python takes a second or more to start under load: the wait for its `READY` is on a thread
    /// of its own, not on one of the two threads every test's in-process servers share.
    public init(port: Int? = nil, user: String? = nil, password: String? = nil) async throws {
        let root = Fixtures.temporaryDirectory("smtp")
        directory = root + "/messages"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        Fixtures.write(Self.script, to: root + "/server.py")
        self.port = try port ?? freeLoopbackPort()
        var arguments = [root + "/server.py", "--port", String(self.port), "--dir", directory]
        if let user, let password { arguments += ["--user", user, "--password", password] }
        let process = try ChildProcess("/usr/bin/python3", arguments, stdout: .pipe, stderr: .inherit)
        self.process = process
        let seen = await process.output(until: "READY")
        guard let ready = seen.range(of: "READY") else {
            throw SpawnFailure("the SMTP test server (python3-aiosmtpd) exited before it listened")
        }
        printed.withLock { $0 = String(seen[ready.upperBound...]) }
    }

    /// Waits until the server has accepted `count` messages in all (it says so on its stdout:
    /// no polling), then returns them. The wait is on a thread of its own: the sender may be
    /// another process that takes seconds under load.
    public func waitForMessages(_ count: Int) async throws -> [Message] {
        try await onOwnThread { [self] in
            while printed.withLock({ $0.components(separatedBy: "MESSAGE").count - 1 }) < count {
                let chunk = process.standardOutput?.availableData ?? Data()
                guard !chunk.isEmpty else { throw SpawnFailure("the SMTP test server exited") }
                printed.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
            return try messages()
        }
    }

    /// The messages accepted so far, in order.
    public func messages() throws -> [Message] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted().map { name in
            let json = try JSONValue(parsing: try String(contentsOfFile: directory + "/" + name, encoding: .utf8))
            return Message(from: json["from"]?.stringValue ?? "", to: json["to"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                           subject: json["subject"]?.stringValue ?? "", body: json["body"]?.stringValue ?? "",
                           messageID: json["messageID"]?.stringValue ?? "", authenticated: json["authenticated"]?.boolValue ?? false,
                           replyTo: json["replyTo"]?.stringValue ?? "", contentType: json["contentType"]?.stringValue ?? "",
                           attachments: (json["attachments"]?.arrayValue ?? []).map {
                               Attachment(fileName: $0["fileName"]?.stringValue ?? "", mediaType: $0["mediaType"]?.stringValue ?? "",
                                          disposition: $0["disposition"]?.stringValue ?? "", path: $0["path"]?.stringValue ?? "")
                           })
        }
    }

    /// Stops the server and waits for it to exit (at once: Python dies on SIGTERM, it installs no
    /// handler for it, so this blocking wait is short enough for a `defer`).
    public func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    static let script = #"""
    import argparse, asyncio, email, email.policy, json, os
    from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

    arguments = argparse.ArgumentParser()
    arguments.add_argument("--port", type=int, required=True)
    arguments.add_argument("--dir", required=True)
    arguments.add_argument("--user")
    arguments.add_argument("--password")
    a = arguments.parse_args()

    class Handler:
        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            if address.endswith("@refused.invalid"):
                return "550 5.1.1 no such mailbox here"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            message = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
            # A multipart message's body is its text part; each attachment is decoded to a file.
            text = message.get_body(preferencelist=("plain",)) if message.is_multipart() else message
            body = text.get_content().replace("\r\n", "\n") if text is not None else ""
            n = len([f for f in os.listdir(a.dir) if f.endswith(".json")])
            attachments = []
            for i, part in enumerate(message.iter_attachments() if message.is_multipart() else []):
                path = os.path.join(a.dir, "%04d-attachment-%d.bin" % (n, i))
                with open(path, "wb") as f:
                    f.write(part.get_payload(decode=True) or b"")
                attachments.append({"fileName": part.get_filename() or "", "mediaType": part.get_content_type(),
                                    "disposition": part.get_content_disposition() or "", "path": path})
            record = {"from": envelope.mail_from, "to": envelope.rcpt_tos, "subject": str(message["subject"]), "body": body,
                      "messageID": str(message["message-id"]), "authenticated": bool(session.authenticated),
                      "replyTo": str(message["reply-to"] or ""), "contentType": message.get_content_type(), "attachments": attachments}
            temporary = os.path.join(a.dir, ".%04d.tmp" % n)
            with open(temporary, "w") as f:
                json.dump(record, f)
            os.rename(temporary, os.path.join(a.dir, "%04d.json" % n))
            print("MESSAGE", n, flush=True)
            return "250 2.0.0 accepted"

    def authenticate(server, session, envelope, mechanism, data):
        ok = isinstance(data, LoginPassword) and data.login.decode() == a.user and data.password.decode() == a.password
        return AuthResult(success=ok)

    async def main():
        options = {}
        if a.user:
            options = dict(authenticator=authenticate, auth_required=True, auth_require_tls=False)
        loop = asyncio.get_running_loop()
        await loop.create_server(lambda: SMTP(Handler(), **options), "127.0.0.1", a.port)
        print("READY", flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())
    """#
}
