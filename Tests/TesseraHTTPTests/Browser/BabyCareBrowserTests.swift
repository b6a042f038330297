import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// A parent's morning in the baby diary's Daily care tab (Péče), from the page alone, on the default
/// deployment (no hub, the virtual clock at 2026-03-02T08:00Z, 9:00 in the module's Europe/Prague),
/// in a real headless Chromium against the real `tessera serve`. Jana makes the device's first
/// account in Czech, adds Ema and opens Péče: nothing recorded yet, said in sentences. She starts a
/// breastfeed on the left; the clock moves 12 minutes (`POST /v1/clock/advance`, never a sleep on
/// the wall clock), and after a reload the timer is still running at 12 min; she stops it, and the
/// glance says the last feed was 12 min ago on the left side. A wet nappy in one tap; a sleep
/// started, the clock moved 1 h 30 min, stopped: the glance and today's log say so, and the week's
/// summary has 1 feed and 1 h 30 min of sleep today (in its line, its charts and the text for
/// screen readers). Then a sleep timer started on another device (through the API): her own start
/// is refused with a Czech sentence under the buttons, and the page shows the timer that runs. At
/// each step, at phone and desktop size, nothing meant for developers is on the page and nothing is
/// wider than the screen. Last, yesterday's log comes over from two files saved from Baby Buddy:
/// checked first (what will be added, and the one entry that cannot be, in Czech sentences),
/// imported, and the same files again add nothing. The screenshots are
/// artifacts/baby-care-*-phone.png and -desktop.png.
@Suite(.needs("chromium")) struct BabyCareBrowserTests {
    /// At both sizes: nothing for developers on the page, nothing wider than the screen. The tab is
    /// left at phone size, where the parent goes on.
    static func looksRight(_ page: BrowserPage, _ step: String) throws {
        for viewport in [BrowserPage.Viewport.desktop, .phone] {
            try page.use(viewport)
            #expect(try page.developerText() == [], "\(step) (\(viewport)): text meant for developers")
            #expect(try page.fitsItsWidth(), "\(step) (\(viewport)): wider than the screen")
        }
    }

    /// The text of the element `selector` names, with Czech no-break spaces ("12 min") made plain, as JavaScript.
    static func text(_ selector: String) -> String {
        "(document.querySelector(\(BrowserPage.quoted(selector)))?.innerText ?? '').replace(/[\\u00a0\\u202f]/g, ' ').trim()"
    }

    static let status = "document.getElementById('status').textContent.replace(/[\\u00a0\\u202f]/g, ' ')"
    static let running = "document.querySelectorAll('#care-running > li').length"

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func aParentTimesAFeedAndASleepAndAddsANappyInCzech() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-baby-care")
        try ConsoleBrowserTests.copyShippedManifest("baby", into: ws)
        let grants: [String: Any] = ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "notifications": [:] as [String: Any],
                                     "files": [:] as [String: Any]]
        // No sync provider: the device has no hub, as the default deployment.
        ws.writeDeployment(plugins: [["id": "cz.tessera.baby", "grants": grants]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)  // for the clock, "another device", and checking afterwards
        let headers = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
        func call(_ operation: String, _ body: String) async throws -> JSONValue {
            let response = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.baby/ops/\(operation)",
                                                           headers: headers, body: Array(body.utf8))
            return try JSONValue(parsing: response.text)
        }
        func advance(_ by: String) async throws {
            let response = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/clock/advance", headers: headers,
                                                           body: Array(#"{"by": "\#(by)"}"#.utf8))
            #expect(response.status == 200, "the clock moved by \(by): \(response.text)")
        }
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }

        // A new device: Jana makes its first account in Czech, opens the diary and adds Ema.
        try await onThread {
            try page.use(.phone)
            try page.navigate(base + "/")
            try page.waitFor("document.body.dataset.signIn === 'shown'", "the console's first page")
            try page.choose("cs", in: "language")
            try page.waitFor("document.documentElement.lang === 'cs' && document.body.dataset.signIn === 'shown'", "the page in Czech")
            try page.waitFor("!document.getElementById('first-account').hidden", "the first account's form")
            try page.type("Jana", into: "first-name")
            try page.type("správné heslo", into: "first-password")
            try page.click("#first-account-form button[type=submit]")
            try page.waitFor("document.body.dataset.ready === 'true'", "the console after the first account")
            try page.navigate(base + "/ui/cz.tessera.baby/")
            try page.waitFor("location.pathname.startsWith('/ui/') && document.body.dataset.ready === 'true'", "the diary's page")
            try page.waitFor("!document.getElementById('child-form').hidden", "the form to add a child, open by itself")
            try page.type("Ema", into: "child-name")
            try page.evaluate("document.getElementById('child-birth').value = '2025-09-01'")
            try page.click("#child-form button[type=submit]")
            try page.waitFor("\(Self.status) === 'Ema je teď v deníku.'", "Ema added")
        }
        let child = try #require(try await call("children-list", "{}")["children"]?.arrayValue?.first?["id"]?.stringValue)

        // Péče: the tab after the overview; nothing recorded yet, in sentences.
        try await onThread {
            #expect(try page.evaluate("document.getElementById('tab-care').textContent") == "Péče")
            #expect(try page.evaluate("document.getElementById('tab-overview').nextElementSibling.id") == "tab-care")
            try page.openDiaryTab("care")
            try page.waitFor("document.querySelectorAll('#care-glance > li').length === 3", "the glance")
            #expect(try page.evaluate(Self.text("#care-glance"))
                    == "Zatím není zapsané žádné krmení.\nZatím není zapsaný žádný spánek.\nZatím není zapsaná žádná plenka.")
            #expect(try page.evaluate(Self.text("#care-no-running")) == "Žádný časovač neběží.")
            #expect(try page.evaluate("[...document.querySelectorAll('#care-start-form button')].map((b) => b.textContent).join(' | ')")
                    == "Kojení – levý prs | Kojení – pravý prs | Lahvička | Spánek | Odsávání | Pasení koníčků")
            #expect(try page.evaluate(Self.text("#care-log")) == "Dnes zatím nic není zapsáno.")
            try Self.looksRight(page, "nothing recorded yet")
            try page.screenshots("baby-care-empty", in: ConsoleBrowserTests.artifacts)
            try page.use(.phone)
        }

        // A breastfeed on the left: the timer runs, and the feed's start buttons give way to it.
        try await onThread {
            try page.click("#care-start-feed-left")
            try page.waitFor("\(Self.status) === 'Časovač běží: kojení, levý prs.'", "the feed's timer started")
            try page.waitFor("\(Self.running) === 1", "the running feed")
            #expect(try page.evaluate(Self.text("#care-running li[data-kind=feed] .care-elapsed")) == "Kojení, levý prs – běží necelou minutu, od 9:00")
            #expect(try page.evaluate("document.getElementById('care-start-feed-left').hidden && document.getElementById('care-start-bottle').hidden") == true)
            #expect(try page.evaluate("document.getElementById('care-start-sleep').hidden") == false)
            try Self.looksRight(page, "the feed started")
        }

        // 12 minutes later (the host's clock): after a reload the timer is still running, at 12 min.
        try await advance("12m")
        try await onThread {
            try page.evaluate("window.beforeTheReload = true")  // gone with the old document
            _ = try page.send("Page.reload")
            try page.waitFor("""
                !window.beforeTheReload && document.body.dataset.ready === 'true' && document.body.dataset.tab === 'care'
                  && document.querySelectorAll('#care-running > li').length === 1
                """, "Péče again after the reload, with the feed running")
            #expect(try page.evaluate(Self.text("#care-running li[data-kind=feed] .care-elapsed")) == "Kojení, levý prs – běží 12 min, od 9:00")
            #expect(try page.evaluate(Self.text("#care-glance li[data-kind=feed]")) == "Právě probíhá krmení: kojení, levý prs, zatím 12 min.")
            try Self.looksRight(page, "the feed running for 12 minutes")
            try page.screenshots("baby-care-feeding", in: ConsoleBrowserTests.artifacts)
            try page.use(.phone)
        }

        // Stopped: the glance says the last feed was on the left side, 12 minutes ago and 12 minutes long.
        try await onThread {
            try page.click("#care-running li[data-kind=feed] button[type=submit]")
            try page.waitFor("\(Self.status) === 'Zapsáno: kojení, levý prs, 12 min.'", "the feed stopped")
            #expect(try page.evaluate(Self.running) == 0)
            #expect(try page.evaluate(Self.text("#care-glance li[data-kind=feed]")) == "Poslední krmení před 12 min: kojení, levý prs, 12 min.")
            #expect(try page.evaluate("document.getElementById('care-start-feed-left').hidden") == false)
            try Self.looksRight(page, "the feed stopped")
        }

        // A wet nappy in one tap.
        try await onThread {
            try page.click("#care-nappy-wet")
            try page.waitFor("\(Self.status) === 'Plenka je zapsaná: mokrá.'", "the nappy added")
            #expect(try page.evaluate(Self.text("#care-glance li[data-kind=nappy]")) == "Poslední plenka právě teď: mokrá.")
            try Self.looksRight(page, "the nappy added")
        }

        // A sleep: started, 1 h 30 min on the host's clock, stopped.
        try await onThread {
            try page.click("#care-start-sleep")
            try page.waitFor("\(Self.status) === 'Časovač běží: spánek.'", "the sleep's timer started")
            try page.waitFor("\(Self.running) === 1", "the running sleep")
            #expect(try page.evaluate(Self.text("#care-glance li[data-kind=sleep]")) == "Spí už necelou minutu, od 9:12.")
        }
        try await advance("1h30m")
        try await onThread {
            try page.click("#care-running li[data-kind=sleep] button[type=submit]")
            try page.waitFor("\(Self.status) === 'Zapsáno: spánek, 1 h 30 min.'", "the sleep stopped")
            #expect(try page.evaluate(Self.text("#care-glance"))
                    == "Poslední krmení před 1 h 42 min: kojení, levý prs, 12 min.\nPoslední spánek trval 1 h 30 min, skončil právě teď.\nPoslední plenka před 1 h 30 min: mokrá.")
            // Today's log, newest first (the nappy and the sleep began the same minute: either may come first).
            let log = try page.evaluate("[...document.querySelectorAll('#care-log > li')].map((li) => li.firstChild.textContent.replace(/[\\u00a0\\u202f]/g, ' ').trim())")
            let lines = log.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(Set(lines.prefix(2)) == ["9:12–10:42 · Spánek, 1 h 30 min", "9:12 · Plenka – mokrá"] && lines.last == "9:00–9:12 · Kojení, levý prs, 12 min"
                    && lines.count == 3, "today's log: \(lines)")
            #expect(try page.evaluate("document.querySelectorAll('#care-log .record-actions button').length") == 6, "Edit and Delete for each entry")
        }

        // The week: today has 1 feed and 1 h 30 min of sleep, in the line, the charts and the text for screen readers.
        try await onThread {
            #expect(try page.evaluate(Self.text("#care-today-totals")) == "Dnes zatím: 1 krmení, spánek 1 h 30 min, 1 plenka.")
            #expect(try page.evaluate("document.querySelectorAll('#care-week-text > li').length") == 7)
            #expect(try page.evaluate("document.querySelector('#care-week-text > li:last-child').textContent.replace(/[\\u00a0\\u202f]/g, ' ')")
                    == "pondělí 2. 3.: 1 krmení, spánek 1 h 30 min, 1 plenka")
            #expect(try page.evaluate("document.querySelector('#care-week-text > li:first-child').textContent.replace(/[\\u00a0\\u202f]/g, ' ')")
                    == "úterý 24. 2.: 0 krmení, spánek 0 min, 0 plenek")
            #expect(try page.evaluate("[...document.querySelectorAll('#care-feeds-chart rect')].map((r) => r.getAttribute('class')).join(' ')") == "care-bar care-bar-today")
            #expect(try page.evaluate("[...document.querySelectorAll('#care-feeds-chart .care-chart-value')].map((t) => t.textContent).join(' ')") == "0 0 0 0 0 0 1")
            #expect(try page.evaluate("[...document.querySelectorAll('#care-sleep-chart .care-chart-value')].map((t) => t.textContent).join(' ')") == "0 0 0 0 0 0 1,5")
            #expect(try page.evaluate("document.getElementById('care-feeds-chart').getAttribute('aria-hidden')") == "true")
            try Self.looksRight(page, "the morning recorded")
            try page.screenshots("baby-care-day", in: ConsoleBrowserTests.artifacts)
            try page.use(.phone)
        }

        // A sleep timer started on another device meanwhile (through the API): her own start is
        // refused in Czech under the buttons, and the page shows the timer that runs.
        let other = try await call("care-start", #"{"childId": "\#(child)", "kind": "sleep"}"#)
        #expect(other["startedAt"] == "2026-03-02T10:42")
        try await onThread {
            try page.click("#care-start-sleep")
            try page.waitFor("""
                document.querySelector('#care-start-form .form-error')?.textContent
                  === 'Tento časovač už běží, možná ho někdo spustil na jiném zařízení. Najdete ho mezi běžícími časovači; nový spustíte, až ho zastavíte.'
                """, "the second sleep refused in Czech")
            try page.waitFor("document.querySelectorAll('#care-running li[data-kind=sleep]').length === 1 && document.getElementById('care-start-sleep').hidden",
                             "the sleep from the other device shown")
            #expect(try page.evaluate(Self.text("#care-glance li[data-kind=sleep]")) == "Spí už necelou minutu, od 10:42.")
            try Self.looksRight(page, "the second sleep refused")
            try page.screenshots("baby-care-refused", in: ConsoleBrowserTests.artifacts)
        }

        // What the module got: the feed on the left for 12 minutes, the wet nappy, the sleep of 90
        // minutes, and the other device's sleep still running.
        let list = try await call("care-list", #"{"childId": "\#(child)"}"#)
        let entries = list["entries"]?.arrayValue ?? []
        let finished = entries.filter { $0["endedAt"]?.stringValue != nil }
        #expect(Set(finished.compactMap { $0["kind"]?.stringValue }) == ["sleep", "nappy", "feed"] && finished.count == 3)
        let feed = finished.first(where: { $0["kind"] == "feed" })
        #expect(feed?["method"] == "breast" && feed?["side"] == "left" && feed?["durationMinutes"] == 12)
        #expect(finished.first(where: { $0["kind"] == "nappy" })?["nappy"] == "wet")
        #expect(finished.first(where: { $0["kind"] == "sleep" })?["durationMinutes"] == 90)
        #expect((list["running"]?.arrayValue ?? []).map { $0["kind"] } == ["sleep"])
        let today = try await call("care-summary", #"{"childId": "\#(child)", "days": 1}"#)["days"]?.arrayValue?.first
        #expect(today?["feeds"] == 1 && today?["sleepMinutes"] == 90 && today?["wet"] == 1)

        // Yesterday's log from Baby Buddy: two files she saved from it (its feedings as a page, its
        // nappy changes as a list, one of them neither wet nor dirty) are checked, then brought over.
        let feedings = ws.root + "/feedings.json", changes = ws.root + "/changes.json"
        try Data(#"""
            {"count": 2, "next": null, "previous": null, "results": [
              {"id": 1, "child": 1, "start": "2026-03-01T07:00:00+01:00", "end": "2026-03-01T07:20:00+01:00", "type": "breast milk", "method": "right breast", "amount": null},
              {"id": 2, "child": 1, "start": "2026-03-01T19:00:00+01:00", "end": "2026-03-01T19:15:00+01:00", "type": "formula", "method": "bottle", "amount": 90}]}
            """#.utf8).write(to: URL(fileURLWithPath: feedings))
        try Data(#"""
            [{"id": 5, "time": "2026-03-01T08:00:00+01:00", "wet": true, "solid": false, "color": ""},
             {"id": 6, "time": "2026-03-01T12:00:00+01:00", "wet": false, "solid": false, "color": ""}]
            """#.utf8).write(to: URL(fileURLWithPath: changes))
        try await onThread {
            try page.use(.phone)
            try page.click("#care-import-check")
            try page.waitFor("document.querySelector('#care-import-form .form-error')?.textContent === 'Nejdřív vyberte soubory uložené z Baby Buddy.'",
                             "no file chosen, said in Czech")
            let document = try page.send("DOM.getDocument")
            let input = try page.send("DOM.querySelector", ["nodeId": document["root"]?["nodeId"] ?? .null, "selector": "#care-import-files"])
            _ = try page.send("DOM.setFileInputFiles", ["nodeId": input["nodeId"] ?? .null, "files": [.string(feedings), .string(changes)]])
            try page.click("#care-import-check")
            try page.waitFor("!document.getElementById('care-import-go').hidden", "the check's answer")
            #expect(try page.evaluate(Self.text("#care-import-preview"))
                    == "Připraveno k přidání: 2 krmení a 1 plenka. 1 záznam nejde přidat: přebalení, kdy plenka nebyla mokrá ani špinavá.")
            try Self.looksRight(page, "Baby Buddy's files checked")
            try page.screenshots("baby-care-import", in: ConsoleBrowserTests.artifacts)
            try page.use(.phone)
        }
        #expect(try await call("care-list", #"{"childId": "\#(child)", "day": "2026-03-01"}"#)["entries"] == [], "the check wrote nothing")
        try await onThread {
            try page.click("#care-import-go")
            try page.waitFor("\(Self.status) === 'Přidáno z Baby Buddy: 2 krmení a 1 plenka. 1 záznam nejde přidat: přebalení, kdy plenka nebyla mokrá ani špinavá.'",
                             "the log brought over")
            try page.waitFor("document.querySelector('#care-week-text > li:nth-last-child(2)')?.textContent.replace(/[\\u00a0\\u202f]/g, ' ') === 'neděle 1. 3.: 2 krmení, spánek 0 min, 1 plenka'",
                             "yesterday in the week")
            // The same files again: nothing new.
            let document = try page.send("DOM.getDocument")
            let input = try page.send("DOM.querySelector", ["nodeId": document["root"]?["nodeId"] ?? .null, "selector": "#care-import-files"])
            _ = try page.send("DOM.setFileInputFiles", ["nodeId": input["nodeId"] ?? .null, "files": [.string(feedings), .string(changes)]])
            try page.click("#care-import-check")
            try page.waitFor("""
                \(Self.text("#care-import-preview")) === 'Nic nového k přidání. 3 záznamy už byly přeneseny dřív a zůstávají, jak jsou. 1 záznam nejde přidat: přebalení, kdy plenka nebyla mokrá ani špinavá.'
                """, "nothing new the second time")
            #expect(try page.evaluate("document.getElementById('care-import-go').hidden") == true)
            try Self.looksRight(page, "Baby Buddy's files again")
        }
        let yesterday = try await call("care-list", #"{"childId": "\#(child)", "day": "2026-03-01"}"#)["entries"]?.arrayValue ?? []
        #expect(yesterday.count == 3 && yesterday.contains { $0["method"] == "bottle" && $0["amountMl"] == 90 })
        _ = try await serve.terminate()
    }
}
