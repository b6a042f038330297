import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Safe travel's page in a real headless Chromium, against the real `tessera serve` on a virtual
/// clock: set up with a PIN, start a trip through the form, positions through the OwnTracks route
/// (`POST /v1/location`) while the clock moves, the walked track drawn as SVG beside the
/// destination, the summary in sentences (the arrival time formatted and relative to the host's
/// clock, the distance in km), a wrong PIN shown as a sentence, then the trip ended. And the same
/// page in Czech: bad input to each of its forms, each answered in Czech next to the form.
/// Screenshots at phone and desktop size in artifacts/ (safetravel-*, safetravel-cs-*).
@Suite(.needs("chromium")) struct SafeTravelBrowserTests {
    static func post(_ serve: ServeProcess, _ path: String, _ body: String, token: String) async throws -> String {
        let answer = try await RawHTTPClient.request(port: serve.port, "POST", path,
                                                     headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                     body: Array(body.utf8))
        return answer.text
    }

    static func serve(_ name: String) async throws -> ServeProcess {
        let ws = FixtureWorkspace(name)
        try ConsoleBrowserTests.copyShippedManifest("safetravel", into: ws)
        ws.writeDeployment(plugins: [["id": "cz.tessera.safetravel",
                                      "config": ["requireGuardians": false, "pinIterations": 1000] as [String: Any],
                                      "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "location": [:] as [String: Any],
                                                 "notifications": ["spaces": true], "sync": [:] as [String: Any], "files": [:] as [String: Any]]]])
        return try await ServeProcess.start(ws)
    }

    /// Sets the input `id` to `value` (replacing what it held), as the page reads it on submit.
    static func set(_ page: BrowserPage, _ id: String, _ value: String) throws {
        try page.evaluate("document.getElementById(\(BrowserPage.quoted(id))).value = \(BrowserPage.quoted(value))")
    }

    /// Chooses `instant` in the datetime-local input `id`, written in the browser's own time zone.
    static func setLocalTime(_ page: BrowserPage, _ id: String, _ instant: String) throws {
        try page.evaluate("""
            (() => { const d = new Date(\(BrowserPage.quoted(instant))); const p = (n) => String(n).padStart(2, '0');
                     document.getElementById(\(BrowserPage.quoted(id))).value =
                       `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`; })()
            """)
    }

    /// What console/format.js makes of `expression` on this page (its functions as `f`, in the
    /// page's language): "f.dateTime('2026-03-02T08:30:00Z')" is "Mar 2, 2026, 8:30 AM" in English and UTC.
    static func formatted(_ page: BrowserPage, _ expression: String) throws -> String {
        try page.evaluate("(async () => { const f = await import(location.origin + '/console/format.js'); return \(expression); })()").stringValue ?? ""
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func theTravellerSetsUpStartsATripSeesItsTrackAndEndsIt() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let serve = try await Self.serve("http-browser-safetravel")
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try ConsoleBrowserTests.signIn(page, at: base, with: token)
            try page.navigate(base + "/ui/cz.tessera.safetravel/")
            try page.waitFor("document.body.dataset.ready === 'true' && !document.getElementById('setup-section').hidden", "the set-up form")
            try page.type("ada", into: "username")
            try page.type("4826", into: "setup-pin")
            try page.click("#setup-form button[type=submit]")
            try page.waitFor("!document.getElementById('start-form').hidden && document.body.dataset.ready === 'true'", "the trip form")
            try page.type("Home", into: "dest-name")
            try page.type("50.088", into: "dest-lat")
            try page.type("14.42", into: "dest-lon")
            try Self.setLocalTime(page, "eta", "2026-03-02T08:30:00Z")
            try page.click("#start-form button[type=submit]")
            try page.waitFor("!document.getElementById('active-trip').hidden", "the active trip")
        }
        // A walk north, a fix a minute through the OwnTracks route, the clock moved by the server's route.
        for minute in 0..<4 {
            let tst = 1_772_438_400 + minute * 60
            _ = try await Self.post(serve, "/v1/location", #"{"_type": "location", "lat": \#(50.07 + 0.002 * Double(minute)), "lon": 14.42, "tst": \#(tst), "acc": 8, "batt": \#(80 - minute), "topic": "owntracks/ada/phone"}"#, token: token)
            _ = try await Self.post(serve, "/v1/clock/advance", #"{"by": "1m"}"#, token: token)
        }
        try await onThread {
            try page.navigate(base + "/ui/cz.tessera.safetravel/")
            try page.waitFor("document.body.dataset.ready === 'true' && document.querySelector('#track polyline.walked')", "the track")
        }
        let walked = try await onThread { try page.evaluate("document.querySelector('#track polyline.walked').getAttribute('points').split(' ').length") }
        #expect(walked.doubleValue == 4)
        #expect(try await onThread { try page.evaluate("document.querySelectorAll('#track circle.destination').length") }.doubleValue == 1)
        // The arrival time as a person reads it, and how far off it is on the host's clock (08:04).
        let eta = try await onThread { try Self.formatted(page, "f.dateTime('2026-03-02T08:30:00Z')") }
        let summary = try await onThread { try page.evaluate("document.getElementById('trip-summary').textContent").stringValue ?? "" }
        #expect(summary == "To Home. Expected by \(eta) (in 26 minutes). 1.3 km to go.", "\(summary)")
        #expect(try await onThread { try page.evaluate("document.getElementById('positions').rows.length") }.doubleValue == 4)
        let firstRow = try await onThread { try page.evaluate("[...document.getElementById('positions').rows[0].cells].slice(1).map((c) => c.textContent).join('|')") }
        let position = try await onThread { try Self.formatted(page, "f.coordinates(50.07, 14.42)") }
        #expect(position.hasPrefix("50.07") && position.contains("° N, 14.42"))
        #expect(firstRow.stringValue == position + "|80%")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("safetravel", in: ConsoleBrowserTests.artifacts) }

        try await onThread {
            try page.type("0000", into: "end-pin")
            try page.click("#end-form button[type=submit]")
            try page.waitFor("document.getElementById('end-error').textContent !== ''", "the wrong PIN's sentence")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('end-error').textContent") } == "That PIN is not right. Try again.")
        #expect(try await onThread { try page.evaluate("document.getElementById('end-pin').getAttribute('aria-invalid')") } == "true")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread {
            try page.type("4826", into: "end-pin")
            try page.click("#end-form button[type=submit]")
            try page.waitFor("!document.getElementById('start-form').hidden && document.body.dataset.ready === 'true'", "the trip ended")
        }
        #expect(try await onThread { try page.evaluate("document.getElementById('status').textContent") } == "The trip has ended. Welcome back!")
        let unlabelled = try await onThread { try page.evaluate("""
            [...document.querySelectorAll('input, select, textarea')]
              .filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.id || c.name).join(',')
            """) }
        #expect(unlabelled == "")
        #expect(try await Self.post(serve, "/v1/plugins/cz.tessera.safetravel/ops/trips", "{}", token: token).contains("\"state\":\"ENDED\""))
        _ = try await serve.terminate()
    }

    /// Each form of the traveller's page, in Czech, given what it cannot use: the sentence in Czech
    /// next to the form, the field at fault marked, no code nor path on the page.
    @Test(.hangWatchdog) func theTravellerIsToldInCzechWhatIsWrongWithEachForm() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let serve = try await Self.serve("http-browser-safetravel-cs")
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        let text = { (id: String) async throws -> String in
            try await onThread { try page.evaluate("document.getElementById(\(BrowserPage.quoted(id))).textContent").stringValue ?? "" }
        }
        let invalid = { (id: String) async throws -> Bool in
            try await onThread { try page.evaluate("document.getElementById(\(BrowserPage.quoted(id))).getAttribute('aria-invalid')") } == "true"
        }
        // Submits `form` and waits for its sentence in `output`.
        let refused = { (form: String, output: String) async throws -> Void in
            try await onThread {
                try page.evaluate("document.getElementById(\(BrowserPage.quoted(output))).textContent = ''")
                try page.click("#\(form) button[type=submit]")
                try page.waitFor("document.getElementById(\(BrowserPage.quoted(output))).textContent !== ''", "the refusal at \(form)")
            }
        }
        try await onThread {
            try ConsoleBrowserTests.signIn(page, at: base, with: token)
            try page.evaluate("localStorage.setItem('tessera.language', 'cs')")
            try page.navigate(base + "/ui/cz.tessera.safetravel/")
            try page.waitFor("document.body.dataset.ready === 'true' && !document.getElementById('setup-section').hidden", "the set-up form")
        }
        #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == "cs")
        #expect(try await text("setup-heading") == "Nastavení")

        // Set up with a PIN too short.
        try await onThread {
            try page.type("ada", into: "username")
            try page.type("12", into: "setup-pin")
        }
        try await refused("setup-form", "setup-error")
        #expect(try await text("setup-error") == "PIN má 4 až 8 číslic.")
        #expect(try await invalid("setup-pin"))
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread {
            try page.type("4826", into: "setup-pin")
            try page.click("#setup-form button[type=submit]")
            try page.waitFor("!document.getElementById('start-form').hidden && document.body.dataset.ready === 'true'", "the trip form")
        }

        // A trip to a latitude of 95, then one that would arrive before it starts (07:00; the host's clock is 08:00).
        try await onThread {
            try page.type("Domů", into: "dest-name")
            try page.type("95", into: "dest-lat")
            try page.type("14,42", into: "dest-lon")
            try Self.setLocalTime(page, "eta", "2026-03-02T09:00:00Z")
        }
        try await refused("start-form", "start-error")
        #expect(try await text("start-error") == "Zeměpisná šířka je číslo od -90 do 90, například 50,088.")
        #expect(try await invalid("dest-lat"))
        try await onThread {
            try Self.set(page, "dest-lat", "50,088")  // a decimal comma, as Czech writes it
            try Self.setLocalTime(page, "eta", "2026-03-02T07:00:00Z")
        }
        try await refused("start-form", "start-error")
        #expect(try await text("start-error") == "Tento čas už minul. Zvolte pozdější.")
        #expect(try await invalid("eta"))
        #expect(try await onThread { try page.developerText() } == [])

        // A place with a radius of 10 m.
        try await onThread {
            try page.type("Škola", into: "place-name")
            try page.type("50,08", into: "place-lat")
            try page.type("14,42", into: "place-lon")
            try Self.set(page, "place-radius", "10")
        }
        try await refused("place-form", "place-error")
        #expect(try await text("place-error") == "Poloměr je počet metrů od 25 do 5 000.")
        #expect(try await invalid("place-radius"))

        // The trip started after all (09:00), then its forms: a photo form sent without a photo, an
        // empty message, a PIN too short to end the trip.
        try await onThread {
            try Self.setLocalTime(page, "eta", "2026-03-02T09:00:00Z")
            try page.click("#start-form button[type=submit]")
            try page.waitFor("!document.getElementById('active-trip').hidden && document.body.dataset.ready === 'true'", "the active trip")
        }
        #expect(try await text("status") == "Cesta začala. Šťastnou cestu!")
        #expect(try await text("trip-summary").hasPrefix("Cíl: Domů. Očekávaný příjezd: "))
        try await refused("photo-form", "photo-error")
        #expect(try await text("photo-error") == "Nejdřív vyberte fotku (JPEG, PNG, HEIC nebo WebP).")
        #expect(try await invalid("photo"))
        try await refused("message-form", "message-error")
        #expect(try await text("message-error") == "Napište nějaký text (nejvýše 2 000 znaků).")
        #expect(try await invalid("message"))
        try await onThread { try page.type("12", into: "end-pin") }
        try await refused("end-form", "end-error")
        #expect(try await text("end-error") == "PIN má 4 až 8 číslic.")
        #expect(try await onThread { try page.developerText() } == [])

        // The SOS held for 3 s of the virtual clock and released: the dialog in Czech, a PIN too short, then the right one.
        try await onThread {
            _ = try page.evaluate("document.getElementById('sos').dispatchEvent(new PointerEvent('pointerdown')), true")
            try page.waitFor("document.getElementById('status').textContent === 'SOS: držte tlačítko dál.'", "the press")
        }
        _ = try await Self.post(serve, "/v1/clock/advance", #"{"by": "3s"}"#, token: token)
        try await onThread {
            _ = try page.evaluate("document.getElementById('sos').dispatchEvent(new PointerEvent('pointerup')), true")
            try page.waitFor("document.getElementById('sos-dialog').open", "the PIN dialog")
        }
        #expect(try await text("sos-dialog-text") == "Zadejte PIN do 10 sekund, jinak budou vaši strážci upozorněni.")
        try await onThread { try page.type("12", into: "sos-pin") }
        try await refused("sos-pin-form", "sos-error")
        #expect(try await text("sos-error") == "PIN má 4 až 8 číslic.")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread {
            try page.screenshots("safetravel-cs-sos", in: ConsoleBrowserTests.artifacts)
            try page.type("4826", into: "sos-pin")
            try page.click("#sos-pin-form button[type=submit]")
            try page.waitFor("!document.getElementById('sos-dialog').open && document.body.dataset.ready === 'true'", "safe")
        }
        #expect(try await text("status") == "SOS: jste v bezpečí. Nikdo nebyl upozorněn.")
        #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == "cs")
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("safetravel-cs", in: ConsoleBrowserTests.artifacts) }
        _ = try await serve.terminate()
    }
}
