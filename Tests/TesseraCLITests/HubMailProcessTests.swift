import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// `tessera serve` on a hub deployment with open registration and `providers.mail`, as its own
/// process, with a real SMTP server (python3-aiosmtpd) on loopback: a person registers over HTTP,
/// asks for a password reset, gets the 7-digit code by mail, and sets a new password with it.
/// The hub runs on the system clock here, so each reset answer really takes 5 s.
@Suite(.serialized, .hangWatchdog, .needs("debian-python:aiosmtpd")) struct HubMailProcessTests {
    static func post(_ port: String, _ path: String, _ json: String) async throws -> (Int, JSONValue?) {
        let response = try await RawHTTPClient.request("POST", url: "http://127.0.0.1:\(port)\(path)", json: json)
        return (response.status, response.json)
    }

    @Test func registerThenResetThePasswordByAMailedCode() async throws {
        let smtp = try await SMTPTestServer()
        defer { smtp.stop() }
        let ws = FixtureWorkspace("hub-mail")
        ws.writeDeployment(plugins: [], clock: "system", extra: [
            "role": "hub", "hub": ["registration": "open"],
            "providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "system"],
                          "mail": ["kind": "smtp", "host": "127.0.0.1", "port": smtp.port, "from": "hub@tessera.test"]],
        ])
        let (process, text) = try await ServeTests.serve(ws)
        defer { if process.isRunning { process.terminate() } }
        let port = try #require(text.firstMatch(of: /127\.0\.0\.1:(\d+)\//).map { String($0.1) })

        let (registered, login) = try await Self.post(port, "/v1/hub/register", """
            {"firstName":"Ada","surname":"Lovelace","email":"ada@example.org","password":"correct horse battery","acceptTerms":true,"device":"cli"}
            """)
        #expect(registered == 201 && login?["person"]?["name"] == "ada@example.org")
        let (asked, answer) = try await Self.post(port, "/v1/hub/password-reset", #"{"email":"ada@example.org"}"#)
        #expect(asked == 202 && answer == ["sent": true, "validMinutes": 10])
        let mail = try #require(try await smtp.waitForMessages(1).first)  // the serving hub's mailer sends it
        #expect(mail.to == ["ada@example.org"] && mail.from == "hub@tessera.test")
        let code = String(try #require(mail.body.split(whereSeparator: { !$0.isNumber }).first { $0.count == 7 }))
        let (confirmed, refusal) = try await Self.post(port, "/v1/hub/password-reset/confirm",
                                                       #"{"email":"ada@example.org","code":"\#(code)","password":"a brand new secret"}"#)
        #expect(confirmed == 204, "code \(code) from \(mail.body): \(String(describing: refusal))")
        let (loggedIn, _) = try await Self.post(port, "/v1/hub/login", #"{"email":"ada@example.org","password":"a brand new secret","device":"cli"}"#)
        #expect(loggedIn == 201)
        process.terminate()
        _ = await process.output()  // to its end, so a last line never blocks it on a full pipe
        #expect(await process.exitStatus() == 0)
    }
}
