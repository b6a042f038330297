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
/// exercise lasted as the host measured it, and when week 3 opens. Then she goes on to the end:
/// weeks 3 and 4 with their ratings and the exit questionnaires, each when the page offers it. At every step nothing meant for
/// developers is on the page, and it fits a phone and a desktop; the screenshots are
/// artifacts/stress-programme-*-phone.png and -desktop.png.
@Suite(.needs("chromium")) struct StressProgrammeBrowserTests {
    /// `tessera serve` with the shipped stress module, the default deployment's grants, and a
    /// virtual clock at Monday 2 March 2026, 8:00 UTC.
    static func serveTheShippedModule(_ label: String) async throws -> ServeProcess {
        let ws = FixtureWorkspace(label)
        try ConsoleBrowserTests.copyShippedManifest("stress", into: ws)
        ws.writeDeployment(plugins: [["id": "cz.tessera.stress", "grants": try ConsoleBrowserTests.shippedGrants(of: "cz.tessera.stress")]],
                           extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"]]])
        return try await ServeProcess.start(ws)
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func aStudentGoesFromConsentThroughWeekOneToTheRelaxationStopwatchInSlovak() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let serve = try await Self.serveTheShippedModule("http-browser-stress-programme")
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

        // Weeks 3 and 4, their ratings and the exit questionnaires, as the page offers them: what
        // it asks next is answered, and when it says the next step opens later, six days pass.
        let forms = ["evaluation-form", "week-form", "meaning-form", "questionnaire-exit-retest", "exit-form"]
        let chooseInEveryQuestion: @Sendable (String) async throws -> Void = { form in
            _ = try await onThread {
                try page.evaluate("""
                    [...document.querySelectorAll('#\(form) fieldset')].forEach((question) => {
                      const choices = [...question.querySelectorAll('input[type=radio]')];
                      if (choices.length) choices[Math.floor(choices.length / 2)].click();
                    })
                    """)
            }
        }
        var seen: [String] = []
        for _ in 0..<12 {
            let shown = try await onThread {
                try page.evaluate("\(JSONValue.array(forms.map { .string($0) }).serialized()).find((id) => document.getElementById(id)) ?? ''").stringValue ?? ""
            }
            if shown.isEmpty {
                if try await text("next-step") == "Program máš za sebou. Ďakujeme, že si sa zúčastnil/a!" { break }
                _ = try await call("POST", "/v1/clock/advance", #"{"by": "6d"}"#)
                try await onThread {
                    try page.navigate(base + "/ui/cz.tessera.stress/")
                    try page.waitFor("document.body.dataset.ready === 'true'", "the page after six days")
                }
                continue
            }
            seen.append(shown)
            if shown == "week-form" || shown == "meaning-form" {
                let fields = try await onThread {
                    try page.evaluate("[...document.querySelectorAll('#\(shown) textarea, #\(shown) input:not([type=radio])')].map((c) => c.id).join(',')").stringValue ?? ""
                }
                for field in fields.split(separator: ",") {
                    try await onThread { try page.type("Odpoveď do \(field)", into: String(field)) }
                }
            }
            try await chooseInEveryQuestion(shown)
            #expect(try await onThread { try page.developerText() } == [], "developer text in \(shown)")
            try await onThread {
                try page.click("#\(shown) button[type=submit]")
                try page.waitFor("document.body.dataset.ready === 'true' && !document.getElementById('\(shown)')", "\(shown) sent")
            }
        }
        #expect(seen.contains("week-form") && seen.contains("meaning-form") && seen.contains("questionnaire-exit-retest") && seen.contains("exit-form"),
                "the steps the page asked for: \(seen)")
        #expect(try await text("next-step") == "Program máš za sebou. Ďakujeme, že si sa zúčastnil/a!")
        let states = try await operation("programme", "{}")["weeks"]?.arrayValue?.map { $0["state"]?.stringValue ?? "" }
        #expect(states == ["completed", "completed", "completed", "completed"], "\(states ?? [])")
        try await looksRight("finished")
        _ = try await serve.terminate()
    }

    /// The rest of the programme's page (issue 42), in Czech on a phone: after consent a student
    /// writes in her diary (a stress record with the question its level asks, then a note, which
    /// only a day with a record allows), reads a section of the library and comes back to its
    /// start, and withdraws from the research: refused while she has not ticked that she
    /// understands, in a sentence next to the box; then her data is gone and the page says so.
    @Test(.hangWatchdog) func aStudentKeepsHerDiaryReadsTheLibraryAndWithdrawsInCzech() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let serve = try await Self.serveTheShippedModule("http-browser-stress-diary")
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        let evaluate: @Sendable (String) async throws -> String = { expression in
            try await onThread { try page.evaluate(expression).stringValue ?? "" }
        }
        let operation: @Sendable (String, String) async throws -> JSONValue = { name, body in
            let answer = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.stress/ops/\(name)",
                                                         headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                         body: Array(body.utf8))
            return try JSONValue(parsing: answer.text)
        }
        let looksRight: @Sendable (String) async throws -> Void = { name in
            let developerText = try await onThread { try page.developerText() }
            #expect(developerText == [], "developer text at \(name)")
            let fits = try await onThread { try page.fitsItsWidth() }
            #expect(fits, "\(name) is wider than a phone")
        }

        // Consent given the way the page gives it (its own test walks that), then the page in Czech.
        _ = try await operation("consent-give", #"{"consentVersion": "1", "accepted": true}"#)
        try await onThread {
            try page.use(.phone)
            try ConsoleBrowserTests.signIn(page, at: base, with: token)
            try page.evaluate("localStorage.setItem('tessera.language', 'cs')")
            try page.navigate(base + "/ui/cz.tessera.stress/")
            try page.waitFor("document.body.dataset.ready === 'true' && !document.getElementById('diary-section').hidden", "the diary")
        }
        #expect(try await evaluate("document.getElementById('note-form').hidden ? 'hidden' : 'shown'") == "hidden", "no note before a record")

        // A stress record: choosing a level asks that level's question, and the answer is kept under it.
        try await onThread { try page.click("#levels input[value='1']") }
        let question = try await evaluate("document.getElementById('question').textContent")
        #expect(!question.isEmpty && question != "Nejdřív vyber, jak se cítíš.", "\(question)")
        try await onThread {
            try page.type("Zkouška z matematiky", into: "answer")
            try page.click("#record-form button[type=submit]")
            try page.waitFor("document.getElementById('history').innerText.includes('Zkouška z matematiky')", "the record in the diary")
            // The page fills the diary, then says what it did: wait for the sentence too.
            try page.waitFor("document.getElementById('status').textContent === 'Uloženo do deníku.'", "the saved sentence")
        }
        let history = try await evaluate("document.getElementById('history').innerText")
        #expect(history.contains(question), "the record shows the question it answers: \(history)")
        try await looksRight("diary")

        // Now a note may follow.
        try await onThread {
            try page.waitFor("!document.getElementById('note-form').hidden", "the note form")
            try page.type("Večer po procházce lepší", into: "note")
            try page.click("#note-form button[type=submit]")
            try page.waitFor("document.getElementById('history').innerText.includes('Večer po procházce lepší')", "the note in the diary")
            try page.waitFor("document.getElementById('status').textContent === 'Poznámka je přidaná.'", "the note-added sentence")
        }
        #expect(try await evaluate("document.getElementById('history').innerText").contains("Poznámka: Večer po procházce lepší"))
        let days = try await operation("diary-list", "{}")["days"]?.arrayValue ?? []
        #expect(days.first?["entries"]?.arrayValue?.count == 2, "\(days)")

        // The library: a section opened from the start, its way back, and the start again.
        let first = try await evaluate("document.querySelector('#library-children button').textContent")
        #expect(!first.isEmpty)
        try await onThread {
            try page.click("#library-children button")
            try page.waitFor("document.getElementById('library-title').textContent === \(BrowserPage.quoted(first))", "the section opened")
        }
        #expect(try await evaluate("document.getElementById('library-text').innerText").count > 40, "the section has its text")
        #expect(try await evaluate("document.getElementById('library-path').innerText").contains("Knihovna"))
        try await looksRight("library")
        try await onThread {
            try page.click("#library-path button")
            try page.waitFor("document.getElementById('library-title').hidden", "back at the library's start")
        }

        // Withdrawing: refused without the box ticked, in a sentence next to it; then everything goes.
        try await onThread {
            try page.click("#cancel-form button[type=submit]")
            try page.waitFor("document.getElementById('cancel-error').textContent !== ''", "the refusal without the box")
        }
        let refusal = try await evaluate("document.getElementById('cancel-error').textContent")
        #expect(refusal == "Tohle nejde vrátit zpět, proto to nejdřív potvrď.", "\(refusal)")
        #expect(try await operation("account-state", "{}")["state"]?.stringValue == "active")
        try await looksRight("withdraw-refused")
        try await onThread {
            try page.click("#cancel-confirm")
            try page.click("#cancel-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent === 'Tento účet byl zrušen a jeho data smazána.'", "withdrawn")
        }
        #expect(try await operation("account-state", "{}")["state"]?.stringValue == "revoked")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.screenshots("stress-programme-withdrawn", in: ConsoleBrowserTests.artifacts) }
    }
}
