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
            try page.waitFor("document.getElementById('stream-status').textContent.startsWith('Live')", "the stream to be live")
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

        // The example plugin's page: the note listed, one bar for its day.
        try await onThread {
            try page.navigate(base + "/ui/dev.tessera.example/")
            try page.waitFor("document.body.dataset.ready === 'true'", "the notes page")
            try page.screenshot(to: Self.artifacts + "/example-notes.png")
        }
        let notes = try await onThread { try page.evaluate("document.getElementById('notes').innerText").stringValue ?? "" }
        #expect(notes.contains("written in the browser"))
        #expect(try await onThread { try page.evaluate("document.querySelectorAll('#chart rect.bar').length") } == 1)
        #expect(try await onThread { try page.evaluate("document.getElementById('chart-desc').textContent") } == "2026-03-02: 1 note")

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
        try await onThread {
            try Self.signIn(page, at: base, with: token)
            try page.navigate(base + "/ui/cz.tessera.finance/")
            try page.waitFor("document.body.dataset.ready === 'true'", "the finance page")
            try page.type("Groceries", into: "name")
            try page.type("42,50", into: "amount")
            try page.choose("food", in: "category")
            try page.click("#add-form button[type=submit]")
            try page.waitFor("document.getElementById('transactions').innerText.includes('Groceries')", "the new transaction in the table")
            try page.screenshot(to: Self.artifacts + "/finance.png")
        }
        let budgetText = try await onThread { try page.evaluate("document.getElementById('budget').textContent").stringValue ?? "" }
        #expect(budgetText.contains("spent 42.50 of 500.00 EUR (8 %)"))
        #expect(try await onThread { try page.evaluate("document.querySelector('#chart svg title').textContent.startsWith('Expenses by category')") } == true)
        #expect(try await onThread { try page.evaluate("document.querySelectorAll('#chart svg rect').length") } == 1)
        #expect(try await onThread { try page.evaluate("document.querySelectorAll('#line-chart svg polyline').length") } == 2)
        #expect(try await onThread { try page.evaluate("document.getElementById('tutorial-title').textContent") } == "Overview")
        #expect(try await onThread { try page.evaluate("document.getElementById('goals').textContent") } == "No goals yet.")
        let unlabelled = try await onThread { try page.evaluate("""
            [...document.querySelectorAll('input, select, textarea')]
              .filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.id).join(',')
            """) }
        #expect(unlabelled == "")
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
        try await onThread {
            try Self.signIn(page, at: base, with: token)
            try page.navigate(base + "/ui/cz.tessera.stress/")
            try page.waitFor("document.body.dataset.ready === 'true' && !document.getElementById('consent-section').hidden", "the consent form")
            try page.click("#consent-accept")
            try page.click("#consent-form button[type=submit]")
            try page.waitFor("!document.getElementById('diary-section').hidden && document.body.dataset.ready === 'true'", "the diary after consenting")
            try page.click("#levels input[value='2']")
            try page.type("Přednášky celý den", into: "answer")
            try page.click("#record-form button[type=submit]")
            try page.waitFor("document.getElementById('history').innerText.includes('Přednášky celý den')", "the record in the history")
            try page.waitFor("!document.getElementById('note-form').hidden", "the note form, once a record exists today")
            try page.type("Večer lepší", into: "note")
            try page.click("#note-form button[type=submit]")
            try page.waitFor("document.getElementById('history').innerText.includes('Note: Večer lepší')", "the note in the history")
            try page.screenshot(to: Self.artifacts + "/stress.png")
        }
        let weeks = try await onThread { try page.evaluate("document.getElementById('weeks').innerText").stringValue ?? "" }
        #expect(weeks.contains("Cíle: closed — after the entry questionnaires"))
        let record = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.stress/ops/diary-list",
                                                  headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: Array("{}".utf8))
        #expect(record.text.contains("\"level\":2") && record.text.contains("Přednášky celý den"))
        let unlabelled = try await onThread { try page.evaluate("""
            [...document.querySelectorAll('input, select, textarea')]
              .filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.id || c.name).join(',')
            """) }
        #expect(unlabelled == "")
        _ = try await serve.terminate()
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func theSTAGCallbackPageCompletesTheSingleSignOnAndDropsTheTicketFromTheAddress() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let emulator = try await STAGEmulator.start()
        defer { Task { await emulator.stop() } }
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
            try page.waitFor("document.body.dataset.ready === 'true'", "the IS/STAG page")
            try page.evaluate("sessionStorage.setItem('stag.login', JSON.stringify({university: 'demo'}))")
            try page.navigate(location)
            try page.waitFor("document.body.dataset.ready === 'true'", "the callback page")
        }
        let shown = try await onThread { try page.evaluate("document.getElementById('status').textContent").stringValue ?? "" }
        #expect(shown == "Logged in as Jana Nováková (student).")
        #expect(try await onThread { try page.evaluate("location.search") } == "")  // the ticket left the address bar
        let profile = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.stag/ops/profile",
                                                   headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: Array("{}".utf8))
        #expect(profile.status == 200 && profile.text.contains("A20B0001P"))
        _ = try await serve.terminate()
    }

    /// Copies `manifests/<name>.json` into `ws`, its `ui` folder (relative to the repository's
    /// manifests) made absolute so that the copy still finds the module's page.
    static func copyShippedManifest(_ name: String, into ws: FixtureWorkspace) throws {
        var manifest = try JSONValue(parsing: try String(contentsOfFile: Fixtures.repositoryRoot + "/manifests/\(name).json", encoding: .utf8))
        if case .object(var members) = manifest, let folder = members["ui"]?["folder"]?.stringValue, let title = members["ui"]?["title"] {
            let absolute = URL(fileURLWithPath: Fixtures.repositoryRoot + "/manifests/" + folder).standardizedFileURL.path
            members["ui"] = ["folder": .string(absolute), "title": title]
            manifest = .object(members)
        }
        Fixtures.write(manifest.serialized(), to: ws.root + "/\(name).json")
    }

    /// Opens the console and signs in with `token`, as an operator does; the token is then kept
    /// for the tab, so modules' pages use it too.
    static func signIn(_ page: BrowserPage, at base: String, with token: String) throws {
        try page.navigate(base + "/")
        try page.waitFor("document.body.dataset.console === 'started'", "the console's script")
        try page.type(token, into: "token-input")
        try page.click("#token-form button[type=submit]")
        try page.waitFor("document.body.dataset.ready === 'true'", "the console to load")
    }
}
