import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// A person new to the hub, on a device that names one (issue 40, "a sign-in they know"), in a real
/// headless Chromium against real `tessera serve` processes (a hub with open registration, and the
/// device with the finance module): she picks Slovak, finds "Create an account" under the sign-in
/// form, forgets the terms and then types a short password (a Slovak sentence each time, the field
/// marked), makes the account and lands on her modules; signed out, the page no longer offers a
/// second account on her device, and she signs in with her e-mail. At phone and desktop size, with
/// no developer text and no console error on the way.
@Suite(.needs("chromium")) struct RegisterBrowserTests {
    static let artifacts = Fixtures.repositoryRoot + "/artifacts"

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func aPersonNewToTheHubMakesHerAccountFromTheSignInPageInSlovak() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let hub = try await SyncAccountProcessesTests.startHub(registration: "open")
        defer { hub.process.terminate() }
        let ws = FixtureWorkspace("http-browser-register")
        try ConsoleBrowserTests.copyShippedManifest("finance", into: ws)
        ws.writeDeployment(plugins: [["id": "cz.tessera.finance", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]],
                           extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"],
                                                 "sync": ["hub": "http://127.0.0.1:\(hub.port)"]]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }

        try await onThread {
            try page.navigate(base + "/")
            try page.waitFor("document.body.dataset.signIn === 'shown'", "the console's first page")
            try page.use(.phone)
            try page.choose("sk", in: "language")
            try page.waitFor("document.documentElement.lang === 'sk' && document.body.dataset.signIn === 'shown'", "the page in Slovak")
            try page.waitFor("!document.getElementById('register-offer').hidden", "the offer to create an account")
            try page.click("#show-register")
            try page.waitFor("!document.getElementById('register').hidden && document.getElementById('sign-in').hidden", "the registration form")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('register-heading').textContent") } == "Vytvorte si účet")
        #expect(try await onThread { try page.evaluate("document.getElementById('register-help').textContent") } ==
                .string("Váš účet je uložený na 127.0.0.1:\(hub.port). Prihlasujete sa ním na všetkých svojich zariadeniach."))
        // What a password manager needs to offer to keep the new account.
        for (field, autocomplete) in [("register-first-name", "given-name"), ("register-surname", "family-name"),
                                      ("register-email", "username"), ("register-password", "new-password")] {
            #expect(try await onThread { try page.evaluate("document.getElementById('\(field)').autocomplete") } == .string(autocomplete))
        }
        #expect(try await onThread { try page.fitsItsWidth() })

        // The terms forgotten: a sentence in Slovak, the box marked.
        try await onThread {
            try page.type("Zuzana", into: "register-first-name")
            try page.type("Nováková", into: "register-surname")
            try page.type("Zuzana@Example.org", into: "register-email")
            try page.type("správne heslo", into: "register-password")
            try page.click("#register-form button[type=submit]")
            try page.waitFor("document.getElementById('register-error').textContent !== ''", "the refusal")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('register-error').textContent") } ==
                "Na vytvorenie účtu je potrebné súhlasiť s podmienkami používania hubu.")
        #expect(try await onThread { try page.evaluate("document.getElementById('register-terms').getAttribute('aria-invalid')") } == "true")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.screenshots("register-refused", in: Self.artifacts) }

        // A password too short.
        try await onThread {
            try page.click("#register-terms")
            try page.evaluate("document.getElementById('register-password').value = ''")
            try page.type("krátke", into: "register-password")
            try page.click("#register-form button[type=submit]")
            try page.waitFor("document.getElementById('register-error').textContent.includes('8')", "the short password's sentence")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('register-error').textContent") } == "Heslo musí mať aspoň 8 znakov.")
        #expect(try await onThread { try page.developerText() } == [])

        // The account made: signed in, her modules.
        try await onThread {
            try page.evaluate("document.getElementById('register-password').value = ''")
            try page.type("správne heslo", into: "register-password")
            try page.click("#register-form button[type=submit]")
            try page.waitFor("document.body.dataset.ready === 'true'", "the console after registering")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('host-line').textContent") } == "Prihlásený(á): zuzana@example.org")
        #expect(try await onThread { try page.evaluate("document.getElementById('module-list').innerText").stringValue } == "Financie")
        #expect(try await onThread { try page.evaluate("document.getElementById('register').hidden") } == true)
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.screenshots("register-done", in: Self.artifacts) }

        // Signed out: the device is hers now, so no second account is offered; her e-mail signs her in.
        try await onThread {
            try page.click("#sign-out")
            try page.waitFor("document.body.dataset.signIn === 'shown' && !document.getElementById('sign-in').hidden", "the sign-in form")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('register-offer').hidden") } == true)
        try await onThread {
            try page.type("zuzana@example.org", into: "sign-in-name")
            try page.type("správne heslo", into: "sign-in-password")
            try page.click("#sign-in-form button[type=submit]")
            // (`ready` is still set from before she signed out: wait for the console itself.)
            try page.waitFor("document.body.dataset.signIn === undefined && document.getElementById('host-line').textContent !== ''",
                             "the console after signing in")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('host-line').textContent") } == "Prihlásený(á): zuzana@example.org")
        #expect(try await onThread { try page.developerText() } == [])
        _ = try await serve.terminate()
        _ = try await hub.terminate()
    }
}
