import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Guardians from the traveller's page (issue 39, "From the page"), with real processes only: a
/// hub (`tessera serve`, role hub), and ada's and bob's devices each serving its own console
/// (`tessera serve`, logged in to the hub). In a real headless Chromium, ada asks bob on her page;
/// bob sees the request on his and accepts it; ada's page then lists bob as her guardian and bob's
/// lists ada among those he guards (the pairing is two-way); ada removes him. On a device without a
/// hub the section says why guardians cannot be reached, in a sentence, with a link to how to
/// connect one — in the person's language. Screenshots artifacts/safetravel-guardians-*.png.
@Suite(.serialized, .needs("chromium")) struct SafeTravelGuardiansPageBrowserTests {
    static let artifacts = Fixtures.repositoryRoot + "/artifacts"

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func adaAsksBobOnHerPageBobAcceptsOnHisAndAdaRemovesHim() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let hub = try await SafeTravelGuardianBrowserTests.hubWithAdaAndBob("safetravel-guardians-hub")
        defer { hub.process.terminate() }
        let ada = try SafeTravelGuardianBrowserTests.Device("ada", hubPort: hub.port)
        let bob = try SafeTravelGuardianBrowserTests.Device("bob", hubPort: hub.port)
        for device in [ada, bob] {
            try await device.tessera(["sync", "login", device.name, "--device", "\(device.name)'s phone"], input: "correct horse battery\n")
            _ = try await device.call("account-setup", #"{"username": "\#(device.name)", "pin": "4826"}"#)
        }
        let adaServe = try await ServeProcess.start(ada.workspace)
        defer { adaServe.process.terminate() }
        let bobServe = try await ServeProcess.start(bob.workspace)
        defer { bobServe.process.terminate() }
        let adaBase = "http://127.0.0.1:\(adaServe.port)", bobBase = "http://127.0.0.1:\(bobServe.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let adaPage = try await onThread { try BrowserPage(browser) }
        let bobPage = try await onThread { try BrowserPage(browser) }
        let page = "/ui/cz.tessera.safetravel/"
        let loaded = "location.pathname === '\(page)' && document.body.dataset.ready === 'true'"
        let text: @Sendable (BrowserPage, String) async throws -> String = { tab, id in
            try await onThread { try tab.evaluate("document.getElementById('\(id)').innerText").stringValue ?? "" }
        }

        // ada asks bob, from her page.
        try await onThread {
            try ConsoleBrowserTests.signIn(adaPage, at: adaBase, with: try #require(adaServe.adminToken))
            try adaPage.navigate(adaBase + page)
            try adaPage.waitFor("\(loaded) && !document.getElementById('with-hub').hidden", "ada's guardians section")
        }
        #expect(try await onThread { try adaPage.evaluate("document.getElementById('no-guardians').hidden") } == false)
        try await onThread {
            try adaPage.type("bob", into: "guardian-username")
            try adaPage.click("#guardian-form button[type=submit]")
            try adaPage.waitFor("\(loaded) && document.getElementById('guardians').innerText.includes('bob')", "bob asked")
        }
        #expect(try await text(adaPage, "guardians").contains("bob — asked, no answer yet"))
        #expect(try await text(adaPage, "status") == "bob is asked. They become your guardian when they accept.")
        // Asking again is refused in a sentence, at the form.
        try await onThread {
            try adaPage.type("bob", into: "guardian-username")
            try adaPage.click("#guardian-form button[type=submit]")
            try adaPage.waitFor("document.getElementById('guardian-error').textContent !== ''", "the second request refused")
        }
        #expect(try await onThread { try adaPage.developerText() } == [])

        // bob sees the request on his page, and accepts it.
        try await onThread {
            try ConsoleBrowserTests.signIn(bobPage, at: bobBase, with: try #require(bobServe.adminToken))
            try bobPage.navigate(bobBase + page)
            try bobPage.waitFor("\(loaded) && document.getElementById('guardian-requests').innerText.includes('ada asks you')", "ada's request on bob's page")
            try bobPage.screenshots("safetravel-guardians-request", in: Self.artifacts)
            try bobPage.click("#guardian-requests button")  // the first button: Accept
            try bobPage.waitFor("\(loaded) && document.getElementById('guarded').innerText.includes('ada')", "ada among those bob guards")
        }
        #expect(try await text(bobPage, "guarded").contains("ada — you guard them"))
        #expect(try await onThread { try bobPage.developerText() } == [])
        #expect(try await onThread { try bobPage.fitsItsWidth() })

        // ada's page, loaded again, lists bob as her guardian.
        try await onThread {
            try adaPage.navigate(adaBase + page)
            try adaPage.waitFor("\(loaded) && document.getElementById('guardians').innerText.includes('bob — guards you')", "bob as ada's guardian")
        }
        #expect(try await onThread { try adaPage.evaluate("document.getElementById('no-guardians').hidden") } == true)
        try await onThread { try adaPage.screenshots("safetravel-guardians", in: Self.artifacts) }

        // ada removes him: both directions end.
        try await onThread {
            try adaPage.click("#guardians button")
            try adaPage.waitFor("\(loaded) && !document.getElementById('guardians').innerText.includes('bob')", "bob removed")
        }
        #expect(try await text(adaPage, "status") == "bob and you no longer guard each other.")
        #expect(try await onThread { try adaPage.developerText() } == [])
        _ = try await adaServe.terminate()
        _ = try await bobServe.terminate()
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func withoutAHubThePageSaysWhyAndLinksToHowToConnectOneInCzech() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("safetravel-guardians-no-hub")
        try ConsoleBrowserTests.copyShippedManifest("safetravel", into: ws)
        ws.writeDeployment(plugins: [["id": "cz.tessera.safetravel", "config": ["pinIterations": 1000] as [String: Any],
                                      "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "location": [:] as [String: Any],
                                                 "notifications": [:] as [String: Any]]]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        let setUp = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.safetravel/ops/account-setup",
                                                    headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                    body: Array(#"{"username": "ada", "pin": "4826"}"#.utf8))
        #expect(setUp.status == 200, "\(setUp.text)")
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try ConsoleBrowserTests.signIn(page, at: base, with: token)
            try page.evaluate("localStorage.setItem('tessera.language', 'cs')")
            try page.navigate(base + "/ui/cz.tessera.safetravel/")
            try page.waitFor("location.pathname.startsWith('/ui/') && document.body.dataset.ready === 'true' && !document.getElementById('no-hub').hidden",
                             "the sentence that a hub is missing")
        }
        let said = try await onThread { try page.evaluate("document.getElementById('no-hub').innerText").stringValue ?? "" }
        #expect(said.contains("musí být toto zařízení připojené k hubu") && said.contains("Jak připojit hub"), "\(said)")
        #expect(try await onThread { try page.evaluate("document.getElementById('with-hub').hidden") } == true)
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread {
            try page.use(.phone)
            try page.screenshots("safetravel-guardians-no-hub", in: Self.artifacts)
            try page.click("#no-hub a")
            try page.waitFor("location.pathname === '/console/help-hub.html' && document.body.dataset.ready === 'true'", "the help page")
        }
        #expect(try await onThread { try page.evaluate("document.querySelector('h1').textContent") } == "Připojení hubu")
        #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == "cs")
        try await onThread { try page.screenshots("help-hub", in: Self.artifacts) }
        _ = try await serve.terminate()
    }
}
