import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The baby diary's health forms in a real headless Chromium against the real `tessera serve`
/// (UC24–UC28, UC10–UC12, UC21, UC32): an illness's temperature chart (one point per reading,
/// placed between the fever threshold lines it lies between), a lone reading assigned to the
/// illness afterwards (its point joins the chart), a symptom with a photo added to the illness, a
/// reminder set on an existing vaccination and cleared again, a medication's dosing reminders
/// turned on, a doctor's phone edited, an allergy's severity edited, and a PDF export downloaded
/// from `export-download` whose bytes `pdftotext` reads. Every change is checked through the API;
/// the page shows times and dates in English formats ("Mar 1, 2026, 8:00 PM"), nothing meant for
/// developers, and fits a phone. The screenshots are artifacts/baby-health-phone.png and -desktop.png.
@Suite(.needs("chromium", "pdftotext")) struct BabyHealthBrowserTests {
    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func theHealthFormsChangeTheDiaryAndTheExportDownloads() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-baby-health")
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
        // The clock is at 2026-03-02T08:00Z (09:00 in Prague).
        let child = try #require(try await call("child-create", #"{"name": "Ema", "birthDate": "2025-06-15"}"#)["id"]?.stringValue)
        let problem = try #require(try await call("problem-open", #"{"childId": "\#(child)", "kind": "illness", "name": "Angína", "startDate": "2026-03-01"}"#)["id"]?.stringValue)
        for (at, celsius) in [("2026-03-01T08:00", "37.2"), ("2026-03-01T19:30", "38.6"), ("2026-03-02T07:30", "39.4")] {
            _ = try await call("temperature-add", #"{"childId": "\#(child)", "celsius": \#(celsius), "at": "\#(at)", "problemId": "\#(problem)"}"#)
        }
        // A real PNG (48×32) for the symptom's photo.
        let photoFile = ws.root + "/vyrazka.png"
        try Data(base64Encoded: BabyConsoleBrowserTests.photoPNG)!.write(to: URL(fileURLWithPath: photoFile))
        // A reading taken alone, assigned to the illness afterwards through the page.
        let alone = try #require(try await call("temperature-add", #"{"childId": "\#(child)", "celsius": 37.9, "at": "2026-03-02T08:45"}"#)["id"]?.stringValue)
        let medication = try #require(try await call("medication-add", #"{"problemId": "\#(problem)", "name": "Ospen", "doses": [{"time": "20:00", "dose": "5 ml"}], "until": "2026-03-08"}"#)["id"]?.stringValue)
        let vaccination = try #require(try await call("vaccination-add", #"{"childId": "\#(child)", "name": "MMR", "date": "2026-03-10"}"#)["id"]?.stringValue)
        _ = try await call("allergy-add", #"{"childId": "\#(child)", "allergen": "pyl", "severity": "mild"}"#)
        _ = try await call("contact-add", #"{"childId": "\#(child)", "kind": "doctor", "name": "MUDr. Nováková", "phone": "+420 123 456 789"}"#)

        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try ConsoleBrowserTests.signIn(page, at: base, with: token)
            try page.navigate(base + "/ui/cz.tessera.baby/")
            try page.waitFor("document.body.dataset.ready === 'true'", "the page to load")
            try page.openDiaryTab("illnesses")
            try page.waitFor("document.querySelectorAll('#problems svg.temperature-chart circle.temperature').length === 3", "one point per temperature")
        }

        // The chart: the four thresholds, and each reading between the lines of its class (y grows downwards).
        let chart = try await onThread { try page.evaluate("""
            (() => { const svg = document.querySelector('#problems svg.temperature-chart');
                     const y = (node) => Number(node.getAttribute('cy') ?? node.getAttribute('y1'));
                     return { thresholds: [...svg.querySelectorAll('line.threshold')].map((l) => ({ c: Number(l.dataset.celsius), y: y(l) })),
                              points: [...svg.querySelectorAll('circle.temperature')].map((c) => ({ c: Number(c.dataset.celsius), y: y(c) })) }; })()
            """) }
        let pairs = { (key: String) in (chart[key]?.arrayValue ?? []).compactMap { item -> (Double, Double)? in
            guard let celsius = item["c"]?.doubleValue, let y = item["y"]?.doubleValue else { return nil }
            return (celsius, y)
        } }
        let thresholds = pairs("thresholds"), points = pairs("points")
        #expect(thresholds.map(\.0) == [37.5, 38, 39, 40])
        #expect(points.map(\.0) == [37.2, 38.6, 39.4])
        let lineY = Dictionary(uniqueKeysWithValues: thresholds)
        if points.count == 3, let raised = lineY[37.5], let fever = lineY[38], let high = lineY[39], let veryHigh = lineY[40] {
            #expect(points[0].1 > raised, "37.2 below the raised line")
            #expect(points[1].1 < fever && points[1].1 > high, "38.6 between the fever and high fever lines")
            #expect(points[2].1 < high && points[2].1 > veryHigh, "39.4 between the high and very high lines")
        }

        try await onThread {
            // The lone reading assigned to the illness afterwards: the chart gains its point.
            try page.choose(alone, in: "assign-record")
            try page.choose(problem, in: "assign-problem")
            try page.click("#assign-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent === 'Assigned.'", "the reading assigned")
            try page.waitFor("document.querySelectorAll('#problems svg.temperature-chart circle.temperature').length === 4", "its point on the chart")

            // A symptom of the illness, with a photo of it (the file uploaded first, then named by the symptom).
            try page.type("kašel", into: "symptom-name")
            try page.evaluate("document.getElementById('symptom-at').value = '2026-03-01T20:00'")
            try page.evaluate("document.getElementById('symptom-problem').selectedIndex = 1")
            let document = try page.send("DOM.getDocument")
            let input = try page.send("DOM.querySelector", ["nodeId": document["root"]?["nodeId"] ?? .null, "selector": "#symptom-photo"])
            _ = try page.send("DOM.setFileInputFiles", ["nodeId": input["nodeId"] ?? .null, "files": [.string(photoFile)]])
            try page.click("#symptom-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent === 'Symptom added.'", "the symptom added")
            try page.waitFor("""
                [...document.querySelectorAll('#problems .symptom-photos img')]
                  .some((i) => i.complete && i.naturalWidth === 48 && i.alt === 'Photo of the symptom kašel')
                """, "the symptom's photo in the illness")
            // Times are the browser's ("8:00 PM", its space a narrow one in newer ICU): compared with blanks made plain.
            try page.waitFor("document.getElementById('problems').innerText.replace(/\\s+/g, ' ').includes('Symptoms: Mar 1, 2026, 8:00 PM: kašel')",
                             "the symptom in the illness")

            // A reminder on the existing vaccination.
            try page.openDiaryTab("calendar")
            try page.choose(vaccination, in: "reminder-record")
            try page.evaluate("document.getElementById('reminder-at').value = '2026-03-09T08:00'")
            try page.click("#reminder-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent === 'Reminder set.'", "the reminder set")
            try page.waitFor("""
                (() => { const text = document.getElementById('reminders').innerText.replace(/\\s+/g, ' ');
                         return text.includes('Vaccination: MMR (Mar 10, 2026) · reminder') && text.includes('(Mar 9, 2026, 8:00 AM)'); })()
                """, "the reminder listed with its next time")
        }
        let set = try await call("reminders-list", "{}")["reminders"]?.arrayValue ?? []
        #expect(set.map { $0["recordId"] } == [.string(vaccination)] && set.first?["next"] == "2026-03-09T08:00")
        try await onThread {
            try page.choose(vaccination, in: "reminder-record")
            try page.evaluate("document.getElementById('reminder-at').value = ''")
            try page.click("#reminder-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent === 'Reminder cleared.'", "the reminder cleared")

            // The medication's reminders at its dosing time, turned on.
            try page.openDiaryTab("illnesses")
            try page.click("#problems button.medication-notify[data-id=\"\(medication)\"]")
            try page.waitFor("document.getElementById('status').textContent === 'Reminders on.'", "the medication's reminders on")
            try page.waitFor("document.getElementById('problems').innerText.includes('(reminders on)')", "the medication shown reminding")
        }
        let reminders = try await call("reminders-list", "{}")["reminders"]?.arrayValue ?? []
        #expect(reminders.map { $0["recordId"] } == [.string(medication)])
        #expect(reminders.first?["next"] == "2026-03-02T20:00")
        let course = try await call("problem-get", #"{"id": "\#(problem)"}"#)
        #expect(course["symptoms"]?.arrayValue?.map { $0["name"] } == ["kašel"])
        #expect(course["symptoms"]?.arrayValue?.first?["photos"]?.arrayValue?.count == 1, "the symptom keeps its photo")
        #expect(course["temperatures"]?.arrayValue?.compactMap { $0["value"]?.doubleValue } == [37.2, 38.6, 39.4, 37.9])
        #expect(course["medications"]?.arrayValue?.first?["notify"] == true)

        try await onThread {
            // The doctor's phone edited.
            try page.openDiaryTab("contacts")
            try page.click("#contacts button[aria-label=\"Edit the contact MUDr. Nováková\"]")
            try page.waitFor("document.getElementById('contact-submit').textContent === 'Save contact'", "the contact in the form")
            try page.evaluate("document.getElementById('contact-phone').value = ''")
            try page.type("+420 987 654 321", into: "contact-phone")
            try page.click("#contact-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent === 'Contact saved.'", "the contact saved")
            try page.waitFor("document.querySelector('#contacts a[href^=\"tel:\"]').getAttribute('href') === 'tel:+420987654321'", "the new tel: link")

            // The allergy's severity edited.
            try page.openDiaryTab("health")
            try page.click("#health-card button[aria-label=\"Edit the allergy pyl\"]")
            try page.waitFor("!document.getElementById('health-item-form').hidden", "the allergy in the form")
            try page.choose("severe", in: "health-item-severity")
            try page.type("na jaře", into: "health-item-note")
            try page.click("#health-item-form button[type=submit]")
            try page.waitFor("document.getElementById('status').textContent === 'Health card saved.'", "the allergy saved")
            try page.waitFor("document.getElementById('health-card').innerText.includes('pyl (severe)')", "the new severity")
        }
        let doctors = try await call("contacts-list", #"{"childId": "\#(child)"}"#)["contacts"]?.arrayValue ?? []
        #expect(doctors.map { $0["phone"] } == ["+420 987 654 321"] && doctors.first?["kind"] == "doctor")
        let allergies = try await call("child-get", #"{"id": "\#(child)"}"#)["health"]?["allergies"]?.arrayValue ?? []
        #expect(allergies.map { $0["severity"] } == ["severe"] && allergies.first?["note"] == "na jaře")

        // The export: the PDF fetched from export-download and offered as a download; its bytes are a PDF pdftotext reads.
        let link = try await onThread {
            try page.openDiaryTab("export")
            try page.evaluate("document.getElementById('export-posts').checked = false")
            try page.click("#export-form button[type=submit]")
            try page.waitFor("document.querySelector('#export-result a.export-pdf')", "the PDF download link")
            try page.waitFor("document.getElementById('status').textContent === 'The PDF is ready.'", "the export said ready")
            return try page.evaluate("(() => { const a = document.querySelector('#export-result a.export-pdf'); return { name: a.download, href: a.href }; })()")
        }
        #expect(link["name"] == "Ema-diary.pdf")
        let href = link["href"]?.stringValue ?? ""
        #expect(href.hasPrefix("data:application/pdf;base64,"))
        let pdf = try #require(Data(base64Encoded: String(href.drop { $0 != "," }.dropFirst())))
        #expect(pdf.starts(with: Array("%PDF-1.4".utf8)))
        let pdfFile = ws.root + "/Ema-diary.pdf"
        try pdf.write(to: URL(fileURLWithPath: pdfFile))
        let text = try await runDetached("/usr/bin/pdftotext", ["-enc", "UTF-8", pdfFile, "-"])
        #expect(text.status == 0, "\(text.stderr)")
        for expected in ["Ema", "Angína: temperatures (1 March 2026)", "38 °C fever", "39 °C high fever"] {
            #expect(text.stdout.contains(expected), "pdftotext lacks \(expected):\n\(text.stdout)")
        }
        #expect(!text.stdout.contains("posts ("), "posts were not chosen")
        // Nothing for developers on the page (no ISO times, codes, JSON paths), and it fits a phone.
        #expect(try await onThread { try page.developerText() } == [])
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("baby-health", in: ConsoleBrowserTests.artifacts) }
        let unlabelled = try await onThread { try page.evaluate("""
            [...document.querySelectorAll('input, select, textarea')]
              .filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.id || c.name).join(',')
            """) }
        #expect(unlabelled == "")
        _ = try await serve.terminate()
    }
}
