import Foundation
import Testing
import TesseraSDK
import TesseraSTAGEmulator
import TesseraTestFixtures

/// The web console in a real headless Chromium, against the real `tessera serve` with the example
/// plugin on a virtual clock: sign in, see the plugins, call an operation through the form drawn
/// from its schema (a result, then an error next to its field), schedule a reminder, move the
/// clock, and see the notification arrive over SSE; then the example plugin's own page. The
/// screenshots are kept in artifacts/ (console.png, example-notes.png).
@Suite(.needs("chromium")) struct ConsoleBrowserTests {
    static let artifacts = Fixtures.repositoryRoot + "/artifacts"

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func theOperatorSignsInCallsAnOperationAndSeesANotificationArriveLive() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser")
        ws.addExampleManifest()
        let grants: [String: Any] = ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "notifications": [:] as [String: Any]]
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": grants]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }  // also when an expectation throws
        let token = try #require(serve.adminToken)
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }

        try await onThread {
            try Self.signIn(page, at: base, with: token)
        }
        let table = try await onThread { try page.evaluate("document.getElementById('plugins-table').innerText").stringValue ?? "" }
        #expect(table.contains("dev.tessera.example"))
        #expect(table.contains("active"))
        #expect(try await onThread { try page.evaluate("location.href").stringValue } == base + "/")  // the token is in no URL
        #expect(try await onThread { try page.evaluate("sessionStorage.getItem('tessera.token')").stringValue } == token)

        // Every form control has a label; the landmarks are there.
        let unlabelled = try await onThread { try page.evaluate("""
            [...document.querySelectorAll('input, select, textarea')]
              .filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.id).join(',')
            """) }
        #expect(unlabelled == "")
        #expect(try await onThread { try page.evaluate("['header','nav','main'].every((t) => document.querySelector(t))") } == true)

        // A call through the generated form: a result, then an error shown at its field.
        try await onThread {
            try page.choose("dev.tessera.example", in: "call-plugin")
            try page.choose("add-note", in: "call-operation")
            try page.waitFor("document.getElementById('input-add-note-text')", "the add-note form")
            try page.type("written in the browser", into: "input-add-note-text")
            try page.click("#call-form button[type=submit]")
            try page.waitFor("document.querySelector('#call-result [data-result=ok]')", "the add-note result")
        }
        let result = try await onThread { try page.evaluate("document.getElementById('call-result').innerText").stringValue ?? "" }
        #expect(result.contains("\"at\": \"2026-03-02T08:00:00Z\""))
        try await onThread {
            try page.evaluate("document.getElementById('input-add-note-text').value = ''")
            try page.click("#call-form button[type=submit]")
            try page.waitFor("document.querySelector('#call-result [data-result=error]')", "the add-note error")
        }
        let error = try await onThread { try page.evaluate("document.getElementById('call-result').innerText").stringValue ?? "" }
        #expect(error.contains("invalid_input") && error.contains("$.text"))
        #expect(try await onThread { try page.evaluate("document.getElementById('input-add-note-text').getAttribute('aria-invalid')") } == "true")
        #expect(try await onThread { try page.evaluate("document.activeElement.id") } == "input-add-note-text")

        // A reminder, the clock moved by the server's own route, and the notification over SSE.
        try await onThread {
            try page.choose("remind", in: "call-operation")
            try page.waitFor("document.getElementById('input-remind-in')", "the remind form")
            try page.type("stretch", into: "input-remind-text")
            try page.type("2h", into: "input-remind-in")
            try page.click("#call-form button[type=submit]")
            try page.waitFor("document.querySelector('#call-result [data-result=ok]')", "the remind result")
            try page.waitFor("document.getElementById('stream-status').dataset.state === 'live'", "the stream to be live")
        }
        let advanced = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/clock/advance",
                                                       headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                       body: Array(#"{"by": "3h"}"#.utf8))
        #expect(advanced.status == 200, "\(advanced.text)")
        try await onThread {
            try page.waitFor("[...document.querySelectorAll('#inbox li .title')].some((t) => t.textContent === 'stretch')",
                             "the reminder's notification over SSE")
            try page.screenshot(to: Self.artifacts + "/console.png")
        }

        // The example plugin's page: the note listed with its time, one bar for its day, the chart
        // described in a sentence, the days in the table as dates; an empty note is refused with a
        // sentence next to its field, which is marked and focused.
        try await onThread {
            try page.navigate(base + "/ui/dev.tessera.example/")
            try page.waitFor("location.pathname.startsWith('/ui/dev.tessera.example/') && document.body.dataset.ready === 'true'", "the notes page")
        }
        let notes = try await onThread { try page.evaluate("document.getElementById('notes').innerText").stringValue ?? "" }
        #expect(notes.contains("written in the browser"))
        #expect(notes.contains("Mar 2, 2026, 8:00"))  // en-US, the browser's zone (UTC on CI)
        #expect(try await onThread { try page.evaluate("document.querySelectorAll('#chart rect.bar').length") } == 1)
        #expect(try await onThread { try page.evaluate("document.getElementById('chart-desc').textContent") } == "You wrote 1 note on Mar 2, 2026.")
        #expect(try await onThread { try page.evaluate("document.querySelector('#per-day tbody').innerText").stringValue ?? "" }.contains("Mar 2, 2026"))
        #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == "en")
        try await onThread {
            try page.click("#add-form button[type=submit]")
            try page.waitFor("document.getElementById('note-error').textContent !== ''", "the empty note's refusal")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('note-error').textContent") } == "Write a note (1 to 1000 characters).")
        #expect(try await onThread { try page.evaluate("document.getElementById('note-text').getAttribute('aria-invalid')") } == "true")
        #expect(try await onThread { try page.evaluate("document.activeElement.id") } == "note-text")
        #expect(try await onThread { try page.developerText() } == [])

        // The same page in Czech: the refusal, the chart's sentence and the page's title in Czech,
        // nothing for developers; the page fits a phone's width.
        try await onThread {
            try page.evaluate("localStorage.setItem('tessera.language', 'cs')")
            try page.navigate(base + "/ui/dev.tessera.example/")
            try page.waitFor("document.documentElement.lang === 'cs' && document.body.dataset.ready === 'true'", "the notes page in Czech")
            try page.click("#add-form button[type=submit]")
            try page.waitFor("document.getElementById('note-error').textContent !== ''", "the empty note's refusal in Czech")
        }
        #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == "cs")
        #expect(try await onThread { try page.evaluate("document.getElementById('note-error').textContent") } == "Napište poznámku (1 až 1000 znaků).")
        #expect(try await onThread { try page.evaluate("document.getElementById('chart-desc').textContent") } == "Napsali jste 1 poznámku dne 2. 3. 2026.")
        #expect(try await onThread { try page.evaluate("document.title") } == "Poznámky — Tessera")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread {
            try page.screenshots("example-notes", in: Self.artifacts)
            try page.evaluate("localStorage.removeItem('tessera.language')")
        }

        _ = try await serve.terminate()
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func theFinancePageShowsTheBudgetAddsATransactionAndDrawsItsChart() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-finance")
        try Self.copyShippedManifest("finance", into: ws)
        ws.writeDeployment(plugins: [["id": "cz.tessera.finance", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        let base = "http://127.0.0.1:\(serve.port)"
        let budget = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.finance/ops/budget-set",
                                                  headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                  body: Array(#"{"amount": "500"}"#.utf8))
        #expect(budget.status == 200, "\(budget.text)")
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }

        // In Czech: an amount with three decimals is refused with a sentence next to the form.
        try await onThread {
            try Self.signIn(page, at: base, with: token)
            try page.evaluate("localStorage.setItem('tessera.language', 'cs')")
            try page.navigate(base + "/ui/cz.tessera.finance/")
            try page.waitFor("location.pathname.startsWith('/ui/cz.tessera.finance/') && document.documentElement.lang === 'cs' && document.body.dataset.ready === 'true'",
                             "the finance page in Czech")
            try page.type("Nákup", into: "name")
            try page.type("12,345", into: "amount")
            try page.click("#add-form button[type=submit]")
            try page.waitFor("document.getElementById('add-error').textContent !== ''", "the refusal of the amount")
        }
        #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == "cs")
        let refusal = try await onThread { try page.evaluate("document.getElementById('add-error').textContent").stringValue ?? "" }
        #expect(refusal == "Zadejte částku větší než nula, například 12,50 nebo 1 234,50, nejvýše se dvěma desetinnými místy.")
        #expect(try await onThread { try page.evaluate("document.getElementById('amount').getAttribute('aria-invalid')") } == "true")
        #expect(try await onThread { try page.evaluate("document.getElementById('add-heading').textContent") } == "Přidat transakci")
        #expect(try await onThread { try page.evaluate("document.querySelector('#category option[value=travel]').textContent") } == "Cestování")
        #expect(try await onThread { try page.evaluate("document.getElementById('tutorial-title').textContent") } == "Přehled")
        let czechBudget = try await onThread { try page.evaluate("document.getElementById('budget').textContent").stringValue ?? "" }
        #expect(czechBudget.hasPrefix("Rozpočet na březen 2026: utraceno"))
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("finance-refused-cs", in: Self.artifacts) }

        // In English: a transaction added, the budget, both charts, the table and the tutorial.
        try await onThread {
            try page.evaluate("localStorage.setItem('tessera.language', 'en')")
            try page.navigate(base + "/ui/cz.tessera.finance/")
            try page.waitFor("document.body.dataset.ready === 'true' && document.documentElement.lang === 'en'", "the finance page")
            try page.type("Groceries", into: "name")
            try page.type("42,50", into: "amount")
            try page.choose("food", in: "category")
            try page.click("#add-form button[type=submit]")
            try page.waitFor("document.getElementById('transactions').innerText.includes('Groceries')", "the new transaction in the table")
        }
        let budgetText = try await onThread { try page.evaluate("document.getElementById('budget').textContent").stringValue ?? "" }
        #expect(budgetText == "Budget for March 2026: spent €42.50 of €500.00 (8%), €457.50 left.")
        #expect(try await onThread { try page.evaluate("document.querySelector('#chart svg title').textContent") } == "Expenses by category, March 2026")
        #expect(try await onThread { try page.evaluate("document.querySelectorAll('#chart svg rect').length") } == 1)
        #expect(try await onThread { try page.evaluate("document.querySelector('#chart svg text').textContent") } == "Food: €42.50 (100%)")
        #expect(try await onThread { try page.evaluate("document.querySelectorAll('#line-chart svg polyline').length") } == 2)
        let totals = try await onThread { try page.evaluate("document.getElementById('overview-totals').textContent").stringValue ?? "" }
        #expect(totals == "March 2026: income €0.00, expenses €42.50, balance -€42.50.")
        let row = try await onThread { try page.evaluate("document.querySelector('#transactions tbody tr').innerText").stringValue ?? "" }
        #expect(row.contains("Mar 2, 2026") && row.contains("Groceries") && row.contains("Food") && row.contains("-€42.50"))
        #expect(try await onThread { try page.evaluate("document.getElementById('tutorial-title').textContent") } == "Overview")
        #expect(try await onThread { try page.evaluate("document.getElementById('tutorial-page').textContent") } == "Page 1 of 5.")
        #expect(try await onThread { try page.evaluate("document.getElementById('goals').textContent") } == "No goals yet.")
        let unlabelled = try await onThread { try page.evaluate("""
            [...document.querySelectorAll('input, select, textarea')]
              .filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.id).join(',')
            """) }
        #expect(unlabelled == "")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("finance", in: Self.artifacts) }
        _ = try await serve.terminate()
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func theStressPageTakesConsentThenADiaryRecordAndANote() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-stress")
        try Self.copyShippedManifest("stress", into: ws)
        ws.writeDeployment(plugins: [["id": "cz.tessera.stress", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        let text: @Sendable (String) async throws -> String = { id in
            try await onThread { try page.evaluate("document.getElementById('\(id)').textContent").stringValue ?? "" }
        }

        // In Czech: each form refuses bad input with a sentence next to it, then takes good input.
        try await onThread {
            try Self.signIn(page, at: base, with: token)
            try page.evaluate("localStorage.setItem('tessera.language', 'cs')")
            try page.navigate(base + "/ui/cz.tessera.stress/")
            try page.waitFor("location.pathname.startsWith('/ui/cz.tessera.stress/') && document.body.dataset.ready === 'true' && !document.getElementById('consent-section').hidden",
                             "the consent form")
            try page.click("#consent-form button[type=submit]")  // the box not ticked
            try page.waitFor("document.getElementById('consent-error').textContent !== ''", "the refusal without consent")
        }
        #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == "cs")
        // The module's reason (consent required) says more than the field alone.
        #expect(try await text("consent-error") == "Nejdřív prosím dej souhlas s účastí ve výzkumu: zaškrtni, že souhlasíš.")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread {
            try page.screenshots("stress-consent-cs", in: Self.artifacts)
            try page.click("#consent-accept")
            try page.click("#consent-form button[type=submit]")
            try page.waitFor("!document.getElementById('diary-section').hidden && document.body.dataset.ready === 'true'", "the diary after consenting")
            try page.click("#levels input[value='2']")
            try page.type("   ", into: "answer")  // only spaces
            try page.click("#record-form button[type=submit]")
            try page.waitFor("document.getElementById('record-error').textContent !== ''", "the refusal of an empty record")
        }
        #expect(try await text("record-error") == "Napiš sem prosím pár slov (nejvýše 4 000 znaků).")
        #expect(try await onThread { try page.evaluate("document.getElementById('answer').getAttribute('aria-invalid')") } == "true")
        try await onThread {
            try page.evaluate("document.getElementById('answer').value = ''")
            try page.type("Přednášky celý den", into: "answer")
            try page.click("#record-form button[type=submit]")
            try page.waitFor("document.getElementById('history').innerText.includes('Přednášky celý den')", "the record in the history")
            try page.waitFor("!document.getElementById('note-form').hidden", "the note form, once a record exists today")
            try page.type("   ", into: "note")
            try page.click("#note-form button[type=submit]")
            try page.waitFor("document.getElementById('note-error').textContent !== ''", "the refusal of an empty note")
        }
        #expect(try await text("note-error") == "Napiš sem prosím pár slov (nejvýše 4 000 znaků).")
        #expect(try await text("record-error") == "")
        let czechWeeks = try await onThread { try page.evaluate("document.getElementById('weeks').innerText").stringValue ?? "" }
        #expect(czechWeeks.contains("Cíle: zavřeno — otevře se po vyplnění vstupních dotazníků"))
        #expect(try await text("next-step") == "Vyplň dva vstupní dotazníky a otevře se ti první týden.")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("stress-diary-cs", in: Self.artifacts) }

        // In English: the module's texts follow the page's language; a note, the weeks' states.
        try await onThread {
            try page.evaluate("localStorage.setItem('tessera.language', 'en')")
            try page.navigate(base + "/ui/cz.tessera.stress/")
            try page.waitFor("document.documentElement.lang === 'en' && document.body.dataset.ready === 'true' && !document.getElementById('note-form').hidden",
                             "the diary in English")
            try page.type("Večer lepší", into: "note")
            try page.click("#note-form button[type=submit]")
            try page.waitFor("document.getElementById('history').innerText.includes('Note: Večer lepší') && document.getElementById('status').textContent !== ''",
                             "the note in the history")
        }
        #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == "en")
        let weeks = try await onThread { try page.evaluate("document.getElementById('weeks').innerText").stringValue ?? "" }
        #expect(weeks.contains("Goals: closed — opens after the entry questionnaires"))
        #expect(try await text("status") == "The note is added.")
        let levels = try await onThread { try page.evaluate("document.getElementById('levels').innerText").stringValue ?? "" }
        #expect(levels.contains("Tired"))
        let record = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.stress/ops/diary-list",
                                                  headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: Array("{}".utf8))
        #expect(record.text.contains("\"level\":2") && record.text.contains("Přednášky celý den"))
        let unlabelled = try await onThread { try page.evaluate("""
            [...document.querySelectorAll('input, select, textarea')]
              .filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.id || c.name).join(',')
            """) }
        #expect(unlabelled == "")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("stress-diary", in: Self.artifacts) }
        _ = try await serve.terminate()
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func theSTAGCallbackPageCompletesTheSingleSignOnAndDropsTheTicketFromTheAddress() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let emulator = try await STAGEmulator.start()
        try await withCleanup({ await emulator.stop() }) {
            let ws = FixtureWorkspace("http-browser-stag")
            try Self.copyShippedManifest("stag", into: ws)
            let empty: [String: Any] = [:]
            ws.writeDeployment(plugins: [["id": "cz.tessera.stag", "grants": ["storage": empty, "clock": empty, "secrets": empty,
                                                                               "http": ["hosts": ["stag-demo.zcu.cz"]]]]],
                               extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-01-01T00:00:00Z"],
                                                     "http": ["redirects": ["https://stag-demo.zcu.cz": emulator.origin]]]])
            let serve = try await ServeProcess.start(ws)
            defer { serve.process.terminate() }
            let token = try #require(serve.adminToken)
            let base = "http://127.0.0.1:\(serve.port)"
            // The university's SSO (the emulator's) sends the browser back with the ticket.
            let back = try await RawHTTPClient.request(port: emulator.port, "GET",
                                                       "/ws/login?originalURL=\(base)/ui/cz.tessera.stag/callback.html&longTicket=true")
            let location = try #require(back.headers["location"])
            let browser = try await HeadlessChromium.launch(executable: executable)
            defer { browser.quit() }
            let page = try await onThread { try BrowserPage(browser) }
            try await onThread {
                try Self.signIn(page, at: base, with: token)
                try page.navigate(base + "/ui/cz.tessera.stag/")
                try page.waitFor("location.pathname.startsWith('/ui/cz.tessera.stag/') && document.body.dataset.ready === 'true'", "the IS/STAG page")
            }
            let universities = "[...document.getElementById('university').options].map((o) => o.text).join('|')"
            #expect(try await onThread { try page.evaluate(universities).stringValue ?? "" }.contains("IS/STAG demo (ZČU)"))
            #expect(try await onThread { try page.developerText() } == [])
            try await onThread {
                try page.evaluate("sessionStorage.setItem('stag.login', JSON.stringify({university: 'demo'}))")
                try page.navigate(location)
                try page.waitFor("location.pathname.endsWith('/callback.html') && document.body.dataset.ready === 'true'", "the callback page")
            }
            let shown = try await onThread { try page.evaluate("document.getElementById('status').textContent").stringValue ?? "" }
            #expect(shown == "Logged in as Jana Nováková (student).")  // the role through the catalogue
            #expect(try await onThread { try page.evaluate("location.search") } == "")  // the ticket left the address bar
            #expect(try await onThread { try page.developerText() } == [])
            try await onThread { try page.use(.phone) }
            #expect(try await onThread { try page.fitsItsWidth() })
            try await onThread { try page.screenshots("stag-callback", in: Self.artifacts) }
            let profile = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.stag/ops/profile",
                                                       headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: Array("{}".utf8))
            #expect(profile.status == 200 && profile.text.contains("A20B0001P"))

            // In Czech: the login form refuses a university that is not in the list with a sentence
            // next to it (the select marked), the demo's name is Czech; the page fits a phone.
            try await onThread {
                try page.evaluate("localStorage.setItem('tessera.language', 'cs')")
                try page.navigate(base + "/ui/cz.tessera.stag/")
                try page.waitFor("document.documentElement.lang === 'cs' && document.body.dataset.ready === 'true'", "the IS/STAG page in Czech")
                try page.choose("", in: "university")
                try page.click("#login-form button[type=submit]")
                try page.waitFor("document.getElementById('login-error').textContent !== ''", "the refused university")
            }
            #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == "cs")
            #expect(try await onThread { try page.evaluate("document.getElementById('login-error').textContent") } == "Vyberte svou univerzitu ze seznamu.")
            #expect(try await onThread { try page.evaluate("document.getElementById('university').getAttribute('aria-invalid')") } == "true")
            #expect(try await onThread { try page.evaluate(universities).stringValue ?? "" }.contains("Ukázkový IS/STAG (ZČU)"))
            #expect(try await onThread { try page.developerText() } == [])
            try await onThread { try page.use(.phone) }
            #expect(try await onThread { try page.fitsItsWidth() })
            try await onThread { try page.screenshots("stag-login", in: Self.artifacts) }

            // In Czech, a ticket the module refuses (not 64 hexadecimal digits): a Czech sentence and
            // the way back to the login, no path, no pattern; the ticket leaves the address bar too.
            try await onThread {
                try page.navigate(base + "/ui/cz.tessera.stag/callback.html?stagUserTicket=not-a-ticket")
                try page.waitFor("location.pathname.endsWith('/callback.html') && document.body.dataset.ready === 'true'", "the refused callback in Czech")
            }
            #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == "cs")
            #expect(try await onThread { try page.evaluate("document.getElementById('status').textContent") }
                    == "Přihlášení z univerzity nejde použít, možná už vypršelo. Přihlásit se znovu")
            #expect(try await onThread { try page.evaluate("location.search") } == "")
            #expect(try await onThread { try page.developerText() } == [])
            try await onThread { try page.evaluate("localStorage.removeItem('tessera.language')") }
            _ = try await serve.terminate()
        }
    }

    /// Copies `manifests/<name>.json` into `ws`, its `ui` folder (relative to the repository's
    /// manifests) made absolute so that the copy still finds the module's page.
    static func copyShippedManifest(_ name: String, into ws: FixtureWorkspace) throws {
        var manifest = try JSONValue(parsing: try String(contentsOfFile: Fixtures.repositoryRoot + "/manifests/\(name).json", encoding: .utf8))
        if case .object(var members) = manifest, case .object(var ui)? = members["ui"], let folder = ui["folder"]?.stringValue {
            ui["folder"] = .string(URL(fileURLWithPath: Fixtures.repositoryRoot + "/manifests/" + folder).standardizedFileURL.path)
            members["ui"] = .object(ui)
            manifest = .object(members)
        }
        Fixtures.write(manifest.serialized(), to: ws.root + "/\(name).json")
    }

    /// The grants the shipped default deployment (`manifests/deployments/default.json`) gives the
    /// plugin `id`: a module's page is walked with what an operator's first start gives it.
    static func shippedGrants(of id: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.repositoryRoot + "/manifests/deployments/default.json"))
        let deployment = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let plugins = try #require(deployment["plugins"] as? [[String: Any]])
        let plugin = try #require(plugins.first { $0["id"] as? String == id }, "the default deployment enables \(id)")
        return try #require(plugin["grants"] as? [String: Any])
    }

    /// Opens the console and signs in with `token`, as an operator does; the token is then kept
    /// for the tab, so modules' pages use it too.
    static func signIn(_ page: BrowserPage, at base: String, with token: String) throws {
        try page.navigate(base + "/")
        try page.waitFor("document.body.dataset.signIn === 'shown'", "the sign-in form")
        try page.evaluate("document.getElementById('token-details').open = true")
        try page.type(token, into: "token-input")
        try page.click("#token-form button[type=submit]")
        try page.waitFor("document.body.dataset.ready === 'true'", "the console to load")
    }
}
