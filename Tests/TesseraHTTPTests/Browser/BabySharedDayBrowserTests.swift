import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Two parents, two phones, one child (issue 41), with real processes only: a hub with open
/// registration (`tessera serve`, role hub), Ada's and Bob's devices (each `tessera serve` on its own
/// data directory, the baby diary's `.so` by dlopen, the virtual clock at 2026-03-02T08:00Z), and a
/// real headless Chromium for each. Ada's page speaks Slovak, Bob's English.
///
/// Ada adds Ema, weighs and measures her (Growth in Slovak: the percentile sentence, her weight for
/// her length) and invites Bob by e-mail as a parent, all from her page. Bob's page says an
/// invitation waits, from "Ada Nováková (ada@example.org)"; he accepts it, and after a sync round
/// Ema's diary is on his phone with Ada's measurements, charted in English. Ada starts a breastfeed
/// on the left on her phone; once her round has sent it, Bob's device has it through the hub's long
/// poll (at its clock's next second) and his page shows that timer running; ten minutes later he stops it
/// on his phone, and Ada's glance says the last feed was on the left, 10 minutes long. Last, Ada
/// renames Ema (Bob's phone gets the new name) and revokes Bob's access (his phone drops Ema at its
/// next periodic round, 15 minutes on). A device's own rounds run when its clock moves (`POST /v1/clock/advance`, a change's round 2 s after it). At each
/// step, at phone and desktop size, nothing meant for developers is on either page and nothing is
/// wider than the screen; the screenshots are artifacts/baby-shared-*-phone.png and -desktop.png.
@Suite(.needs("chromium")) struct BabySharedDayBrowserTests {
    static let password = "correct horse battery\n"

    /// One parent's device, served: its port, admin token and page.
    struct Phone {
        let serve: ServeProcess
        let base: String
        let admin: String

        init(_ device: BabyInvitationsBrowserTests.Device) async throws {
            serve = try await ServeProcess.start(device.workspace)
            base = "http://127.0.0.1:\(serve.port)"
            admin = try #require(serve.adminToken)
        }

        func call(_ operation: String, _ body: String = "{}") async throws -> JSONValue {
            let response = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.baby/ops/\(operation)",
                                                           headers: [("Authorization", "Bearer \(admin)"), ("Content-Type", "application/json")],
                                                           body: Array(body.utf8))
            return try JSONValue(parsing: response.text)
        }

        /// Moves this device's clock a second at a time until `operation`'s answer satisfies
        /// `arrived`. Another device's change comes through the hub's long poll (docs/sync.md), which
        /// makes this device's round due at once; on a virtual clock a due round runs when the clock
        /// next moves. At most 120 steps (two minutes of the device's time, well inside the hub's
        /// five minutes of allowed drift); the 100 ms between them give the long poll its answer.
        func waitFor(_ what: String, _ operation: String, _ body: String, _ arrived: (JSONValue) -> Bool) async throws {
            for _ in 0..<120 {
                if arrived(try await call(operation, body)) { return }
                try await Task.sleep(for: .milliseconds(100))
                try await advance("1s")
            }
            Issue.record("\(base): \(what) did not arrive")
        }

        /// Moves this device's clock; what falls due on the way (its sync rounds among it) runs before the answer.
        func advance(_ by: String) async throws {
            let response = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/clock/advance",
                                                           headers: [("Authorization", "Bearer \(admin)"), ("Content-Type", "application/json")],
                                                           body: Array(#"{"by": "\#(by)"}"#.utf8))
            #expect(response.status == 200, "the clock moved by \(by): \(response.text)")
        }
    }

    /// Signs in with the admin token after choosing the console's language on the sign-in page.
    static func signIn(_ page: BrowserPage, at base: String, with token: String, language: String) throws {
        try page.navigate(base + "/")
        try page.waitFor("document.body.dataset.signIn === 'shown'", "the sign-in page")
        if try page.evaluate("document.documentElement.lang") != .string(language) {
            // Choosing a language reloads the page: the marker goes with the old document.
            try page.evaluate("window.beforeTheReload = true")
            try page.choose(language, in: "language")
            try page.waitFor("!window.beforeTheReload && document.documentElement.lang === '\(language)' && document.body.dataset.signIn === 'shown'",
                             "the sign-in page in \(language)")
        }
        try page.evaluate("document.getElementById('token-details').open = true")
        try page.type(token, into: "token-input")
        try page.click("#token-form button[type=submit]")
        try page.waitFor("document.body.dataset.ready === 'true'", "the console to load")
        try page.navigate(base + "/ui/cz.tessera.baby/")
        try page.waitFor("document.body.dataset.ready === 'true' && document.documentElement.lang === '\(language)'", "the diary's page in \(language)")
    }

    // The care page's checks and text helpers (BabyCareBrowserTests): the same page, the same rules.
    static func looksRight(_ page: BrowserPage, _ step: String) throws { try BabyCareBrowserTests.looksRight(page, step) }
    static func text(_ selector: String) -> String { BabyCareBrowserTests.text(selector) }
    static let status = BabyCareBrowserTests.status

    @Test(.hangWatchdog) func adaAndBobShareEmasDayFromTheirOwnPhones() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let hubWorkspace = FixtureWorkspace("baby-shared-hub")
        // The hub on the system clock, as a deployed one: the phones' virtual minutes stay in its past
        // (a virtual hub clock left at their start would refuse their changes once 5 minutes ahead).
        hubWorkspace.writeDeployment(plugins: [], clock: "system", extra: ["role": "hub", "hub": ["registration": "open"]])
        let hub = try await ServeProcess.start(hubWorkspace)
        defer { hub.process.terminate() }
        let adaDevice = try BabyInvitationsBrowserTests.Device("shared-ada", hubPort: hub.port)
        let bobDevice = try BabyInvitationsBrowserTests.Device("shared-bob", hubPort: hub.port)
        try await adaDevice.tessera(["sync", "register", "ada@example.org", "--first-name", "Ada", "--surname", "Nováková",
                                     "--device", "Ada's phone", "--accept-terms"], input: Self.password)
        try await bobDevice.tessera(["sync", "register", "bob@example.org", "--first-name", "Bob", "--surname", "Novák",
                                     "--device", "Bob's phone", "--accept-terms"], input: Self.password)
        let ada = try await Phone(adaDevice)
        defer { ada.serve.process.terminate() }
        let bob = try await Phone(bobDevice)
        defer { bob.serve.process.terminate() }
        /// A sync round on each device: Ada's first, then Bob's (a change's round waits 2 s).
        func roundsOnBoth() async throws {
            try await ada.advance("3s")
            try await bob.advance("3s")
        }

        let adaBrowser = try await HeadlessChromium.launch(executable: executable)
        defer { adaBrowser.quit() }
        let bobBrowser = try await HeadlessChromium.launch(executable: executable)
        defer { bobBrowser.quit() }
        let adaPage = try await onThread { try BrowserPage(adaBrowser) }
        let bobPage = try await onThread { try BrowserPage(bobBrowser) }

        // Ada, in Slovak: Ema added from the page.
        try await onThread {
            try adaPage.use(.phone)
            try Self.signIn(adaPage, at: ada.base, with: ada.admin, language: "sk")
            try adaPage.waitFor("!document.getElementById('child-form').hidden", "the form to add a child, open by itself")
            try adaPage.type("Ema", into: "child-name")
            try adaPage.evaluate("document.getElementById('child-birth').value = '2025-09-01'")
            try adaPage.choose("girl", in: "child-sex")
            try adaPage.click("#child-form button[type=submit]")
            try adaPage.waitFor("\(Self.status) === 'Ema je teraz v denníku.'", "Ema added, in Slovak")
            #expect(try adaPage.evaluate("\(Self.text("#children")).includes('Ema · nar. 1. 9. 2025 · ') && \(Self.text("#children")).includes('vaša rola: vlastník')") == true)
        }

        // Growth in Slovak: a weight, then a length lying down, and her weight for her length.
        try await onThread {
            try adaPage.openDiaryTab("growth")
            #expect(try adaPage.evaluate("document.getElementById('kind').selectedOptions[0].textContent") == "Váha (kg)")
            try adaPage.type("7.4", into: "value")
            try adaPage.click("#measurement-form button[type=submit]")
            try adaPage.waitFor("\(Self.status) === 'Meranie je zapísané.'", "the weight added")
            try adaPage.waitFor("document.querySelectorAll('#chart circle').length === 1", "the weight on the chart")
            #expect(try adaPage.evaluate("document.getElementById('chart-title').textContent") == "Váha podľa veku")
            #expect(try adaPage.evaluate(Self.text("#growth-latest"))
                    == "Naposledy: 2. 3. 2026: 7,4 kg (55. percentil). Medzi 3. a 97. percentilom, kde je väčšina detí.")
            try adaPage.choose("height", in: "kind")
            try adaPage.waitFor("!document.getElementById('position-field').hidden", "the position offered for a length")
            try adaPage.evaluate("document.getElementById('value').value = ''")
            try adaPage.type("66.5", into: "value")
            try adaPage.choose("lying", in: "position")
            try adaPage.click("#measurement-form button[type=submit]")
            try adaPage.waitFor("\(Self.status) === 'Meranie je zapísané.'", "the length added")
            try adaPage.choose("weight-for-length-height", in: "indicator")
            // anthro_zscores(sex = 2, age = 182, weight = 7.4, lenhei = 66.5, measure = "l"): zwfl −0.03, the 49th percentile.
            try adaPage.waitFor("""
                document.querySelector('#chart circle title')?.textContent.replace(/[\\u00a0\\u202f]/g, ' ') === '2. 3. 2026: 7,4 kg pri 66,5 cm (49. percentil)'
                """, "her weight for her length, in Slovak")
            #expect(try adaPage.evaluate("document.getElementById('chart-title').textContent") == "Váha podľa dĺžky alebo výšky")
            try Self.looksRight(adaPage, "Ada's growth in Slovak")
            try adaPage.screenshots("baby-shared-growth-sk", in: ConsoleBrowserTests.artifacts)
            try adaPage.use(.phone)
        }
        // Ema's space reaches the hub with the round after her records.
        try await roundsOnBoth()

        // Ada invites Bob by his e-mail address as a parent.
        try await onThread {
            try adaPage.openDiaryTab("sharing")
            try adaPage.type("bob@example.org", into: "invite-email")
            try adaPage.choose("parent", in: "invite-level")
            try adaPage.click("#invite-form button[type=submit]")
            try adaPage.waitFor("\(Self.status) === 'Pozvánka odišla na bob@example.org.'", "the invitation sent, in Slovak")
            try Self.looksRight(adaPage, "Ada invited Bob")
        }

        // Bob, in English: the invitation names Ada, he accepts it, and Ema arrives with the next round.
        try await onThread {
            try bobPage.use(.phone)
            try Self.signIn(bobPage, at: bob.base, with: bob.admin, language: "en")
            try bobPage.waitFor("document.getElementById('invitations-hint-text').textContent === '1 invitation to share a child is waiting for you.'",
                                "the overview's line about the invitation")
            try bobPage.click("#invitations-hint a")
            try bobPage.waitFor("document.getElementById('invitations').innerText.includes('Ema from Ada Nováková (ada@example.org) — the invitation expires ')",
                                "the invitation, naming Ada")
            try Self.looksRight(bobPage, "Bob's invitation")
            try bobPage.click("#invitations button[aria-label=\"Accept the invitation to Ema from Ada Nováková (ada@example.org)\"]")
            try bobPage.waitFor("\(Self.status).startsWith('Invitation accepted: Ema')", "the invitation accepted")
        }
        try await roundsOnBoth()
        try await onThread {
            _ = try bobPage.send("Page.reload")
            try bobPage.waitFor("document.body.dataset.ready === 'true' && document.getElementById('child').selectedOptions[0]?.textContent === 'Ema'",
                                "Ema on Bob's phone")
            try bobPage.openDiaryTab("overview")
            try bobPage.waitFor("\(Self.text("#children")).includes('your role: parent')", "Bob a parent of Ema")
            try bobPage.openDiaryTab("growth")
            try bobPage.waitFor("document.querySelectorAll('#chart circle').length === 1", "Ada's weight on Bob's chart")
            #expect(try bobPage.evaluate("document.getElementById('chart-title').textContent") == "Weight for age")
            #expect(try bobPage.evaluate(Self.text("#growth-latest"))
                    == "Latest: Mar 2, 2026: 7.4 kg (percentile 55). Between the 3rd and 97th percentile, where most children are.")
            try Self.looksRight(bobPage, "Ada's measurements on Bob's phone")
            try bobPage.screenshots("baby-shared-growth-en", in: ConsoleBrowserTests.artifacts)
            try bobPage.use(.phone)
        }

        // Ada starts a breastfeed on the left on her phone.
        try await onThread {
            try adaPage.openDiaryTab("care")
            try adaPage.click("#care-start-feed-left")
            try adaPage.waitFor("\(Self.status) === 'Časovač beží: dojčenie, ľavý prs.'", "the feed's timer started on Ada's phone")
        }
        try await ada.advance("3s")
        let ema = try #require(try await ada.call("children-list")["children"]?.arrayValue?.first?["id"]?.stringValue)
        try await bob.waitFor("Ada's feed", "care-list", #"{"childId": "\#(ema)"}"#) { $0["running"]?.arrayValue?.count == 1 }

        // Bob's phone shows it running.
        try await onThread {
            try bobPage.openDiaryTab("care")
            try bobPage.waitFor("document.querySelectorAll('#care-running li[data-kind=feed]').length === 1", "Ada's feed running on Bob's phone")
            let running = try bobPage.evaluate(Self.text("#care-running li[data-kind=feed] .care-elapsed")).stringValue ?? ""
            #expect(running.hasPrefix("Breastfeed, left side — running for "), "\(running)")
            #expect(try bobPage.evaluate("document.getElementById('care-start-feed-left').hidden") == true, "no second feed offered")
            try Self.looksRight(bobPage, "Ada's feed on Bob's phone")
            try bobPage.screenshots("baby-shared-care-en", in: ConsoleBrowserTests.artifacts)
            try bobPage.use(.phone)
        }

        // Ten minutes later on both clocks, Bob stops it on his phone.
        try await ada.advance("10m")
        try await bob.advance("10m")
        try await onThread {
            try bobPage.openDiaryTab("overview")
            try bobPage.openDiaryTab("care")
            try bobPage.waitFor("document.querySelectorAll('#care-running li[data-kind=feed]').length === 1", "the feed still running")
            try bobPage.click("#care-running li[data-kind=feed] button[type=submit]")
            try bobPage.waitFor("\(Self.status).startsWith('Recorded: breastfeed, left side, 10 min')", "the feed stopped on Bob's phone")
        }
        try await bob.advance("3s")
        try await ada.waitFor("the feed Bob stopped", "care-list", #"{"childId": "\#(ema)"}"#) { $0["running"] == [] }

        // Ada's glance: the feed Bob stopped, on the left, 10 minutes long.
        try await onThread {
            try adaPage.openDiaryTab("overview")
            try adaPage.openDiaryTab("care")
            try adaPage.waitFor("document.querySelectorAll('#care-running > li').length === 0", "no timer running on Ada's phone")
            try adaPage.waitFor("\(Self.text("#care-glance li[data-kind=feed]")).startsWith('Posledné kŕmenie pred ')", "the last feed at a glance")
            let glance = try adaPage.evaluate(Self.text("#care-glance li[data-kind=feed]")).stringValue ?? ""
            #expect(glance.hasSuffix(": dojčenie, ľavý prs, 10 min."), "\(glance)")
            try Self.looksRight(adaPage, "the feed Bob stopped, on Ada's phone")
            try adaPage.screenshots("baby-shared-care-sk", in: ConsoleBrowserTests.artifacts)
        }

        // Both devices hold the same feed: started by Ada, 10 minutes long, ended.
        let emaAtBob = try #require(try await bob.call("children-list")["children"]?.arrayValue?.first?["id"]?.stringValue)
        #expect(ema == emaAtBob)
        for phone in [ada, bob] {
            let entries = try await phone.call("care-list", #"{"childId": "\#(ema)"}"#)["entries"]?.arrayValue ?? []
            let feeds = entries.filter { $0["kind"] == "feed" }
            #expect(feeds.count == 1 && feeds.first?["side"] == "left" && feeds.first?["endedAt"] != nil && feeds.first?["endedAt"] != .null,
                    "\(phone.base): \(entries)")
        }
        // UC8 and UC31 from Ada's page: she renames Ema, and the new name reaches Bob's phone; then
        // she revokes Bob's access, and his phone drops Ema with its next round.
        try await onThread {
            try adaPage.openDiaryTab("overview")
            try adaPage.click("#child-edit-open")
            try adaPage.waitFor("!document.getElementById('child-edit').hidden", "Ema's details")
            try adaPage.evaluate("document.getElementById('child-edit-name').value = ''")
            try adaPage.type("Ema Marie", into: "child-edit-name")
            try adaPage.click("#child-edit-form button[type=submit]")
            try adaPage.waitFor("\(Self.status) === 'Údaje dieťaťa Ema Marie sú uložené.'", "the new name saved, in Slovak")
        }
        try await ada.advance("3s")
        try await bob.waitFor("Ema's new name", "children-list", "{}") { $0["children"]?.arrayValue?.first?["name"] == "Ema Marie" }
        try await onThread {
            try adaPage.openDiaryTab("sharing")
            try adaPage.waitFor("document.querySelectorAll('#members button').length === 1", "Bob among Ema's members, with Revoke")
            try adaPage.click("#members button")
            try adaPage.waitFor("\(Self.status) === 'Prístup je odobratý.'", "Bob's access revoked, in Slovak")
            try Self.looksRight(adaPage, "Bob's access revoked")
        }
        // A revocation is no change in the space, so the hub's long poll does not wake Bob's phone:
        // it learns of it at its next periodic round (every 15 minutes by default).
        try await bob.advance("15m")
        try await bob.waitFor("Ema dropped", "children-list", "{}") { $0["children"] == [] }
        try await onThread {
            _ = try bobPage.send("Page.reload")
            try bobPage.waitFor("document.body.dataset.ready === 'true' && !document.getElementById('child-form').hidden",
                                "Bob's page without Ema, offering to add a child")
            #expect(try bobPage.developerText() == [])
        }
        _ = try await ada.serve.terminate()
        _ = try await bob.serve.terminate()
        _ = try await hub.terminate()
    }
}
