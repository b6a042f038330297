import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The baby diary's page in a real headless Chromium against the real `tessera serve`: the child
/// with its age, the growth chart of its weights, a measurement added through the form (the chart
/// and the timeline follow), the health card, a post whose photo file is uploaded through the form
/// and then rendered from `photo-get` (as is the child's photo), the calendar's month switched, a
/// doctor added through the contact form and shared as a vCard, an illness with a temperature in it,
/// an invitation by e-mail refused clearly without a hub, and every control labelled. Every text is
/// English in words and formats (dates "Mar 1, 2026", "8.35 kg"), nothing meant for developers is
/// shown, and the page fits a phone. A second flow, in Czech, submits bad input to the child, the
/// measurement and the record forms and reads a Czech sentence under each.
/// The screenshots are artifacts/baby-phone.png, baby-desktop.png and baby-cs-errors-*.png.
@Suite(.needs("chromium")) struct BabyConsoleBrowserTests {
    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func thePageShowsTheChildsGrowthAndAddsAMeasurement() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-baby")
        try ConsoleBrowserTests.copyShippedManifest("baby", into: ws)
        let grants: [String: Any] = ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "notifications": [:] as [String: Any],
                                     "files": [:] as [String: Any]]
        ws.writeDeployment(plugins: [["id": "cz.tessera.baby", "grants": grants]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        func call(_ operation: String, _ body: String) async throws -> JSONValue {
            let response = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.baby/ops/\(operation)",
                                                           headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                           body: Array(body.utf8))
            return try JSONValue(parsing: response.text)
        }
        let child = try #require(try await call("child-create", #"{"name": "Ema", "birthDate": "2025-06-15", "weightKg": 8.2}"#)["id"]?.stringValue)
        _ = try await call("measurement-add", #"{"childId": "\#(child)", "kind": "weight", "value": 7.9, "date": "2026-02-01"}"#)
        _ = try await call("health-card-set", #"{"childId": "\#(child)", "bloodGroup": "A+", "insurer": "111"}"#)
        _ = try await call("allergy-add", #"{"childId": "\#(child)", "allergen": "pyl", "severity": "moderate"}"#)
        // The child's photo (2×2), shown beside the name.
        let portrait = try #require(try await call("photo-put", #"{"data": "\#(Self.portraitPNG)"}"#)["address"]?.stringValue)
        _ = try await call("child-update", #"{"id": "\#(child)", "photo": "\#(portrait)"}"#)
        // A real PNG (48×32) for the post's file input.
        let photoFile = ws.root + "/zahrada.png"
        try Data(base64Encoded: Self.photoPNG)!.write(to: URL(fileURLWithPath: photoFile))

        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try ConsoleBrowserTests.signIn(page, at: base, with: token)
            try page.navigate(base + "/ui/cz.tessera.baby/")
            try page.waitFor("document.body.dataset.ready === 'true'", "the page to load")
            try page.waitFor("document.getElementById('children').innerText.includes('Ema · born Jun 15, 2025 · 8 months and 15 days · your role: owner')",
                             "the child, its birth date and its age")
            try page.waitFor("document.querySelectorAll('#chart circle').length === 2", "the two weights on the chart")
            try page.waitFor("[...document.querySelectorAll('#children img')].some((i) => i.complete && i.naturalWidth === 2)", "the child's photo rendered")
            try page.openDiaryTab("growth")
            try page.type("8.35", into: "value")
            try page.evaluate("document.getElementById('date').value = '2026-03-01'")
            try page.click("#measurement-form button[type=submit]")
            try page.waitFor("document.querySelectorAll('#chart circle').length === 3", "the new weight on the chart")
            try page.waitFor("document.getElementById('status').textContent === 'Measurement added.'", "the measurement added")
            try page.openDiaryTab("overview")
            try page.waitFor("document.getElementById('timeline').innerText.includes('Mar 1, 2026 · Weight: 8.35 kg')", "the weight in the timeline")

            // The health card.
            try page.openDiaryTab("health")
            try page.waitFor("document.getElementById('health-card').innerText.includes('A+')", "the blood group")
            try page.waitFor("document.getElementById('health-card').innerText.includes('111 Všeobecná')", "the insurer")
            try page.waitFor("document.getElementById('health-card').innerText.includes('pyl (moderate)')", "the allergy")

            // A post with a photo file through the form: uploaded, kept by the post, rendered.
            try page.openDiaryTab("posts")
            try page.type("U babičky na zahradě", into: "post-text")
            try page.evaluate("document.getElementById('post-date').value = '2026-02-28'")
            let document = try page.send("DOM.getDocument")
            let input = try page.send("DOM.querySelector", ["nodeId": document["root"]?["nodeId"] ?? .null, "selector": "#post-photos"])
            _ = try page.send("DOM.setFileInputFiles", ["nodeId": input["nodeId"] ?? .null, "files": [.string(photoFile)]])
            try page.click("#post-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent === 'Post added.'", "the post added")
            try page.waitFor("[...document.querySelectorAll('#posts img')].some((i) => i.complete && i.naturalWidth === 48)", "the post's photo in its list")
            try page.openDiaryTab("overview")
            try page.waitFor("[...document.querySelectorAll('#timeline img')].some((i) => i.complete && i.naturalWidth === 48)", "the post's photo rendered")

            // The calendar: March has the new weight; February, one month back, the post and the first weight.
            try page.openDiaryTab("calendar")
            try page.waitFor("document.getElementById('calendar-month').dataset.month === '2026-03'", "the calendar at March")
            #expect(try page.evaluate("document.getElementById('calendar-month').textContent") == "March 2026")
            try page.waitFor("document.querySelector('#calendar-grid td[data-date=\"2026-03-01\"]').innerText.includes('1 measurement')", "March 1st's weight")
            try page.click("#calendar-previous")
            try page.waitFor("document.getElementById('calendar-month').textContent === 'February 2026'", "the calendar at February")
            try page.waitFor("document.querySelector('#calendar-grid td[data-date=\"2026-02-28\"]').innerText.includes('1 post')", "the post on February 28th")
            try page.click("#calendar-grid button[data-date=\"2026-02-28\"]")
            try page.waitFor("document.getElementById('calendar-day').innerText.includes('U babičky na zahradě')", "the day's post")

            // A doctor through the contact form: listed with its tel: link, and shared as a vCard download.
            try page.openDiaryTab("contacts")
            try page.evaluate("document.getElementById('contact-kind').value = 'doctor'")
            try page.type("MUDr. Nováková", into: "contact-name")
            try page.type("+420 123 456 789", into: "contact-phone")
            try page.type("pediatrie", into: "contact-specialization")
            try page.click("#contact-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent === 'Contact added.'", "the contact added")
            try page.waitFor("document.getElementById('contacts').innerText.includes('MUDr. Nováková (doctor) — pediatrie')", "the doctor listed")
            try page.waitFor("document.querySelector('#contacts a[href^=\"tel:\"]').getAttribute('href') === 'tel:+420123456789'", "the tel: link")
            try page.waitFor("[...document.querySelectorAll('#visit-doctor option')].some((o) => o.textContent === 'MUDr. Nováková')", "the doctor offered for a visit")
            try page.click("#contacts button[aria-label^=\"Share\"]")
            try page.waitFor("(() => { const a = document.querySelector('#contacts a.vcard'); return a && a.download.endsWith('.vcf') && decodeURIComponent(a.href).includes('FN:MUDr. Nováková') })()", "the vCard download")

            // An illness, then a temperature entered into it: the illness's course shows it with its fever class.
            try page.openDiaryTab("illnesses")
            try page.type("Angína", into: "problem-name")
            try page.evaluate("document.getElementById('problem-start').value = '2026-03-01'")
            try page.click("#problem-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent === 'Illness or injury added.'", "the illness added")
            try page.waitFor("document.getElementById('temperature-problem').options.length === 2", "the illness offered for a temperature")
            try page.type("38.6", into: "temperature-value")
            try page.evaluate("document.getElementById('temperature-at').value = '2026-03-01T19:30'")
            try page.evaluate("document.getElementById('temperature-problem').selectedIndex = 1")
            try page.click("#temperature-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent === 'Temperature added.'", "the temperature added")
            try page.waitFor("document.getElementById('problems').innerText.includes('Illness: Angína, since Mar 1, 2026')", "the illness listed")
            // Times are the browser's ("7:30 PM", its space a narrow one in newer ICU): compared with blanks made plain.
            try page.waitFor("document.getElementById('problems').innerText.replace(/\\s+/g, ' ').includes('Mar 1, 2026, 7:30 PM: 38.6 °C (fever)')",
                             "the temperature in the illness")

            // An invitation by e-mail: the request is made, and without a hub the refusal is said under the form.
            try page.openDiaryTab("sharing")
            try page.type("eva@example.org", into: "invite-email")
            try page.click("#invite-form button[type=submit]")
            try page.waitFor("""
                document.querySelector('#invite-form .form-error')?.textContent ===
                  'Sharing needs this device to be connected to a hub. Whoever looks after the device can connect it.'
                """, "the refusal in a sentence")
            try page.waitFor("document.getElementById('account-state').textContent.startsWith('This device is not connected to a hub')", "no hub, said plainly")
            #expect(try page.developerText() == [])
            try page.openDiaryTab("overview")
        }
        // Nothing for developers on the page (no ISO dates, codes, JSON paths, config keys), and it fits a phone.
        #expect(try await onThread { try page.developerText() } == [])
        #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == "en")
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("baby", in: ConsoleBrowserTests.artifacts) }
        let posts = try await call("timeline", #"{"types": ["post"]}"#)["items"]?.arrayValue ?? []
        #expect(posts.map { $0["note"] } == ["U babičky na zahradě"])
        #expect(posts.first?["photos"]?.arrayValue?.count == 1)
        let series = try await call("measurements", #"{"childId": "\#(child)", "kind": "weight"}"#)
        #expect(series["points"]?.arrayValue?.compactMap { $0["value"]?.doubleValue } == [7.9, 8.35, 8.2])
        let contacts = try await call("contacts-list", #"{"childId": "\#(child)"}"#)["contacts"]?.arrayValue ?? []
        #expect(contacts.map { $0["specialization"] } == ["pediatrie"])
        let temperatures = try await call("timeline", #"{"types": ["temperature"]}"#)["items"]?.arrayValue ?? []
        #expect(temperatures.map { $0["value"] } == [38.6] && temperatures.first?["problemId"] != nil)
        let unlabelled = try await onThread { try page.evaluate("""
            [...document.querySelectorAll('input, select, textarea')]
              .filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.id || c.name).join(',')
            """) }
        #expect(unlabelled == "")
        _ = try await serve.terminate()
    }

    /// The page in Czech, given bad input in its main forms: a child born in the future, a weight of
    /// 500 kg, a milestone of only blanks and a temperature of 46 °C. Each form says in Czech, under
    /// it, what to enter (never a code or a JSON path), marks the field, and nothing is written.
    @Test(.hangWatchdog) func theCzechPageSaysWhatIsWrongWithBadInput() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-baby-cs")
        try ConsoleBrowserTests.copyShippedManifest("baby", into: ws)
        let grants: [String: Any] = ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "notifications": [:] as [String: Any],
                                     "files": [:] as [String: Any]]
        ws.writeDeployment(plugins: [["id": "cz.tessera.baby", "grants": grants]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        func call(_ operation: String, _ body: String) async throws -> JSONValue {
            let response = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.baby/ops/\(operation)",
                                                           headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                           body: Array(body.utf8))
            return try JSONValue(parsing: response.text)
        }
        // The clock is at 2026-03-02T08:00Z.
        let child = try #require(try await call("child-create", #"{"name": "Ema", "birthDate": "2025-06-15"}"#)["id"]?.stringValue)

        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try ConsoleBrowserTests.signIn(page, at: base, with: token)
            try page.evaluate("localStorage.setItem('tessera.language', 'cs')")
            try page.navigate(base + "/ui/cz.tessera.baby/")
            try page.waitFor("document.body.dataset.ready === 'true'", "the page to load")
            #expect(try page.evaluate("document.documentElement.lang") == "cs")
            #expect(try page.evaluate("document.title") == "Deník miminka — Tessera")
            try page.waitFor("document.getElementById('children').innerText.includes('Ema ·')", "the child")

            // A child born after today ("Add a child" opens the form below the child picker).
            try page.click("#child-add-open")
            try page.waitFor("!document.getElementById('child-form').hidden", "the form to add a child")
            try page.type("Jan", into: "child-name")
            try page.evaluate("document.getElementById('child-birth').value = '2026-06-15'")
            try page.click("#child-form button[type=submit]")
            try page.waitFor("\(Self.sentence("child-form")) === 'Vyberte datum narození: skutečný den, který není v budoucnosti.'", "the child refused in Czech")
            #expect(try page.evaluate("document.getElementById('child-birth').getAttribute('aria-invalid')") == "true")

            // A weight of 500 kg.
            try page.openDiaryTab("growth")
            try page.type("500", into: "value")
            try page.evaluate("document.getElementById('date').value = '2026-03-01'")
            try page.click("#measurement-form button[type=submit]")
            try page.waitFor("""
                \(Self.sentence("measurement-form")) ===
                  'Zadejte měření jako číslo v možném rozsahu: váha 0,3–200 kg, výška 20–220 cm, obvod hlavy 20–65 cm.'
                """, "the measurement refused in Czech")
            #expect(try page.evaluate("document.getElementById('value').getAttribute('aria-invalid')") == "true")

            // A milestone of its own whose name is only blanks.
            try page.openDiaryTab("milestones")
            try page.choose("", in: "milestone-preset")
            try page.type("   ", into: "milestone-custom")
            try page.evaluate("document.getElementById('milestone-date').value = '2026-03-01'")
            try page.click("#milestone-form button[type=submit]")
            try page.waitFor("\(Self.sentence("milestone-form")) === 'Vyberte milník ze seznamu, nebo napište vlastní.'", "the milestone refused in Czech")

            // A temperature of 46 °C.
            try page.openDiaryTab("illnesses")
            try page.type("46", into: "temperature-value")
            try page.evaluate("document.getElementById('temperature-at').value = '2026-03-01T10:00'")
            try page.click("#temperature-form button[type=submit]")
            try page.waitFor("\(Self.sentence("temperature-form")) === 'Zadejte teplotu ve °C jako číslo od 30 do 45, například 38,2.'",
                             "the temperature refused in Czech")
            try page.openDiaryTab("overview")
        }
        // Czech dates are spaced with no-break spaces ("15. 6. 2025"): compared as plain spaces.
        let children = try await onThread { try page.evaluate("document.getElementById('children').innerText").stringValue ?? "" }
            .replacingOccurrences(of: "\u{a0}", with: " ").replacingOccurrences(of: "\u{202f}", with: " ")
        #expect(children.contains("Ema · nar. 15. 6. 2025 · 8 měsíců a 15 dní · vaše role: vlastník"), "the child in Czech, with a Czech date and age")
        let shown = try await onThread { try page.evaluate("[...document.querySelectorAll('.form-error')].map((e) => e.textContent).join('\\n')") }
        #expect(shown.stringValue?.contains("$.") == false && shown.stringValue?.contains("(code") == false, "\(shown)")
        #expect(try await onThread { try page.developerText() } == [])
        #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == "cs")
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("baby-cs-errors", in: ConsoleBrowserTests.artifacts) }

        // Nothing was written.
        #expect(try await call("children-list", "{}")["children"]?.arrayValue?.count == 1)
        #expect(try await call("timeline", #"{"childIds": ["\#(child)"], "includeFuture": true}"#)["items"] == [])
        _ = try await serve.terminate()
    }

    /// The sentence under the form `id` (made by the page when a form is refused), as JavaScript.
    static func sentence(_ id: String) -> String { "document.querySelector('#\(id) .form-error')?.textContent" }

    /// A 2×2 PNG of one colour.
    static let portraitPNG = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGM4IRcFRAwQCgAkxgUBBHQ3qwAAAABJRU5ErkJggg=="
    /// A 48×32 PNG of one colour.
    static let photoPNG = "iVBORw0KGgoAAAANSUhEUgAAADAAAAAgCAIAAADbtmxLAAAAN0lEQVR4nO3OQQ0AMAgEMOQgEYmTNRccjyYV0Op5p1R8ICQkJJQeCAkJCaUHQkJCQumBkJDQsg/NGXB56ZUnBQAAAABJRU5ErkJggg=="
}
