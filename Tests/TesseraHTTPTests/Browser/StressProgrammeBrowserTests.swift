import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The stress programme's page in a real headless Chromium, against the real `tessera serve` on a
/// virtual clock (2026-03-02T08:00Z, a Monday; the browser in Bratislava): in Slovak, a student
/// consents, fills in both entry questionnaires (one sent with an item left out first: refused in a
/// Slovak sentence, the item marked), sees week 1 open, sets her goal (a draft kept as she writes)
/// and completes the week, and is told when week 2 opens, as a date and time in Slovak. The clock
/// is moved past that through the admin API; week 2 asks her to rate week 1 first (a rating sent
/// without one of its answers is refused in a Slovak sentence next to that question), then
/// relaxation opens: she reads the introduction, starts the stopwatch (it counts on the page's own
/// tick), the host's clock moves five minutes, and she stops it: the page says how long the
/// exercise lasted as the host measured it, and when week 3 opens. At every step nothing meant for
/// developers is on the page, and it fits a phone and a desktop; the screenshots are
/// artifacts/stress-programme-*-phone.png and -desktop.png.
@Suite(.needs("chromium")) struct StressProgrammeBrowserTests {
    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func aStudentGoesFromConsentThroughWeekOneToTheRelaxationStopwatchInSlovak() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-stress-programme")
        try ConsoleBrowserTests.copyShippedManifest("stress", into: ws)
        ws.writeDeployment(plugins: [["id": "cz.tessera.stress", "grants": try ConsoleBrowserTests.shippedGrants(of: "cz.tessera.stress")]],
                           extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"]]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }

        let text: @Sendable (String) async throws -> String = { id in
            try await onThread { try page.evaluate("document.getElementById('\(id)').innerText").stringValue ?? "" }
        }
        let call: @Sendable (String, String, String) async throws -> JSONValue = { method, path, body in
            let answer = try await RawHTTPClient.request(port: serve.port, method, path,
                                                         headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                         body: Array(body.utf8))
            return try JSONValue(parsing: answer.text)
        }
        let operation: @Sendable (String, String) async throws -> JSONValue = { name, body in
            try await call("POST", "/v1/plugins/cz.tessera.stress/ops/\(name)", body)
        }
        // Nothing for developers on the page, and it fits both screens (screenshots leave it at desktop size).
        let looksRight: @Sendable (String) async throws -> Void = { name in
            #expect(try await onThread { try page.developerText() } == [], "developer text at \(name)")
            try await onThread { try page.use(.phone) }
            #expect(try await onThread { try page.fitsItsWidth() }, "\(name) is wider than a phone")
            try await onThread { try page.screenshots("stress-programme-\(name)", in: ConsoleBrowserTests.artifacts) }
            #expect(try await onThread { try page.fitsItsWidth() }, "\(name) is wider than a desktop window")
        }

        // Consent, in Slovak; the page then sets the module's language, so its questions come in Slovak too.
        try await onThread {
            // Bratislava: the weekdays and times the page says are this browser's.
            _ = try page.send("Emulation.setTimezoneOverride", ["timezoneId": "Europe/Bratislava"])
            try ConsoleBrowserTests.signIn(page, at: base, with: token)
            try page.evaluate("localStorage.setItem('tessera.language', 'sk')")
            try page.navigate(base + "/ui/cz.tessera.stress/")
            try page.waitFor("document.body.dataset.ready === 'true' && !document.getElementById('consent-section').hidden", "the consent form")
        }
        #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == "sk")
        try await looksRight("consent")
        try await onThread {
            try page.click("#consent-accept")
            try page.click("#consent-form button[type=submit]")
            try page.waitFor("document.body.dataset.ready === 'true' && document.getElementById('questionnaire-entry') && document.getElementById('questionnaire-screen')",
                             "the two entry questionnaires")
        }
        #expect(try await text("next-step") == "Vyplň dva vstupné dotazníky a otvorí sa ti prvý týždeň.")
        #expect(try await text("questionnaire-screen").contains("Študuješ?"))
        #expect(try await operation("settings-get", "{}")["language"]?.stringValue == "sk")
        try await looksRight("questionnaires")

        // The entry test with its last item left out: refused in Slovak, that item marked; then sent whole.
        try await onThread {
            for item in 1...4 { try page.click("#questionnaire-entry input[name='entry-\(item)'][value='2']") }
            try page.click("#questionnaire-entry button[type=submit]")
            try page.waitFor("document.querySelector('#questionnaire-entry .form-error').textContent !== ''", "the refusal of an unanswered item")
        }
        #expect(try await onThread { try page.evaluate("document.querySelector('#questionnaire-entry .form-error').textContent") }
                == "Niektoré otázky ešte nemajú odpoveď (sú označené). Odpovedz na všetky a odošli znova.")
        #expect(try await onThread { try page.evaluate("[...document.querySelectorAll('#questionnaire-entry .unanswered')].map((b) => b.dataset.question).join()") }
                == "entry-5")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread {
            try page.click("#questionnaire-entry input[name='entry-5'][value='1']")
            try page.click("#questionnaire-entry button[type=submit]")
            try page.waitFor("document.body.dataset.ready === 'true' && !document.getElementById('questionnaire-entry')", "the entry test sent")
            for (question, option) in [(1, 1), (2, 2), (3, 2)] { try page.click("#questionnaire-screen input[name='screen-\(question)'][value='\(option)']") }
            try page.click("#questionnaire-screen button[type=submit]")
            try page.waitFor("document.body.dataset.ready === 'true' && document.getElementById('week-form')", "week 1's form")
        }

        // Week 1 is open: the goal, kept as a draft once written, then the week completed.
        #expect(try await text("next-step") == "Teraz máš otvorený týždeň: Ciele.")
        #expect(try await text("weeks").contains("Ciele: práve otvorené"))
        try await looksRight("week1")
        try await onThread {
            try page.type("Skúšky a málo spánku", into: "week-answer-1")
            try page.type("Dvakrát do týždňa si ísť zabehať", into: "week-answer-2")
            try page.type("Budem mať v denníku dva behy", into: "week-answer-3")  // leaving the goal's field keeps it
            try page.waitFor("!document.querySelector('#week-form [data-question=answer-2] .saved').hidden", "the goal kept as a draft")
        }
        let draft = try await operation("programme-week", #"{"order": 0}"#)["content"]?["questions"]?.arrayValue?.first { $0["id"]?.integerValue == 2 }
        #expect(draft?["draft"]?.stringValue == "Dvakrát do týždňa si ísť zabehať")
        try await onThread {
            try page.type("Dážď; vtedy pôjdem plávať", into: "week-answer-4")
            try page.click("#week-form button[type=submit]")
            try page.waitFor("document.body.dataset.ready === 'true' && !document.getElementById('week-form') && document.getElementById('step-news').textContent !== ''",
                             "week 1 completed")
        }
        #expect(try await text("step-news").contains("Tvoj cieľ: Dvakrát do týždňa si ísť zabehať"))
        // When week 2 opens: six days from the start of the day week 1 started, midnight in Bratislava.
        #expect(try await text("next-step") == "Relaxácia sa otvorí v nedeľu 8. marca o 0:00 (o 6 dní).")
        #expect(try await text("weeks").contains("Relaxácia: zatvorené — otvorí sa v nedeľu 8. marca o 0:00 (o 6 dní)"))
        #expect(try await operation("programme", "{}")["weeks"]?.arrayValue?.first?["state"]?.stringValue == "completed")
        try await looksRight("week1-done")

        // Six days later (past the opening) she comes back: week 1 is rated first, and a rating
        // without one of its answers is refused next to that question.
        _ = try await call("POST", "/v1/clock/advance", #"{"by": "6d"}"#)
        try await onThread {
            try page.navigate(base + "/ui/cz.tessera.stress/")
            try page.waitFor("document.body.dataset.ready === 'true' && document.getElementById('evaluation-form')", "the rating of week 1")
        }
        #expect(try await text("next-step") == "Skôr než budeš pokračovať, ohodnoť 1. týždeň.")
        try await onThread {
            try page.click("#evaluation-form input[name='difficulty'][value='2']")
            try page.click("#evaluation-form button[type=submit]")
            try page.waitFor("document.getElementById('feasibility-error').textContent !== ''", "the refusal of a rating without feasibility")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('feasibility-error').textContent") }
                == "Vyber jedno z čísel: nakoľko sa dal týždeň zvládnuť.")
        #expect(try await onThread { try page.evaluate("document.getElementById('feasibility-error').closest('fieldset').dataset.question") } == "feasibility")
        #expect(try await onThread { try page.evaluate("document.querySelector('#evaluation-form [aria-invalid=true]').name") } == "feasibility")
        #expect(try await onThread { try page.evaluate("document.activeElement.name") } == "feasibility")
        try await looksRight("evaluation-refused")
        try await onThread {
            try page.click("#evaluation-form input[name='feasibility'][value='4']")
            try page.click("#evaluation-form button[type=submit]")
            try page.waitFor("document.body.dataset.ready === 'true' && document.getElementById('relax-intro-read')", "week 2's introduction")
        }

        // Week 2, relaxation: the introduction, then the stopwatch.
        #expect(try await text("step-news") == "Ďakujeme za hodnotenie 1. týždňa.")
        #expect(try await text("next-step") == "Teraz máš otvorený týždeň: Relaxácia.")
        #expect(try await text("step").contains("Prečo relaxovať"))
        try await onThread {
            try page.click("#relax-intro-read")
            try page.waitFor("document.body.dataset.ready === 'true' && document.getElementById('relax-start')", "the stopwatch")
            try page.click("#relax-start")
            try page.waitFor("document.body.dataset.ready === 'true' && document.getElementById('relax-stop')", "the stopwatch running")
            // The display counts on by the page's own tick (the virtual clock stands still meanwhile).
            try page.waitFor("document.getElementById('relax-timer').textContent !== '0 min 00 s'", "the stopwatch's display to tick")
        }
        #expect(try await text("relax-timer").hasPrefix("0 min "))
        #expect(try await operation("relaxation-status", "{}")["running"]?.boolValue == true)
        try await looksRight("relaxing")
        _ = try await call("POST", "/v1/clock/advance", #"{"by": "5m3s"}"#)
        try await onThread {
            try page.click("#relax-stop")
            try page.waitFor("document.body.dataset.ready === 'true' && document.getElementById('step-news').textContent.includes('Cvičenie')", "the session stopped")
        }
        // The length is the host's: five minutes and three seconds on its clock, whatever the display showed.
        #expect(try await text("step-news").contains("Cvičenie trvalo 5 min 03 s."))
        #expect(try await operation("relaxation-status", "{}")["firstSeconds"]?.integerValue == 303)
        #expect(try await text("next-step") == "Riadenie času sa otvorí v sobotu 14. marca o 0:00 (o 6 dní).")
        let weeks = try await text("weeks")
        #expect(weeks.contains("Ciele: dokončené 2. 3. 2026 a ohodnotené"))
        #expect(weeks.contains("Relaxácia: dokončené 8. 3. 2026"))
        try await looksRight("relaxed")
        _ = try await serve.terminate()
    }
}
