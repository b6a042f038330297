import Foundation
import Testing
@testable import TesseraHub
import TesseraSDK
import TesseraHubFixtures
import TesseraTestFixtures

/// `POST /v1/hub/mail` (docs/hub.md, "Mail to one address"): a logged-in person's message to one
/// address with one file, queued in the hub's outbox and answered at once, then sent by
/// ``HubMailer`` to a real SMTP server (``SMTPTestServer``) as multipart/mixed; each limit refused
/// by name with nothing queued; the day's limit counted on the hub's (settable) clock.
@Suite("Mail a person sends through the hub", .hangWatchdog)
struct HubPersonMailTests {
    /// Registers Ada (an account with an address and names) and returns her device token.
    static func ada(_ hub: HubTestServer) async throws -> String {
        let registered = try await HubEmailAccountTests.register(hub, "ada@example.org")
        return try #require(registered.json?["token"]?.stringValue)
    }

    /// The route's JSON: `content` is the attachment's base64 as given (nil: no attachment).
    static func mail(to: String = "doctor@example.org", subject: String = "Ema: baby diary", text: String = "Ema's growth.",
                     fileName: String = "Ema-diary.pdf", mediaType: String = "application/pdf", content: String? = samplePDF.base64EncodedString()) -> String {
        var json: [String: JSONValue] = ["to": .string(to), "subject": .string(subject), "text": .string(text)]
        if let content {
            json["attachment"] = ["fileName": .string(fileName), "mediaType": .string(mediaType), "content": .string(content)]
        }
        return JSONValue.object(json).serialized()
    }

    /// Bytes that look like a PDF and include every byte value (a binary attachment must survive).
    static let samplePDF = Data(Array("%PDF-1.4\n".utf8) + (0...255).map(UInt8.init) + Array("\n%%EOF\n".utf8))

    @Test("a message with a PDF: 202 at once, queued; sent as multipart/mixed with the file intact, From the hub, Reply-To the person, saying who sent it; the body and file leave the store",
          .needs("debian-python:aiosmtpd"), arguments: HubBackend.available)
    func sentWithAttachment(backend: HubBackend) async throws {
        let smtp = try await SMTPTestServer()
        defer { smtp.stop() }
        try await HubTestServer.start(backend).use { hub in
            let token = try await Self.ada(hub)
            let queued = try await hub.request("POST", "/v1/hub/mail?plugin=cz.tessera.baby", token: token,
                                               json: Self.mail(to: "Doctor@Example.org", text: "Dear doctor,\n.her growth is attached."))
            #expect(queued.status == 202, "\(queued.text)")
            #expect(queued.json?["to"] == "doctor@example.org" && queued.json?["status"] == "queued")
            #expect(queued.json?["remainingToday"] == .integer(19))
            let id = try #require(queued.json?["id"]?.stringValue)
            #expect(try await hub.hub.mail.mailOutbox().map(\.id) == [id])  // in the store before any SMTP

            #expect(await HubMailTests.mailer(hub, port: smtp.port).deliverDue() == (1, 0))
            let message = try #require(try smtp.messages().first)
            #expect(message.to == ["doctor@example.org"] && message.from == "hub@tessera.test")
            #expect(message.subject == "Ema: baby diary")
            #expect(message.contentType == "multipart/mixed")
            #expect(message.replyTo == "ada@example.org")
            #expect(message.body.hasPrefix("Dear doctor,\n.her growth is attached.\n"))
            #expect(message.body.contains("Sent by Ada Lovelace (ada@example.org) from cz.tessera.baby"), "\(message.body)")
            let attachment = try #require(message.attachments.first)
            #expect(message.attachments.count == 1)
            #expect(attachment.fileName == "Ema-diary.pdf" && attachment.mediaType == "application/pdf" && attachment.disposition == "attachment")
            #expect(attachment.bytes == Self.samplePDF)
            // Sent: the envelope stays for the operator, the text and the file go.
            let rows = try await hub.hub.rawOutboxContent(id)
            #expect(rows.body == "" && rows.attachment == nil)
        }
    }

    @Test("an account without an address: no Reply-To, and the text says replies do not reach them; no attachment is fine too", .needs("debian-python:aiosmtpd"))
    func withoutAddress() async throws {
        let smtp = try await SMTPTestServer()
        defer { smtp.stop() }
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("bob")
            let token = try await hub.login("bob", device: "phone")
            let queued = try await hub.request("POST", "/v1/hub/mail", token: token, json: Self.mail(content: nil))
            #expect(queued.status == 202, "\(queued.text)")
            #expect(await HubMailTests.mailer(hub, port: smtp.port).deliverDue() == (1, 0))
            let message = try #require(try smtp.messages().first)
            #expect(message.replyTo == "" && message.attachments.isEmpty && message.contentType == "text/plain")
            #expect(message.body.contains("Sent by bob through a Tessera hub. Replies to this address do not reach them."), "\(message.body)")
        }
    }

    @Test("each limit is refused by name, with nothing queued: the recipient, subject, text, the file's name, type, content and size")
    func limitsRefusedByName() async throws {
        try await HubTestServer.start().use { hub in
            let token = try await Self.ada(hub)
            let big = Data(count: HubMailOutbox.PersonMailLimits.attachmentBytes + 1).base64EncodedString()
            let cases: [(String, Int, String, String)] = [
                (Self.mail(to: "a@example.org, b@example.org"), 400, "invalid_recipient", "$.to"),
                (Self.mail(to: "nobody"), 400, "invalid_recipient", "$.to"),
                (Self.mail(to: "a@example.org\r\nBcc: b@example.org"), 400, "invalid_recipient", "$.to"),
                (Self.mail(subject: ""), 400, "invalid_subject", "$.subject"),
                (Self.mail(subject: "Hi\r\nBcc: b@example.org"), 400, "invalid_subject", "$.subject"),
                (Self.mail(subject: String(repeating: "s", count: 201)), 400, "invalid_subject", "$.subject"),
                (Self.mail(text: String(repeating: "t", count: 10_001)), 400, "text_too_long", "$.text"),
                (Self.mail(fileName: "../etc/passwd"), 400, "invalid_attachment_name", "$.attachment.fileName"),
                (Self.mail(fileName: "x\".pdf"), 400, "invalid_attachment_name", "$.attachment.fileName"),
                (Self.mail(mediaType: "text/html"), 400, "attachment_type_not_allowed", "$.attachment.mediaType"),
                (Self.mail(content: "not base64 at all!"), 400, "invalid_attachment", "$.attachment.content"),
                (Self.mail(content: big), 413, "attachment_too_large", "$.attachment.content"),
            ]
            for (json, status, code, field) in cases {
                let refused = try await hub.request("POST", "/v1/hub/mail", token: token, json: json, timeout: 300)
                #expect(refused.status == status && refused.errorCode == code, "\(code): \(refused.status) \(refused.text.prefix(300))")
                #expect(refused.json?["error"]?["field"]?.stringValue == field, "\(code)")
            }
            #expect(try await hub.hub.mail.mailOutbox().isEmpty)
            // At the limits themselves, it is taken: 10 MiB, 200 characters, 10,000 characters.
            let exact = Data(count: HubMailOutbox.PersonMailLimits.attachmentBytes).base64EncodedString()
            let taken = try await hub.request("POST", "/v1/hub/mail", token: token, json: Self.mail(
                subject: String(repeating: "s", count: 200), text: String(repeating: "t", count: 10_000), mediaType: "text/csv", content: exact),
                timeout: 300)
            #expect(taken.status == 202, "\(taken.text.prefix(300))")
            #expect(try await hub.request("POST", "/v1/hub/mail", json: Self.mail()).status == 401)
        }
    }

    @Test("20 messages a person in any 24 hours on the hub's clock: the 21st is mail_rate_exceeded (429), nothing queued; another person is not held; a day later it goes",
          arguments: HubBackend.available)
    func dailyLimit(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            let ada = try await Self.ada(hub)
            for sent in 1...HubMailOutbox.PersonMailLimits.perDay {
                let queued = try await hub.request("POST", "/v1/hub/mail", token: ada, json: Self.mail(content: nil))
                #expect(queued.status == 202 && queued.json?["remainingToday"] == .integer(Int64(HubMailOutbox.PersonMailLimits.perDay - sent)))
                hub.clock.advance(60)
            }
            let refused = try await hub.request("POST", "/v1/hub/mail", token: ada, json: Self.mail(content: nil))
            #expect(refused.status == 429 && refused.errorCode == "mail_rate_exceeded", "\(refused.text)")
            #expect(try await hub.hub.mail.mailOutbox().count == HubMailOutbox.PersonMailLimits.perDay)
            try await hub.addPerson("bob")
            let bob = try await hub.login("bob", device: "phone")
            #expect(try await hub.request("POST", "/v1/hub/mail", token: bob, json: Self.mail(content: nil)).status == 202)
            // The first of Ada's was sent 20 minutes after the day started: 24 h after it, one more may go.
            hub.clock.advance(24 * 3600 - 20 * 60 + 1)
            #expect(try await hub.request("POST", "/v1/hub/mail", token: ada, json: Self.mail(content: nil)).status == 202)
            #expect(try await hub.request("POST", "/v1/hub/mail", token: ada, json: Self.mail(content: nil)).errorCode == "mail_rate_exceeded")
        }
    }

    @Test("a hub with no mail server answers unavailable (503), and queues nothing")
    func noMailServer() async throws {
        try await HubTestServer.start(mailSink: false).use { hub in
            let token = try await Self.ada(hub)
            let refused = try await hub.request("POST", "/v1/hub/mail", token: token, json: Self.mail())
            #expect(refused.status == 503 && refused.errorCode == "unavailable", "\(refused.text)")
            #expect(try await hub.hub.mail.mailOutbox().isEmpty)
        }
    }
}

extension HubStore {
    /// What the outbox keeps of a message's text and file (the test reads the row itself).
    func rawOutboxContent(_ id: String) async throws -> (body: String, attachment: String?) {
        try await transaction { connection in
            let row = try await connection.fetchOne("SELECT body, attachment_base64 FROM hub_mail_outbox WHERE id = ?", [.text(id)])
            return (row?[0].text ?? "(no row)", row?[1].text)
        }
    }
}
