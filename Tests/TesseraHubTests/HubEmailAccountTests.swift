import Foundation
import Testing
import TesseraHub
import TesseraSDK
import TesseraHubFixtures
import TesseraTestFixtures

/// Accounts with e-mail (specs/baby-diary.md UC1, UC3, UC5, UC6; docs/hub.md "Accounts with
/// e-mail"): open registration, login by address, the password reset by a 7-digit code mailed
/// through a real SMTP server (``SMTPTestServer``), every reset answer no sooner than 5 s on the
/// hub's settable clock, and invitations mailed to an address that registers later.
@Suite("Hub accounts with e-mail", .hangWatchdog)
struct HubEmailAccountTests {
    static func register(_ hub: HubTestServer, _ email: String, first: String = "Ada", password: String = "correct horse battery",
                         terms: Bool = true) async throws -> HubResponse {
        try await hub.request("POST", "/v1/hub/register", json: """
            {"firstName": "\(first)", "surname": "Lovelace", "email": "\(email)", "password": "\(password)", "acceptTerms": \(terms), "device": "phone"}
            """)
    }

    /// Sends a reset request, which the hub answers only once its clock has moved 5 s on: it is
    /// still unanswered at 4.999 s (the hub sleeps on the clock), and answered at 5 s.
    static func slow(_ hub: HubTestServer, _ path: String, _ json: String) async throws -> HubResponse {
        let asleep = hub.clock.sleeping
        let request = Task { try await hub.request("POST", path, json: json) }
        while hub.clock.sleeping == asleep { await Task.yield() }  // the hub did its work and waits on its clock
        hub.clock.advance(4.999)
        #expect(hub.clock.sleeping == asleep + 1, "answered before 5 s on the hub's clock")
        hub.clock.advance(0.001)
        return try await request.value
    }

    static func mailer(_ hub: HubTestServer, _ smtp: SMTPTestServer) -> HubMailer {
        HubMailer(store: hub.hub, transport: SMTPTransport(host: "127.0.0.1", port: smtp.port, from: "hub@tessera.test"))
    }

    /// The 7-digit code in the last mail to `address`.
    static func code(in smtp: SMTPTestServer, to address: String) throws -> String {
        let body = try #require(try smtp.messages().last { $0.to == [address] }?.body)
        let digits = body.split(whereSeparator: { !$0.isNumber }).first { $0.count == 7 }
        return String(try #require(digits))
    }

    @Test("register (terms, address and password checked by name; an address once), then log in by address in any case", arguments: HubBackend.available)
    func registerAndLogIn(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            let registered = try await Self.register(hub, "Ada@Example.org")
            #expect(registered.status == 201)
            let token = try #require(registered.json?["token"]?.stringValue)
            #expect(registered.json?["person"]?["name"] == "ada@example.org")
            #expect(try await hub.request("GET", "/v1/hub/me", token: token).status == 200)
            // Registered and logged in at once, with a personal space.
            let spaces = try await hub.request("GET", "/v1/hub/spaces", token: token)
            #expect(spaces.json?["spaces"]?.arrayValue?.map { $0["kind"] } == ["personal"])

            let taken = try await Self.register(hub, "ADA@example.org ")
            #expect(taken.status == 409 && taken.errorCode == "email_taken" && taken.json?["error"]?["field"] == "$.email")
            let terms = try await Self.register(hub, "bob@example.org", terms: false)
            #expect(terms.status == 400 && terms.errorCode == "terms_not_accepted" && terms.json?["error"]?["field"] == "$.acceptTerms")
            let address = try await Self.register(hub, "bob at example.org")
            #expect(address.status == 400 && address.errorCode == "invalid_email")
            let weak = try await Self.register(hub, "bob@example.org", password: "short")
            #expect(weak.status == 400 && weak.errorCode == "weak_password")
            let name = try await Self.register(hub, "bob@example.org", first: "")
            #expect(name.status == 400 && name.json?["error"]?["field"] == "$.firstName")

            let login = try await hub.request("POST", "/v1/hub/login", json: #"{"email":"ADA@example.ORG","password":"correct horse battery","device":"laptop"}"#)
            #expect(login.status == 201 && login.json?["person"]?["name"] == "ada@example.org")
            let wrong = try await hub.request("POST", "/v1/hub/login", json: #"{"email":"ada@example.org","password":"wrong horse battery","device":"laptop"}"#)
            #expect(wrong.status == 401 && wrong.errorCode == "invalid_credentials")
            // The operator's people still log in by name.
            try await hub.addPerson("cy")
            _ = try await hub.login("cy", device: "phone")
        }
    }

    @Test("password reset: a 7-digit code by mail, the same answer for an unknown address, each answer after 5 s on the hub's clock; wrong, exhausted and expired codes refused; the new password works and old devices are signed out",
          .needs("debian-python:aiosmtpd"), arguments: HubBackend.available)
    func passwordReset(backend: HubBackend) async throws {
        let smtp = try await SMTPTestServer()
        defer { smtp.stop() }
        try await HubTestServer.start(backend).use { hub in
            let mailer = Self.mailer(hub, smtp)
            let oldToken = try #require(try await Self.register(hub, "ada@example.org").json?["token"]?.stringValue)

            let asked = try await Self.slow(hub, "/v1/hub/password-reset", #"{"email":"ADA@example.org"}"#)
            #expect(asked.status == 202 && asked.json == ["sent": true, "validMinutes": 10])
            let unknown = try await Self.slow(hub, "/v1/hub/password-reset", #"{"email":"nobody@example.org"}"#)
            #expect(unknown.status == 202 && unknown.body == asked.body, "the answer does not tell which addresses have accounts")
            #expect(await mailer.deliverDue() == (1, 0))
            let mail = try #require(try smtp.messages().last)
            #expect(mail.to == ["ada@example.org"] && mail.subject == "Your password reset code")
            let code = try Self.code(in: smtp, to: "ada@example.org")
            #expect(try await hub.hub.mail.mailOutbox().allSatisfy { $0.sentMillis != nil }, "nothing was queued for the unknown address")

            let wrongCode = String(code.reversed()) == code ? "0000000" : String(code.reversed())
            let refused = try await Self.slow(hub, "/v1/hub/password-reset/confirm",
                                              #"{"email":"ada@example.org","code":"\#(wrongCode)","password":"a brand new secret"}"#)
            #expect(refused.status == 400 && refused.errorCode == "invalid_code" && refused.json?["error"]?["field"] == "$.code")
            let done = try await Self.slow(hub, "/v1/hub/password-reset/confirm",
                                           #"{"email":"ada@example.org","code":"\#(code)","password":"a brand new secret"}"#)
            #expect(done.status == 204)
            #expect(try await hub.request("GET", "/v1/hub/me", token: oldToken).status == 401, "every device is signed out")
            _ = try await hub.login("ada@example.org", device: "phone", password: "a brand new secret")
            let usedUp = try await Self.slow(hub, "/v1/hub/password-reset/confirm",
                                             #"{"email":"ada@example.org","code":"\#(code)","password":"yet another secret"}"#)
            #expect(usedUp.errorCode == "invalid_code")

            // Five wrong tries void the code, the right one included afterwards.
            _ = try await Self.slow(hub, "/v1/hub/password-reset", #"{"email":"ada@example.org"}"#)
            #expect(await mailer.deliverDue() == (1, 0))
            let second = try Self.code(in: smtp, to: "ada@example.org")
            let other = second == "1234567" ? "7654321" : "1234567"
            for _ in 0..<HubStore.maxResetAttempts {
                let wrong = try await Self.slow(hub, "/v1/hub/password-reset/confirm", #"{"email":"ada@example.org","code":"\#(other)","password":"yet another secret"}"#)
                #expect(wrong.errorCode == "invalid_code")
            }
            let exhausted = try await Self.slow(hub, "/v1/hub/password-reset/confirm", #"{"email":"ada@example.org","code":"\#(second)","password":"yet another secret"}"#)
            #expect(exhausted.errorCode == "invalid_code")

            // A code lasts 10 minutes on the hub's clock.
            _ = try await Self.slow(hub, "/v1/hub/password-reset", #"{"email":"ada@example.org"}"#)
            #expect(await mailer.deliverDue() == (1, 0))
            let third = try Self.code(in: smtp, to: "ada@example.org")
            hub.clock.advance(10 * 60 - 5 + 0.001)  // with the 5 s the request took to answer: just past 10 minutes
            let expired = try await Self.slow(hub, "/v1/hub/password-reset/confirm", #"{"email":"ada@example.org","code":"\#(third)","password":"yet another secret"}"#)
            #expect(expired.errorCode == "invalid_code")
            _ = try await hub.login("ada@example.org", device: "phone", password: "a brand new secret")
        }
    }

    @Test("an invitation to an address without an account is mailed with its code; who registers with that address finds it and accepts it", .needs("debian-python:aiosmtpd"), arguments: HubBackend.available)
    func invitationByEmail(backend: HubBackend) async throws {
        let smtp = try await SMTPTestServer()
        defer { smtp.stop() }
        try await HubTestServer.start(backend).use { hub in
            let ada = try #require(try await Self.register(hub, "ada@example.org").json?["token"]?.stringValue)
            let space = "6f1c1a52-8d3e-4b7a-9c0d-2e5f7a9b1c3d"
            #expect(try await hub.request("PUT", "/v1/hub/spaces/\(space)", token: ada, json: #"{"name":"Ema"}"#).status == 201)
            let invited = try await hub.request("POST", "/v1/hub/spaces/\(space)/invitations", token: ada, json: #"{"role":"editor","email":"Cy@Example.org"}"#)
            #expect(invited.status == 201 && invited.json?["invitee"] == nil)
            #expect(await Self.mailer(hub, smtp).deliverDue() == (1, 0))
            let mail = try #require(try smtp.messages().last)
            #expect(mail.to == ["cy@example.org"] && mail.subject == "Ada Lovelace invites you to share \"Ema\"")
            #expect(mail.body.contains(try #require(invited.json?["code"]?.stringValue)))
            let pending = try await hub.request("GET", "/v1/hub/spaces/\(space)/invitations", token: ada)
            #expect(pending.json?["invitations"]?.arrayValue?.first?["email"] == "cy@example.org")

            let cy = try #require(try await Self.register(hub, "cy@example.org", first: "Cy").json?["token"]?.stringValue)
            let mine = try await hub.request("GET", "/v1/hub/invitations", token: cy)
            let invitation = try #require(mine.json?["invitations"]?.arrayValue?.first)
            #expect(invitation["spaceName"] == "Ema" && invitation["inviter"]?["name"] == "ada@example.org")
            let accepted = try await hub.request("POST", "/v1/hub/invitations/\(invitation["id"]!.stringValue!)/accept", token: cy, json: "{}")
            #expect(accepted.status == 200 && accepted.json?["role"] == "editor")
            // A registered person invited by address is addressed by account, and mailed too.
            let bob = try #require(try await Self.register(hub, "bob@example.org", first: "Bob").json?["token"]?.stringValue)
            let toBob = try await hub.request("POST", "/v1/hub/spaces/\(space)/invitations", token: ada, json: #"{"role":"viewer","email":"bob@example.org"}"#)
            #expect(toBob.json?["invitee"]?["name"] == "bob@example.org")
            #expect(try await hub.request("GET", "/v1/hub/invitations", token: bob).json?["invitations"]?.arrayValue?.count == 1)
            #expect(await Self.mailer(hub, smtp).deliverDue() == (1, 0))
        }
    }
}
