import Foundation
import Testing
import TesseraHub
import TesseraHubFixtures
import TesseraTestFixtures

/// The hub's mail sink (docs/hub.md, "Mail"): messages queued in the hub's store, sent by
/// ``HubMailer`` over plain SMTP to a real server on loopback (``SMTPTestServer``: Debian's
/// python3-aiosmtpd), retried with backoff on the hub's (settable) clock.
@Suite("The hub's outbound mail over real SMTP", .hangWatchdog, .needs("debian-python:aiosmtpd"))
struct HubMailTests {
    static func mailer(_ hub: HubTestServer, port: Int, user: String? = nil, password: String? = nil) -> HubMailer {
        HubMailer(store: hub.hub, transport: SMTPTransport(host: "127.0.0.1", port: port, from: "hub@tessera.test", username: user, password: password))
    }

    @Test("a queued message reaches the server: recipient, subject and body (non-ASCII, a line starting with a dot) intact; its body leaves the store",
          arguments: HubBackend.available)
    func delivered(backend: HubBackend) async throws {
        let smtp = try await SMTPTestServer()
        defer { smtp.stop() }
        try await HubTestServer.start(backend).use { hub in
            try await hub.hub.mail.queueMail(OutgoingMail(to: "ada@example.org", subject: "Váš kód", body: "Kód: 1234567\n.tečka na začátku\nkonec"))
            try await hub.hub.mail.queueMail(OutgoingMail(to: "bob@example.org", subject: "Plain", body: "line one\n.dot line\nend"))
            let result = await Self.mailer(hub, port: smtp.port).deliverDue()
            #expect(result.sent == 2 && result.failed == 0)
            let messages = try smtp.messages().sorted { $0.to.first ?? "" < $1.to.first ?? "" }  // sent in no set order
            #expect(messages.map(\.to) == [["ada@example.org"], ["bob@example.org"]])
            #expect(messages.map(\.from) == ["hub@tessera.test", "hub@tessera.test"])
            #expect(messages.first?.subject == "Váš kód")
            #expect(messages.first?.body == "Kód: 1234567\n.tečka na začátku\nkonec\n")
            #expect(messages.last?.body == "line one\n.dot line\nend\n")
            let outbox = try await hub.hub.mail.mailOutbox()
            #expect(outbox.allSatisfy { $0.sentMillis == hub.clock.millis && $0.attempts == 1 && !$0.failed })
            // Nothing is due any more: a second pass sends nothing twice.
            #expect(await Self.mailer(hub, port: smtp.port).deliverDue() == (0, 0))
            #expect(try smtp.messages().count == 2)
        }
    }

    @Test("a server that is down loses nothing: retried after 30 s, then 60 s, on the hub's clock, and sent once it is up", arguments: HubBackend.available)
    func retriedWithBackoff(backend: HubBackend) async throws {
        let port = try freeLoopbackPort()  // nothing listens there yet
        try await HubTestServer.start(backend).use { hub in
            let mailer = Self.mailer(hub, port: port)
            try await hub.hub.mail.queueMail(OutgoingMail(to: "ada@example.org", subject: "Invitation", body: "code K7QM"))
            #expect(await mailer.deliverDue() == (0, 1))
            var queued = try #require(try await hub.hub.mail.mailOutbox().first)
            #expect(queued.attempts == 1 && queued.sentMillis == nil && !queued.failed)
            #expect(queued.nextAttemptMillis == hub.clock.millis + 30_000)
            #expect(queued.lastError?.contains("cannot connect to the mail server 127.0.0.1:\(port)") == true)
            hub.clock.advance(29)
            #expect(await mailer.deliverDue() == (0, 0))  // not due yet
            hub.clock.advance(1)
            #expect(await mailer.deliverDue() == (0, 1))
            queued = try #require(try await hub.hub.mail.mailOutbox().first)
            #expect(queued.attempts == 2 && queued.nextAttemptMillis == hub.clock.millis + 60_000)

            let smtp = try await SMTPTestServer(port: port)
            defer { smtp.stop() }
            hub.clock.advance(60)
            #expect(await mailer.deliverDue() == (1, 0))
            #expect(try smtp.messages().map(\.body) == ["code K7QM\n"])
            #expect(try await hub.hub.mail.mailOutbox().first?.sentMillis == hub.clock.millis)
        }
    }

    @Test("a recipient the server refuses for good (550) is marked failed and not retried; AUTH PLAIN with the configured user and password")
    func refusedAndAuthenticated() async throws {
        let smtp = try await SMTPTestServer(user: "hub", password: "s3cret")
        defer { smtp.stop() }
        try await HubTestServer.start().use { hub in
            try await hub.hub.mail.queueMail(OutgoingMail(to: "nobody@refused.invalid", subject: "x", body: "x"))
            try await hub.hub.mail.queueMail(OutgoingMail(to: "ada@example.org", subject: "Hello", body: "hi"))
            #expect(await Self.mailer(hub, port: smtp.port, user: "hub", password: "s3cret").deliverDue() == (1, 1))
            let refused = try #require(try await hub.hub.mail.mailOutbox().first { $0.to == "nobody@refused.invalid" })
            #expect(refused.failed && refused.lastError?.contains("550") == true)
            hub.clock.advance(7200)
            #expect(await Self.mailer(hub, port: smtp.port, user: "hub", password: "s3cret").deliverDue() == (0, 0))
            #expect(try smtp.messages().map(\.to) == [["ada@example.org"]])
            #expect(try smtp.messages().first?.authenticated == true)
        }
    }
}
