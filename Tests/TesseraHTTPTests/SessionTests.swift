import Foundation
import Testing
@testable import TesseraHTTP
import TesseraSDK
import TesseraTestFixtures

/// Signing in to the console with a name and a password (docs/console.md, "Signing in"): the
/// device's first account, the session cookie and what it lets through, signing out, the
/// throttle on wrong passwords, and requests from another site's page.
@Suite struct SessionTests {
    static let origin = [("Origin", "http://127.0.0.1")]

    /// The session cookie's `name=value` from a response's `Set-Cookie`.
    static func cookie(_ response: RawResponse) throws -> String {
        let header = try #require(response.headers["set-cookie"])
        return String(header.prefix { $0 != ";" })
    }

    @Test func theFirstAccountIsMadeOnceAndSignsInWithACookieThatIsHttpOnlyAndStrict() async throws {
        try await TestServer.start().use { server in
            let setup = try await server.request("GET", "/v1/session/setup", as: .none)
            #expect(setup.status == 200 && setup.json?["firstAccount"] == true, "\(setup.text)")
            // Nobody is signed in yet.
            #expect(try await server.request("GET", "/v1/session", as: .none).status == 401)

            let made = try await server.request("POST", "/v1/session/account", as: .none, json: #"{"name": "Jana", "password": "correct horse"}"#)
            #expect(made.status == 201, "\(made.text)")
            #expect(made.json?["role"] == "admin")
            let setCookie = try #require(made.headers["set-cookie"])
            #expect(setCookie.hasPrefix("tessera_session=") && setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict")
                    && setCookie.contains("Max-Age=2592000") && setCookie.contains("Path=/"))
            #expect(!setCookie.contains("Secure"))  // plain HTTP on loopback
            #expect(!made.text.contains("correct horse"))

            // A second "first" account is refused: the device has one.
            let again = try await server.request("POST", "/v1/session/account", as: .none, json: #"{"name": "Mallory", "password": "12345678"}"#)
            #expect(again.status == 409 && again.errorCode == "accounts_exist")
            #expect(try await server.request("GET", "/v1/session/setup", as: .none).json?["firstAccount"] == false)

            // The cookie stands for Jana: who she is, and the API as an admin.
            let cookie = try Self.cookie(made)
            let me = try await server.request("GET", "/v1/session", as: .none, headers: [("Cookie", cookie)])
            #expect(me.status == 200 && me.json?["name"] == "Jana" && me.json?["via"] == "session", "\(me.text)")
            #expect(try await server.request("GET", "/v1/plugins", as: .none, headers: [("Cookie", cookie)]).status == 200)

            // The file keeps a yescrypt hash, never the password; only its owner may read it.
            let file = server.root + "/data/accounts.json"
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.contains("$y$") && !text.contains("correct horse"))
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode == 0o600)
        }
    }

    @Test func signingInAndOutWithANameAndPasswordInAnyCase() async throws {
        try await TestServer.start().use { server in
            let accounts = LocalAccounts(dataDirectory: server.root + "/data")
            try accounts.create(name: "Jana", password: "correct horse", role: .admin)
            try accounts.create(name: "Petr", password: "battery staple", role: .user)

            let petr = try await server.request("POST", "/v1/session", as: .none, json: #"{"name": "PETR", "password": "battery staple"}"#)
            #expect(petr.status == 200 && petr.json?["role"] == "user", "\(petr.text)")
            let cookie = try Self.cookie(petr)
            // A user's session calls modules, but not the operator's routes.
            #expect(try await server.request("GET", "/v1/plugins", as: .none, headers: [("Cookie", cookie)]).status == 200)
            let clock = try await server.request("POST", "/v1/clock/advance", as: .none, headers: [("Cookie", cookie)] + Self.origin, json: #"{"by": "1m"}"#)
            #expect(clock.status == 403, "\(clock.text)")

            // The language is kept on the account.
            let language = try await server.request("PUT", "/v1/session/language", as: .none, headers: [("Cookie", cookie)], json: #"{"language": "sk"}"#)
            #expect(language.status == 204, "\(language.text)")
            #expect(try await server.request("GET", "/v1/session", as: .none, headers: [("Cookie", cookie)]).json?["language"] == "sk")

            // Signing out ends the session: the same cookie opens nothing any more.
            let out = try await server.request("DELETE", "/v1/session", as: .none, headers: [("Cookie", cookie)])
            #expect(out.status == 204 && out.headers["set-cookie"]?.contains("Max-Age=0") == true)
            #expect(try await server.request("GET", "/v1/plugins", as: .none, headers: [("Cookie", cookie)]).status == 401)

            // A wrong password and an unknown name get the same answer.
            let wrong = try await server.request("POST", "/v1/session", as: .none, json: #"{"name": "Jana", "password": "wrong one"}"#)
            let unknown = try await server.request("POST", "/v1/session", as: .none, json: #"{"name": "Nobody", "password": "wrong one"}"#)
            #expect(wrong.status == 401 && unknown.status == 401 && wrong.errorCode == "wrong_password" && unknown.errorCode == "wrong_password")
            #expect(wrong.headers["set-cookie"] == nil)
        }
    }

    @Test func fiveWrongPasswordsLockTheNameOnTheHostsClockAndTheWaitDoubles() async throws {
        try await TestServer.start().use { server in
            try LocalAccounts(dataDirectory: server.root + "/data").create(name: "Jana", password: "correct horse", role: .admin)
            let wrong = #"{"name": "jana", "password": "guess guess"}"#, right = #"{"name": "Jana", "password": "correct horse"}"#
            for _ in 0..<5 { #expect(try await server.request("POST", "/v1/session", as: .none, json: wrong).status == 401) }
            // Locked: even the right password waits, for 30 s of the host's clock.
            let locked = try await server.request("POST", "/v1/session", as: .none, json: right)
            #expect(locked.status == 429 && locked.errorCode == "too_many_attempts" && locked.headers["retry-after"] == "30", "\(locked.text)")
            #expect(try await server.request("POST", "/v1/clock/advance", json: #"{"by": "31s"}"#).status == 200)
            // One more wrong one: locked again, twice as long.
            #expect(try await server.request("POST", "/v1/session", as: .none, json: wrong).status == 401)
            #expect(try await server.request("POST", "/v1/session", as: .none, json: right).headers["retry-after"] == "60")
            #expect(try await server.request("POST", "/v1/clock/advance", json: #"{"by": "61s"}"#).status == 200)
            #expect(try await server.request("POST", "/v1/session", as: .none, json: right).status == 200)
        }
    }

    @Test func aSessionDoesNotLetAnotherSitesPageChangeAnything() async throws {
        try await TestServer.start(transport: .socket).use { server in
            try LocalAccounts(dataDirectory: server.root + "/data").create(name: "Jana", password: "correct horse", role: .admin)
            let cookie = try Self.cookie(try await server.request("POST", "/v1/session", as: .none,
                                                                  json: #"{"name": "Jana", "password": "correct horse"}"#))
            let evil = [("Cookie", cookie), ("Origin", "https://evil.example")]
            let crossSite = try await server.request("POST", "/v1/clock/advance", as: .none, headers: evil, json: #"{"by": "1m"}"#)
            #expect(crossSite.status == 403 && crossSite.errorCode == "cross_site", "\(crossSite.text)")
            let fetched = [("Cookie", cookie), ("Sec-Fetch-Site", "cross-site")]
            #expect(try await server.request("POST", "/v1/clock/advance", as: .none, headers: fetched, json: #"{"by": "1m"}"#).status == 403)
            // Signing in from another site's form is refused too (login CSRF).
            let signIn = try await server.request("POST", "/v1/session", as: .none, headers: [("Origin", "https://evil.example")],
                                                  json: #"{"name": "Jana", "password": "correct horse"}"#)
            #expect(signIn.status == 403)
            // The host's own page (same origin) may.
            let own = [("Cookie", cookie), ("Origin", "http://127.0.0.1:\(server.port)"), ("Sec-Fetch-Site", "same-origin")]
            #expect(try await server.request("POST", "/v1/clock/advance", as: .none, headers: own, json: #"{"by": "1m"}"#).status == 200)
        }
    }

    @Test func aSessionOutlivesARestartAndEndsAfterAMonthOnTheHostsClock() async throws {
        let data: String
        let cookie: String
        do {
            let server = try await TestServer.start()
            data = server.root + "/data"
            try LocalAccounts(dataDirectory: data).create(name: "Jana", password: "correct horse", role: .admin)
            cookie = try Self.cookie(try await server.request("POST", "/v1/session", as: .none, json: #"{"name": "Jana", "password": "correct horse"}"#))
            // A new store on the same folder (as after a restart) knows the session.
            let store = SessionStore(dataDirectory: data)
            let secret = String(cookie.dropFirst("tessera_session=".count))
            let now = server.host.clock.now()
            #expect(store.principal(for: secret, now: now)?.id == "Jana")
            #expect(store.principal(for: secret, now: now.addingTimeInterval(31 * 86400)) == nil)
            let sessions = try String(contentsOfFile: data + "/sessions.json", encoding: .utf8)
            #expect(!sessions.contains(secret))  // only its SHA-256
            await server.stop()
        }
    }

    @Test func theConsoleIconIsServedWithoutAToken() async throws {
        try await TestServer.start().use { server in
            let icon = try await server.request("GET", "/favicon.ico", as: .none)
            #expect(icon.status == 200 && icon.headers["content-type"]?.hasPrefix("image/svg+xml") == true)
            for language in ["cs", "sk", "en"] {
                let catalogue = try await server.request("GET", "/console/messages/\(language).json", as: .none)
                #expect(catalogue.status == 200 && catalogue.json?["signIn.heading"]?.stringValue != nil, "\(language)")
            }
        }
    }

    @Test func anAdminAddsAndRemovesAccountsAndARemovedAccountsSessionEndsAtOnce() async throws {
        try await TestServer.start().use { server in
            let accounts = LocalAccounts(dataDirectory: server.root + "/data")
            try accounts.create(name: "Jana", password: "correct horse", role: .admin)
            let jana = try Self.cookie(try await server.request("POST", "/v1/session", as: .none, json: #"{"name": "Jana", "password": "correct horse"}"#))
            let added = try await server.request("POST", "/v1/accounts", as: .none, headers: [("Cookie", jana)],
                                                 json: #"{"name": "Petr", "password": "battery staple", "role": "user"}"#)
            #expect(added.status == 201, "\(added.text)")
            let short = try await server.request("POST", "/v1/accounts", as: .none, headers: [("Cookie", jana)],
                                                 json: #"{"name": "Eva", "password": "short", "role": "user"}"#)
            #expect(short.status == 400 && short.errorCode == "weak_password" && !short.text.contains("short\""), "\(short.text)")
            let list = try await server.request("GET", "/v1/accounts", as: .none, headers: [("Cookie", jana)])
            #expect(list.json?["accounts"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["Jana", "Petr"])
            #expect(!list.text.contains("$y$"))

            // Petr, a user, may not manage accounts.
            let petr = try Self.cookie(try await server.request("POST", "/v1/session", as: .none, json: #"{"name": "Petr", "password": "battery staple"}"#))
            #expect(try await server.request("GET", "/v1/accounts", as: .none, headers: [("Cookie", petr)]).status == 403)
            // Jana cannot remove herself; she removes Petr, whose session ends at once.
            #expect(try await server.request("DELETE", "/v1/accounts/jana", as: .none, headers: [("Cookie", jana)]).errorCode == "own_account")
            #expect(try await server.request("DELETE", "/v1/accounts/Petr", as: .none, headers: [("Cookie", jana)]).status == 204)
            #expect(try await server.request("GET", "/v1/plugins", as: .none, headers: [("Cookie", petr)]).status == 401)

            // The CLI's change beside the running server counts at once too: Jana made a user.
            try accounts.remove(name: "Jana")
            try accounts.create(name: "Jana", password: "correct horse", role: .user)
            #expect(try await server.request("GET", "/v1/session", as: .none, headers: [("Cookie", jana)]).json?["role"] == "user")
        }
    }
}
