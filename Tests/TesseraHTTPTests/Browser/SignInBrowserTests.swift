import Foundation
import Testing
import TesseraSDK
import TesseraHTTP
import TesseraTestFixtures

/// A person's first hour with the console, in a real headless Chromium against the real
/// `tessera serve` (the finance module enabled): a new device asks for its first account; the person
/// makes it in Czech, lands on their modules, signs out, mistypes the password (a Czech sentence,
/// no code), signs in, and sees the module titled in Czech. A user account sees no operator view.
/// At phone and desktop size, with no developer text and no console error on the way.
@Suite(.needs("chromium")) struct SignInBrowserTests {
    static let artifacts = Fixtures.repositoryRoot + "/artifacts"

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func aPersonMakesTheFirstAccountSignsOutAndBackInInCzech() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-sign-in")
        try ConsoleBrowserTests.copyShippedManifest("finance", into: ws)
        ws.writeDeployment(plugins: [["id": "cz.tessera.finance", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
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
            // The person picks Czech in the header; the page reloads in it.
            try page.choose("cs", in: "language")
            try page.waitFor("document.documentElement.lang === 'cs' && document.body.dataset.signIn === 'shown'", "the page in Czech")
            try page.waitFor("!document.getElementById('first-account').hidden", "the first account's form")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('first-account-heading').textContent") } == "Vytvořte si účet")
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("sign-in-first-account", in: Self.artifacts) }

        // A password too short: a sentence in Czech, at the form.
        try await onThread {
            try page.type("Jana", into: "first-name")
            try page.type("krátké", into: "first-password")
            try page.click("#first-account-form button[type=submit]")
            try page.waitFor("document.getElementById('first-account-error').textContent !== ''", "the refusal")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('first-account-error').textContent") } == "Heslo musí mít alespoň 8 znaků.")
        #expect(try await onThread { try page.developerText() } == [])

        // The account made: signed in, the person's modules titled in Czech.
        try await onThread {
            try page.evaluate("document.getElementById('first-password').value = ''")
            try page.type("správné heslo", into: "first-password")
            try page.click("#first-account-form button[type=submit]")
            try page.waitFor("document.body.dataset.ready === 'true'", "the console after the first account")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('module-list').innerText").stringValue } == "Finance")
        #expect(try await onThread { try page.evaluate("document.getElementById('host-line').textContent") } == "Přihlášen(a): Jana")
        // The first account is the device's admin: the operator's view is there.
        #expect(try await onThread { try page.evaluate("document.getElementById('operator').hidden") } == false)
        #expect(try await onThread { try page.evaluate("document.cookie") } == "")  // HttpOnly: no script sees it
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.screenshots("console-modules", in: Self.artifacts) }

        // Signed out, then a wrong password, then the right one.
        try await onThread {
            try page.click("#sign-out")
            try page.waitFor("document.body.dataset.signIn === 'shown' && !document.getElementById('sign-in').hidden", "the sign-in form")
            try page.type("jana", into: "sign-in-name")
            try page.type("špatné heslo", into: "sign-in-password")
            try page.click("#sign-in-form button[type=submit]")
            try page.waitFor("document.getElementById('sign-in-error').textContent !== ''", "the wrong password's sentence")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('sign-in-error').textContent") } == "Jméno nebo heslo není správně.")
        #expect(try await onThread { try page.evaluate("document.getElementById('sign-in-name').autocomplete") } == "username")
        #expect(try await onThread { try page.evaluate("document.getElementById('sign-in-password').autocomplete") } == "current-password")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.screenshots("sign-in", in: Self.artifacts) }
        try await onThread {
            try page.evaluate("document.getElementById('sign-in-password').value = ''")
            try page.type("správné heslo", into: "sign-in-password")
            try page.click("#sign-in-form button[type=submit]")
            try page.waitFor("document.body.dataset.ready === 'true'", "the console after signing in")
            // The module's page knows her too (the cookie, no token anywhere).
            try page.navigate(base + "/ui/cz.tessera.finance/")
            try page.waitFor("location.pathname.startsWith('/ui/') && document.documentElement.lang === 'cs' && document.body.dataset.ready === 'true'",
                             "the finance page in Czech")
        }
        #expect(try await onThread { try page.evaluate("sessionStorage.getItem('tessera.token')") } == .null)
        #expect(try await onThread { try page.developerText() } == [])
        _ = try await serve.terminate()
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func aUserAccountSeesItsModulesButNotTheOperatorsView() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-sign-in-user")
        try ConsoleBrowserTests.copyShippedManifest("finance", into: ws)
        ws.writeDeployment(plugins: [["id": "cz.tessera.finance", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
        try LocalAccounts(dataDirectory: ws.dataDirectory).create(name: "Jana", password: "správné heslo", role: .admin)
        try LocalAccounts(dataDirectory: ws.dataDirectory).create(name: "Petr", password: "petrovo heslo", role: .user)
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try page.navigate(base + "/")
            try page.waitFor("document.body.dataset.signIn === 'shown' && !document.getElementById('sign-in').hidden", "the sign-in form")
            try page.type("Petr", into: "sign-in-name")
            try page.type("petrovo heslo", into: "sign-in-password")
            try page.click("#sign-in-form button[type=submit]")
            try page.waitFor("document.body.dataset.ready === 'true'", "the console")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('module-list').innerText").stringValue } == "Finance")
        #expect(try await onThread { try page.evaluate("document.getElementById('operator').hidden") } == true)
        #expect(try await onThread { try page.evaluate("document.getElementById('views').hidden") } == true)
        #expect(try await onThread { try page.developerText() } == [])
        _ = try await serve.terminate()
    }
}
