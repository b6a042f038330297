import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The baby diary's page in a real headless Chromium against the real `tessera serve`: the child
/// with its age, the growth chart of its weights, a measurement added through the form (the chart
/// and the timeline follow), the health card, a post whose photo file is uploaded through the form
/// and then rendered from `photo-get` (as is the child's photo), the calendar's month switched, a
/// doctor added through the contact form and shared as a vCard, an illness with a temperature in it,
/// an invitation by e-mail refused clearly without a hub, and every control labelled.
/// The screenshot is artifacts/baby.png.
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
            try page.waitFor("document.getElementById('children').innerText.includes('Ema (2025-06-15) — 0 y 8 m 15 d — owner')", "the child and its age")
            try page.waitFor("document.querySelectorAll('#chart circle').length === 2", "the two weights on the chart")
            try page.waitFor("[...document.querySelectorAll('#children img')].some((i) => i.complete && i.naturalWidth === 2)", "the child's photo rendered")
            try page.type("8.35", into: "value")
            try page.evaluate("document.getElementById('date').value = '2026-03-01'")
            try page.click("#measurement-form button[type=submit]")
            try page.waitFor("document.querySelectorAll('#chart circle').length === 3", "the new weight on the chart")
            try page.waitFor("document.getElementById('timeline').innerText.includes('2026-03-01 · measurement · weight · 8.35')", "the weight in the timeline")

            // The health card.
            try page.waitFor("document.getElementById('health-card').innerText.includes('A+')", "the blood group")
            try page.waitFor("document.getElementById('health-card').innerText.includes('111 Všeobecná')", "the insurer")
            try page.waitFor("document.getElementById('health-card').innerText.includes('pyl (moderate)')", "the allergy")

            // A post with a photo file through the form: uploaded, kept by the post, rendered.
            try page.type("U babičky na zahradě", into: "post-text")
            try page.evaluate("document.getElementById('post-date').value = '2026-02-28'")
            let document = try page.send("DOM.getDocument")
            let input = try page.send("DOM.querySelector", ["nodeId": document["root"]?["nodeId"] ?? .null, "selector": "#post-photos"])
            _ = try page.send("DOM.setFileInputFiles", ["nodeId": input["nodeId"] ?? .null, "files": [.string(photoFile)]])
            try page.click("#post-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent === 'Post added.'", "the post added")
            try page.waitFor("[...document.querySelectorAll('#timeline img')].some((i) => i.complete && i.naturalWidth === 48)", "the post's photo rendered")

            // The calendar: March has the new weight; February, one month back, the post and the first weight.
            try page.waitFor("document.getElementById('calendar-month').textContent === '2026-03'", "the calendar at March")
            try page.waitFor("document.querySelector('#calendar-grid td[data-date=\"2026-03-01\"]').innerText.includes('measurement 1')", "March 1st's weight")
            try page.click("#calendar-previous")
            try page.waitFor("document.getElementById('calendar-month').textContent === '2026-02'", "the calendar at February")
            try page.waitFor("document.querySelector('#calendar-grid td[data-date=\"2026-02-28\"]').innerText.includes('post 1')", "the post on February 28th")
            try page.click("#calendar-grid button[data-date=\"2026-02-28\"]")
            try page.waitFor("document.getElementById('calendar-day').innerText.includes('U babičky na zahradě')", "the day's post")

            // A doctor through the contact form: listed with its tel: link, and shared as a vCard download.
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
            try page.waitFor("document.getElementById('problems').innerText.includes('Illness: Angína, from 2026-03-01')", "the illness listed")
            try page.waitFor("document.getElementById('problems').innerText.includes('2026-03-01T19:30 38.6 °C (fever)')", "the temperature in the illness")

            // An invitation by e-mail: the request is made, and without a hub the module's refusal is shown.
            try page.type("eva@example.org", into: "invite-email")
            try page.click("#invite-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent.includes('sharing needs the sync grant')", "the module's refusal")
            try page.screenshot(to: ConsoleBrowserTests.artifacts + "/baby.png")
        }
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

    /// A 2×2 PNG of one colour.
    static let portraitPNG = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGM4IRcFRAwQCgAkxgUBBHQ3qwAAAABJRU5ErkJggg=="
    /// A 48×32 PNG of one colour.
    static let photoPNG = "iVBORw0KGgoAAAANSUhEUgAAADAAAAAgCAIAAADbtmxLAAAAN0lEQVR4nO3OQQ0AMAgEMOQgEYmTNRccjyYV0Op5p1R8ICQkJJQeCAkJCaUHQkJCQumBkJDQsg/NGXB56ZUnBQAAAABJRU5ErkJggg=="
}
