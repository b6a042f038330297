import Foundation
import Testing
import TesseraSDK
import TesseraSTAGEmulator
import TesseraTestFixtures

/// Issue 40's sweep: every form of every shipped module's page, submitted with bad input, answers
/// a person in their language — never with a JSON path, a regular expression, `(code …)`, a
/// config key, a machine code or an operation's id.
///
/// One `tessera serve` with the five modules (IS/STAG against the emulator, safe travel without a
/// hub), the operator signed in, each page in Czech. On each page every part is shown (the tabs'
/// panels, the sections a state would hide, the closed `<details>`), every text field of every
/// form is emptied and every number made absurd (−999999999), every box unticked, and each form
/// is submitted as a person's Enter would (`requestSubmit`): its own handler runs, the module
/// refuses, the page says why. Once no request is in flight, the page's text is checked; the
/// browser's own checks (no console error, no uncaught exception, no CSP violation) hold too.
///
/// Left out on purpose: safe travel's guardian page, which has no form (its actions are buttons,
/// walked by SafeTravelGuardiansPageBrowserTests); IS/STAG's university sign-on form, whose success leaves the page for the
/// university's site by design (its refusal is checked in STAGStudentBrowserTests).
@Suite(.needs("chromium")) struct ModulePagesBadInputBrowserTests {
    static let pages: [(manifest: String, path: String, skipped: [String])] = [
        ("finance", "/ui/cz.tessera.finance/", []),
        ("stress", "/ui/cz.tessera.stress/", []),
        ("baby", "/ui/cz.tessera.baby/", []),
        ("safetravel", "/ui/cz.tessera.safetravel/", []),
        ("stag", "/ui/cz.tessera.stag/", ["login-form"]),
    ]

    /// Shows every part, empties or spoils every field and submits every form but `skipped`;
    /// answers how many forms were submitted. Requests are counted so the test knows when the
    /// page has heard back from all of them.
    static func submitEverything(skipping skipped: [String]) -> String {
        let skip = skipped.map { "'\($0)'" }.joined(separator: ", ")
        return """
            (() => {
              // Operations only: a page's event stream never ends, and is no answer to wait for.
              window.inFlight = 0;
              window.pending = new Map();
              let next = 0;
              const send = window.fetch.bind(window);
              window.fetch = (resource, ...rest) => {
                const url = String(resource instanceof Request ? resource.url : resource);
                if (!url.includes('/ops/')) return send(resource, ...rest);
                const id = next++;
                window.inFlight += 1;
                window.pending.set(id, url);
                return send(resource, ...rest).finally(() => { window.inFlight -= 1; window.pending.delete(id); });
              };
              // A form the page binds only in a state it is not in (shown here anyway) has no
              // handler yet: its native submission would leave the page. Stopped after the
              // page's own handlers, which still run.
              window.unhandled = [];
              window.addEventListener('submit', (event) => {
                if (!event.defaultPrevented) window.unhandled.push(event.target.id || event.target.className);
                event.preventDefault();
              });
              for (const part of document.querySelectorAll('[hidden]')) part.hidden = false;
              for (const details of document.querySelectorAll('details')) details.open = true;
              const skipped = new Set([\(skip)]);
              const forms = [...document.querySelectorAll('form')].filter((form) => !skipped.has(form.id));
              for (const form of forms) {
                for (const field of form.elements) {
                  if (field.type === 'number') field.value = '-999999999';
                  else if (['text', 'email', 'password', 'search', 'tel', 'url', 'textarea'].includes(field.type)) field.value = '';
                  else if (field.type === 'checkbox') field.checked = false;
                }
              }
              for (const form of forms) form.requestSubmit();
              return forms.length;
            })()
            """
    }

    /// Waits until no operation is in flight; a timeout names the ones still waiting.
    static func waitForTheAnswers(_ page: BrowserPage, _ path: String) throws {
        do {
            try page.waitFor("window.inFlight === 0", "\(path): the answers", seconds: 30)
        } catch {
            let pending = (try? page.evaluate("[...window.pending.values()].join(', ')"))?.stringValue ?? "?"
            throw HeadlessChromium.Failure("\(path): no answer yet to \(pending)")
        }
    }

    /// The operation ids of `manifest` that could not be a word of a sentence (they have a hyphen).
    static func operationIDs(_ manifest: String) throws -> [String] {
        let json = try JSONValue(parsing: try String(contentsOfFile: Fixtures.repositoryRoot + "/manifests/\(manifest).json", encoding: .utf8))
        return (json["operations"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }.filter { $0.contains("-") }
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func everyFormOfEveryModulePageAnswersBadInputWithASentence() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let emulator = try await STAGEmulator.start()
        try await withCleanup({ await emulator.stop() }) {
            let ws = FixtureWorkspace("http-browser-bad-input")
            for name in ["finance", "stress", "baby", "safetravel", "stag"] { try ConsoleBrowserTests.copyShippedManifest(name, into: ws) }
            let empty: [String: Any] = [:]
            ws.writeDeployment(plugins: [
                ["id": "cz.tessera.finance", "grants": ["storage": empty, "clock": empty, "notifications": empty, "events": empty, "secrets": empty,
                                                        "http": ["hosts": ["fioapi.fio.cz"]]]],
                ["id": "cz.tessera.stress", "grants": ["storage": empty, "clock": empty, "notifications": empty]],
                ["id": "cz.tessera.baby", "grants": ["storage": empty, "clock": empty, "notifications": empty, "files": empty]],
                ["id": "cz.tessera.safetravel", "grants": ["storage": empty, "clock": empty, "notifications": empty, "location": empty, "files": empty]],
                ["id": "cz.tessera.stag", "grants": ["storage": empty, "clock": empty, "secrets": empty, "notifications": empty, "events": empty,
                                                     "http": ["hosts": ["stag-demo.zcu.cz"]]]],
            ], extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"],
                                     "http": ["redirects": ["https://stag-demo.zcu.cz": emulator.origin]]]])
            let serve = try await ServeProcess.start(ws)
            defer { serve.process.terminate() }
            let token = try #require(serve.adminToken)
            let base = "http://127.0.0.1:\(serve.port)"
            let browser = try await HeadlessChromium.launch(executable: executable)
            defer { browser.quit() }
            let page = try await onThread { try BrowserPage(browser) }
            try await onThread {
                try ConsoleBrowserTests.signIn(page, at: base, with: token)
                try page.evaluate("localStorage.setItem('tessera.language', 'cs')")
            }

            var submitted = 0
            for (manifest, path, skipped) in Self.pages {
                let operations = try Self.operationIDs(manifest)
                let forms = try await onThread { () -> Int in
                    try page.navigate(base + path)
                    try page.waitFor("location.pathname === '\(path)' && document.documentElement.lang === 'cs' && document.body.dataset.ready === 'true'",
                                     "\(path) in Czech")
                    let count = try page.evaluate(Self.submitEverything(skipping: skipped)).integerValue ?? 0
                    // Heard back from every request, and from any a handler sent after its answer.
                    try Self.waitForTheAnswers(page, path)
                    try page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
                    try Self.waitForTheAnswers(page, path)
                    try page.evaluate("for (const part of document.querySelectorAll('[hidden]')) part.hidden = false")
                    return Int(count)
                }
                #expect(forms > 0, "\(path): no form found")
                submitted += forms
                #expect(try await onThread { try page.developerText() } == [], "\(path)")
                let text = try await onThread { try page.evaluate("document.body.innerText").stringValue ?? "" }
                let named = operations.filter { text.range(of: "\\b\($0)\\b", options: .regularExpression) != nil }
                #expect(named.isEmpty, "\(path) names its operations to a person: \(named)")
                #expect(text.contains("Oops") == false && text.contains("undefined") == false && text.contains("[object Object]") == false,
                        "\(path): a broken sentence")
            }
            #expect(submitted >= 40, "only \(submitted) forms on the five modules' pages")
            print("bad-input sweep: \(submitted) forms submitted on \(Self.pages.count) pages")
            try await onThread { try page.screenshots("bad-input-last-page", in: ConsoleBrowserTests.artifacts) }
            _ = try await serve.terminate()
        }
    }
}
