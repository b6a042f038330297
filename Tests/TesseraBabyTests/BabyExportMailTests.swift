import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// UC32's e-mail: `export` with `email` mails the PDF through the hub (`PluginSync.sendMail`,
/// `POST /v1/hub/mail`) to a real SMTP server (``SMTPTestServer``), read back by `pdftotext`; a
/// guardian (who may not export, §5) is refused; the hub's limits pass on by name; a hub with no
/// mail server is `unavailable`. Every device and hub is its own `tessera` process; the devices
/// run the module in the process tier under `TESSERA_TEST_ISOLATION=process` (the mail crosses
/// the isolation wire). The hubs run on the system clock, as their mailer sends on it.
@Suite(.serialized, .hangWatchdog) struct BabyExportMailTests {
    static let password = "correct horse battery"

    /// A served hub with open registration, mailing to `smtp` (none: no `providers.mail`).
    static func startHub(mailingTo smtp: SMTPTestServer?) async throws -> (ChildProcess, Int) {
        let workspace = FixtureWorkspace("baby-export-mail-hub")
        var providers: [String: Any] = ["storage": ["kind": "sqlite"], "clock": ["kind": "system"]]
        if let smtp { providers["mail"] = ["kind": "smtp", "host": "127.0.0.1", "port": smtp.port, "from": "hub@tessera.test"] }
        workspace.writeDeployment(plugins: [], clock: "system", extra: ["role": "hub", "hub": ["registration": "open"], "providers": providers])
        return try await BabyProcessTests.serve(workspace)
    }

    /// A request to the hub: its status and JSON.
    static func hub(_ port: Int, _ method: String, _ path: String, token: String? = nil, json: String) async throws -> (Int, JSONValue?) {
        let response = try await RawHTTPClient.request(method, url: "http://127.0.0.1:\(port)\(path)", token: token, json: json)
        return (response.status, response.json)
    }

    /// Registers a person with an address at the hub; their device token of that registration.
    @discardableResult
    static func register(_ port: Int, first: String, email: String) async throws -> String {
        let (status, json) = try await hub(port, "POST", "/v1/hub/register", json: """
            {"firstName": "\(first)", "surname": "Lovelace", "email": "\(email)", "password": "\(password)", "acceptTerms": true, "device": "web"}
            """)
        #expect(status == 201, "registering \(email): \(String(describing: json))")
        return json?["token"]?.stringValue ?? ""
    }

    @Test(.needs("debian-python:aiosmtpd", "pdftotext")) func anExportIsMailedAsAPDFThatPdftotextReadsAndAGuardianMayNotMailOne() async throws {
        let smtp = try await SMTPTestServer()
        defer { smtp.stop() }
        let (hub, port) = try await Self.startHub(mailingTo: smtp)
        defer { if hub.isRunning { Task { await hub.terminateAndWait() } } }  // only when an expectation threw
        try await Self.register(port, first: "Ada", email: "ada@example.org")
        try await Self.register(port, first: "Bob", email: "bob@example.org")
        let phone = BabyProcessTests.Device("export-mail-phone", hubPort: String(port))
        let nanny = BabyProcessTests.Device("export-mail-nanny", hubPort: String(port))
        try await phone.tessera(["sync", "login", "ada@example.org", "--device", phone.name], input: Self.password + "\n")
        try await nanny.tessera(["sync", "login", "bob@example.org", "--device", nanny.name], input: Self.password + "\n")
        let child = try #require(try await phone.call("child-create", #"{"name": "Ema Nováková", "birthDate": "2025-06-15", "sex": "girl"}"#)["id"]?.stringValue)
        _ = try await phone.call("measurement-add", #"{"childId": "\#(child)", "kind": "weight", "value": 6.1, "date": "2025-09-15"}"#)

        // Bob is a guardian: §5 keeps him from exports, mailed or not.
        _ = try await phone.call("share-invite", #"{"childId": "\#(child)", "person": "bob@example.org", "level": "guardian"}"#)
        try await phone.sync()
        let waiting = try await nanny.call("invitations-list")["invitations"]?.arrayValue ?? []
        _ = try await nanny.call("invitation-accept", #"{"invitationId": "\#(try #require(waiting.first?["invitationId"]?.stringValue))"}"#)
        try await nanny.sync()
        #expect(try await nanny.call("child-get", #"{"id": "\#(child)"}"#)["level"] == "guardian")
        let guardian = try await nanny.tessera(["call", "cz.tessera.baby", "export", #"{"childId": "\#(child)", "email": "doctor@example.org"}"#],
                                               expecting: 4)
        #expect(guardian.stderr.contains("forbidden"), "\(guardian.stderr)")

        // A malformed or doubled address is refused naming the field (by the manifest's pattern),
        // before the hub is asked.
        for bad in ["doctor at example.org", "a@example.org,b@example.org", "doctor@example."] {
            let refused = try await phone.tessera(["call", "cz.tessera.baby", "export", #"{"childId": "\#(child)", "email": "\#(bad)"}"#], expecting: 2)
            #expect(refused.stderr.contains("invalid_input") && refused.stderr.contains("email"), "\(refused.stderr)")
        }

        let answer = try await phone.call("export", #"{"childId": "\#(child)", "sections": ["measurements", "milestones"], "email": "Doctor@Example.org"}"#)
        #expect(answer["format"] == "pdf")
        #expect(answer["mail"]?["to"] == "doctor@example.org" && answer["mail"]?["status"] == "queued", "\(answer)")
        #expect(answer["mail"]?["fileName"] == "Ema-Novakova-diary.pdf")
        #expect(answer["pdf"]?["download"] != nil)  // still downloadable as well

        // Bob's invitation went to his address first; then the export, once.
        let messages = try await smtp.waitForMessages(2)
        #expect(messages.count == 2 && messages.filter { $0.to == ["doctor@example.org"] }.count == 1)
        let message = try #require(messages.first { $0.to == ["doctor@example.org"] })
        #expect(message.to == ["doctor@example.org"] && message.from == "hub@tessera.test")
        #expect(message.replyTo == "ada@example.org")
        #expect(message.subject == "Ema Nováková: baby diary")
        #expect(message.body.contains("Ema Nováková") && message.body.contains("Sent by Ada Lovelace (ada@example.org) from cz.tessera.baby"),
                "\(message.body)")
        let attachment = try #require(message.attachments.first)
        #expect(attachment.mediaType == "application/pdf" && attachment.fileName == "Ema-Novakova-diary.pdf" && attachment.disposition == "attachment")
        #expect(attachment.bytes.starts(with: Array("%PDF-".utf8)))
        let text = try await Poppler.text(of: attachment.bytes)
        for expected in ["Ema Nováková", "Born: 15 June 2025", "measurements (1)"] {
            #expect(text.contains(expected), "pdftotext lacks \(expected):\n\(text)")
        }
        #expect(try smtp.messages().count == 2)  // the guardian's and the refused ones were never queued
        await hub.terminateAndWait()
    }

    /// `language` "cs" (what the page passes for a Czech reader): the mailed subject and text and
    /// the attached PDF are Czech, dates as "15. 6. 2025"; the same export without a language is
    /// English. The attachment's name stays ASCII either way.
    @Test(.needs("debian-python:aiosmtpd", "pdftotext")) func anExportMailedInCzechHasACzechSubjectTextAndPDFAndWithoutALanguageIsEnglish() async throws {
        let smtp = try await SMTPTestServer()
        defer { smtp.stop() }
        let (hub, port) = try await Self.startHub(mailingTo: smtp)
        defer { if hub.isRunning { Task { await hub.terminateAndWait() } } }  // only when an expectation threw
        try await Self.register(port, first: "Ada", email: "ada@example.org")
        let phone = BabyProcessTests.Device("export-mail-cs-phone", hubPort: String(port))
        try await phone.tessera(["sync", "login", "ada@example.org", "--device", phone.name], input: Self.password + "\n")
        let child = try #require(try await phone.call("child-create", #"{"name": "Ema Nováková", "birthDate": "2025-06-15", "sex": "girl"}"#)["id"]?.stringValue)
        _ = try await phone.call("measurement-add", #"{"childId": "\#(child)", "kind": "weight", "value": 6.15, "date": "2025-09-15"}"#)

        let czech = try await phone.call("export", #"{"childId": "\#(child)", "sections": ["measurements"], "email": "doctor@example.org", "language": "cs"}"#)
        #expect(czech["mail"]?["fileName"] == "Ema-Novakova-diary.pdf" && czech["mail"]?["status"] == "queued", "\(czech)")
        let first = try #require(try await smtp.waitForMessages(1).first)
        #expect(first.subject == "Ema Nováková: deník miminka")
        #expect(first.body.contains("Deník miminka – Ema Nováková (datum narození 15. 6. 2025), export ze dne ") && first.body.contains(": měření."),
                "\(first.body)")
        #expect(first.body.contains("V příloze je soubor PDF (Ema-Novakova-diary.pdf)."), "\(first.body)")
        let czechPDF = try await Poppler.text(of: try #require(first.attachments.first).bytes)
        for expected in ["Datum narození: 15. 6. 2025", "Pohlaví: dívka", "Hmotnost: 6,15 kg (15. 9. 2025)", "Ema Nováková: měření (1)"] {
            #expect(czechPDF.contains(expected), "the Czech PDF lacks \(expected):\n\(czechPDF)")
        }

        _ = try await phone.call("export", #"{"childId": "\#(child)", "sections": ["measurements"], "email": "doctor@example.org"}"#)
        let messages = try await smtp.waitForMessages(2)
        let english = try #require(messages.first { $0.subject != first.subject }, "\(messages.map(\.subject))")
        #expect(english.subject == "Ema Nováková: baby diary")
        #expect(english.body.contains("The baby diary of Ema Nováková (born 15 June 2025), exported ") && english.body.contains(": measurements."),
                "\(english.body)")
        let englishPDF = try await Poppler.text(of: try #require(english.attachments.first).bytes)
        for expected in ["Born: 15 June 2025", "Sex: girl", "Weight: 6.15 kg (15 September 2025)", "Ema Nováková: measurements (1)"] {
            #expect(englishPDF.contains(expected), "the English PDF lacks \(expected):\n\(englishPDF)")
        }
        #expect(!englishPDF.contains("Hmotnost"))
        await hub.terminateAndWait()
    }

    /// The hub's own limit passes on by name: Ada sent 20 messages today from another device, so
    /// the export is `mail_rate_exceeded` and nothing more is mailed.
    @Test(.needs("debian-python:aiosmtpd")) func theHubsDailyLimitPassesOnByName() async throws {
        let smtp = try await SMTPTestServer()
        defer { smtp.stop() }
        let (hub, port) = try await Self.startHub(mailingTo: smtp)
        defer { if hub.isRunning { Task { await hub.terminateAndWait() } } }
        let web = try await Self.register(port, first: "Ada", email: "ada@example.org")
        for _ in 0..<20 {
            let (status, _) = try await Self.hub(port, "POST", "/v1/hub/mail", token: web,
                                                 json: #"{"to": "ada@example.org", "subject": "note", "text": "to myself"}"#)
            #expect(status == 202)
        }
        let phone = BabyProcessTests.Device("export-rate-phone", hubPort: String(port))
        try await phone.tessera(["sync", "login", "ada@example.org", "--device", phone.name], input: Self.password + "\n")
        let child = try #require(try await phone.call("child-create", #"{"name": "Ema", "birthDate": "2025-06-15"}"#)["id"]?.stringValue)
        let refused = try await phone.tessera(["call", "cz.tessera.baby", "export", #"{"childId": "\#(child)", "email": "doctor@example.org"}"#],
                                              expecting: 1)
        #expect(refused.stderr.contains("mail_rate_exceeded"), "\(refused.stderr)")
        let sent = try await smtp.waitForMessages(20)
        #expect(sent.count == 20 && sent.allSatisfy { $0.to == ["ada@example.org"] })
        await hub.terminateAndWait()
    }

    /// A hub with no mail server: the export's mail is `unavailable` (exit 5), named as such.
    @Test func aHubWithoutMailIsUnavailable() async throws {
        let (hub, port) = try await Self.startHub(mailingTo: nil)
        defer { if hub.isRunning { Task { await hub.terminateAndWait() } } }
        try await Self.register(port, first: "Ada", email: "ada@example.org")
        let phone = BabyProcessTests.Device("export-nomail-phone", hubPort: String(port))
        try await phone.tessera(["sync", "login", "ada@example.org", "--device", phone.name], input: Self.password + "\n")
        let child = try #require(try await phone.call("child-create", #"{"name": "Ema", "birthDate": "2025-06-15"}"#)["id"]?.stringValue)
        let refused = try await phone.tessera(["call", "cz.tessera.baby", "export", #"{"childId": "\#(child)", "email": "doctor@example.org"}"#],
                                              expecting: 5)
        #expect(refused.stderr.contains("unavailable") && refused.stderr.contains("sends no mail"), "\(refused.stderr)")
        // Without e-mail the export works as before.
        #expect(try await phone.call("export", #"{"childId": "\#(child)", "format": "csv"}"#)["csv"] != nil)
        await hub.terminateAndWait()
    }
}
