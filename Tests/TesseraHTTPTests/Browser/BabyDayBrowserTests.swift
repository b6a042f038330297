import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// A parent's day with the baby diary, from the page alone, on the default deployment (no hub, the
/// virtual clock at 2026-03-02T08:00Z), in a real headless Chromium against the real `tessera serve`.
/// Jana makes the device's first account in Czech and opens the diary: with no child yet, the page
/// opens "Add a child" (`child-create`) and offers only the overview and sharing. A birth date in
/// the future is refused with a Czech sentence right below the date field (marked, and describing
/// it); a good one adds Ema, who is chosen and shown in the overview with her age. In Growth she
/// adds a weight (the chart and the overview follow); in Milestones the presets are Czech words
/// (never a key such as `firstSmile`), she picks the first smile, and the module gets the key. The
/// overview stays short (under 3000 px at desktop size); the part chosen is kept in the address, so
/// a reload shows it again and Back returns to the one before. At each step, at phone and desktop
/// size, nothing meant for developers is on the page and nothing is wider than the screen. Last, she
/// deletes Ema's diary from its details: refused in Czech until she ticks that it cannot be undone,
/// then gone, and the page offers to add a child again. The screenshots are
/// artifacts/baby-day-*-phone.png and -desktop.png.
@Suite(.needs("chromium")) struct BabyDayBrowserTests {
    /// At both sizes: nothing for developers on the page, nothing wider than the screen. The tab is
    /// left at phone size, where the parent goes on.
    static func looksRight(_ page: BrowserPage, _ step: String) throws {
        for viewport in [BrowserPage.Viewport.desktop, .phone] {
            try page.use(viewport)
            #expect(try page.developerText() == [], "\(step) (\(viewport)): text meant for developers")
            #expect(try page.fitsItsWidth(), "\(step) (\(viewport)): wider than the screen")
        }
    }

    /// The page's text in `id` with Czech no-break spaces ("1. 9. 2025") made plain, as JavaScript.
    static func text(_ id: String) -> String {
        "document.getElementById('\(id)').innerText.replace(/[\\u00a0\\u202f]/g, ' ')"
    }

    static let status = "document.getElementById('status').textContent"

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func aParentAddsAChildAWeightAndAMilestoneInCzech() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-baby-day")
        try ConsoleBrowserTests.copyShippedManifest("baby", into: ws)
        let grants: [String: Any] = ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "notifications": [:] as [String: Any],
                                     "files": [:] as [String: Any]]
        // No sync provider: the device has no hub, as the default deployment.
        ws.writeDeployment(plugins: [["id": "cz.tessera.baby", "grants": grants]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)  // only for checking through the API afterwards
        func call(_ operation: String, _ body: String) async throws -> JSONValue {
            let response = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.baby/ops/\(operation)",
                                                           headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")],
                                                           body: Array(body.utf8))
            return try JSONValue(parsing: response.text)
        }
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }

        // A new device: Jana makes its first account in Czech, then opens the diary.
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
        }
        #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == "cs")
        #expect(try await onThread { try page.evaluate("document.title") } == "Deník miminka — Tessera")

        // No child yet: "Add a child" is open, and only the parts that need no child are offered.
        try await onThread {
            try page.waitFor("!document.getElementById('child-form').hidden && !document.getElementById('child-form-intro').hidden",
                             "the form to add a child, open by itself")
            #expect(try page.evaluate("document.getElementById('child-form-heading').textContent") == "Přidat dítě")
            #expect(try page.evaluate("document.getElementById('child-pick').hidden") == true)
            #expect(try page.evaluate("[...document.querySelectorAll('[role=tab]')].filter((b) => !b.hidden).map((b) => b.textContent).join(', ')")
                    == "Přehled, Sdílení a účet")
            try Self.looksRight(page, "no child yet")
            try page.screenshots("baby-day-first", in: ConsoleBrowserTests.artifacts)
            try page.use(.phone)
        }

        // A birth date in the future: a Czech sentence right below the date field, which is marked and described by it.
        try await onThread {
            try page.type("Ema", into: "child-name")
            try page.evaluate("document.getElementById('child-birth').value = '2026-06-15'")
            try page.choose("girl", in: "child-sex")
            try page.click("#child-form button[type=submit]")
            try page.waitFor("""
                (() => { const field = document.getElementById('child-birth');
                         const sentence = document.getElementById(field.getAttribute('aria-describedby') || 'none');
                         return sentence && sentence.textContent === 'Vyberte datum narození: skutečný den, který není v budoucnosti.'
                           && field.closest('.field').nextElementSibling === sentence; })()
                """, "the future birth date refused in Czech, next to the field")
            #expect(try page.evaluate("document.getElementById('child-birth').getAttribute('aria-invalid')") == "true")
            #expect(try page.evaluate("document.activeElement.id") == "child-birth")
            try Self.looksRight(page, "the birth date refused")
            try page.screenshots("baby-day-refused", in: ConsoleBrowserTests.artifacts)
            try page.use(.phone)
        }
        #expect(try await call("children-list", "{}")["children"] == [], "nothing was written")

        // A good birth date: Ema is added, chosen, and her overview shows.
        try await onThread {
            try page.evaluate("document.getElementById('child-birth').value = '2025-09-01'")
            try page.click("#child-form button[type=submit]")
            try page.waitFor("\(Self.status) === 'Ema je teď v deníku.'", "Ema added")
            try page.waitFor("document.getElementById('child-form').hidden && location.hash === '#/overview'", "the form closed, the overview open")
            #expect(try page.evaluate("document.getElementById('child').selectedOptions[0].textContent") == "Ema")
            #expect(try page.evaluate("document.getElementById('tab-overview').getAttribute('aria-selected')") == "true")
            #expect(try page.evaluate("\(Self.text("children")).includes('Ema · nar. 1. 9. 2025 · 6 měsíců a 1 den · vaše role: vlastník')") == true)
            #expect(try page.evaluate("document.getElementById('timeline').innerText")
                    == "V deníku zatím nic není. Začněte prvním měřením, milníkem nebo zápisem.")
            #expect(try page.evaluate("[...document.querySelectorAll('[role=tab]')].filter((b) => !b.hidden).length") == 11)
            try Self.looksRight(page, "Ema's overview")
        }

        // Growth: a weight, today's date already filled in.
        try await onThread {
            try page.openDiaryTab("growth")
            #expect(try page.evaluate("document.getElementById('date').value") == "2026-03-02")
            #expect(try page.evaluate("document.getElementById('kind').selectedOptions[0].textContent") == "Váha (kg)")
            // 74 for 7.4: far outside the WHO standard for a six-month-old girl, so she is asked to check it.
            try page.type("74", into: "value")
            try page.click("#measurement-form button[type=submit]")
            try page.waitFor("document.getElementById('measurement-form').textContent.includes('daleko od toho')", "the implausible weight questioned")
            #expect(try page.evaluate("document.querySelectorAll('#chart circle').length") == 0)
            try page.evaluate("document.getElementById('value').value = ''")
            try page.type("7.4", into: "value")
            try page.click("#measurement-form button[type=submit]")
            try page.waitFor("\(Self.status) === 'Měření je zapsané.'", "the weight added")
            try page.waitFor("document.querySelectorAll('#chart circle').length === 1", "the weight on the chart")
            #expect(try page.evaluate("document.getElementById('chart-title').textContent") == "Váha podle věku")
            // anthro_zscores(sex = 2, age = 182, weight = 7.4): zwei 0.12, the 54.8th percentile.
            #expect(try page.evaluate("document.querySelector('#chart circle title').textContent.replace(/[\\u00a0\\u202f]/g, ' ')")
                    == "2. 3. 2026: 7,4 kg (55. percentil)")
            #expect(try page.evaluate(Self.text("growth-latest"))
                    == "Naposledy: 2. 3. 2026: 7,4 kg (55. percentil). Mezi 3. a 97. percentilem, kde je většina dětí.")
            try Self.looksRight(page, "the weight added")
            try page.screenshots("baby-day-growth", in: ConsoleBrowserTests.artifacts)
            try page.use(.phone)
        }

        // Issue 41: a length. A six-month-old measured standing is refused with a sentence; lying,
        // it is added, and the weight of the same day is charted for her length and as BMI.
        try await onThread {
            try page.choose("height", in: "kind")
            try page.waitFor("!document.getElementById('position-field').hidden && document.getElementById('oedema-field').hidden",
                             "the position offered for a length, the oedema box only for a weight")
            try page.waitFor("document.getElementById('chart-title').textContent === 'Délka či výška podle věku'", "the length chart")
            try page.evaluate("document.getElementById('value').value = ''")
            try page.type("66.5", into: "value")
            try page.choose("standing", in: "position")
            try page.click("#measurement-form button[type=submit]")
            try page.waitFor("document.getElementById('measurement-form').textContent.includes('Miminko mladší 9 měsíců se měří vleže.')",
                             "standing refused for a six-month-old, in Czech")
            #expect(try page.evaluate("document.getElementById('position').getAttribute('aria-invalid')") == "true")
            try page.choose("lying", in: "position")
            try page.click("#measurement-form button[type=submit]")
            try page.waitFor("\(Self.status) === 'Měření je zapsané.'", "the length added")
            try page.waitFor("document.querySelectorAll('#chart circle').length === 1", "the length on its chart")
            // anthro_zscores(sex = 2, age = 182, weight = 7.4, lenhei = 66.5, measure = "l"): zwfl −0.03
            // (48.8th percentile), cbmi 16.73, zbmi −0.11 (Anthro's rounding; the unrounded score is the
            // 45.4th percentile, which the page shows).
            try page.choose("weight-for-length-height", in: "indicator")
            try page.waitFor("""
                document.querySelector('#chart circle title') && document.querySelector('#chart circle title').textContent
                  .replace(/[\\u00a0\\u202f]/g, ' ') === '2. 3. 2026: 7,4 kg při 66,5 cm (49. percentil)'
                """, "the weight for her length")
            #expect(try page.evaluate("document.getElementById('chart-title').textContent") == "Váha podle délky či výšky")
            #expect(try page.evaluate("document.querySelectorAll('#chart polyline.percentile').length") == 5)
            try page.choose("bmi-for-age", in: "indicator")
            try page.waitFor("document.getElementById('chart-title').textContent === 'Index tělesné hmotnosti (BMI) podle věku'", "the BMI chart")
            try page.waitFor("document.querySelectorAll('#chart circle').length === 1", "her BMI")
            let bmi = try page.evaluate("document.querySelector('#chart circle title').textContent.replace(/[\\u00a0\\u202f]/g, ' ')")
            #expect(bmi == "2. 3. 2026: 16,7 kg/m² (45. percentil)", "\(bmi)")
            try Self.looksRight(page, "the growth indicators")
            try page.screenshots("baby-day-growth-indicators", in: ConsoleBrowserTests.artifacts)
            try page.use(.phone)
            try page.choose("weight", in: "kind")
        }
        let emaID = try #require(try await call("children-list", "{}")["children"]?.arrayValue?.first?["id"]?.stringValue)
        let height = try await call("growth", #"{"childId": "\#(emaID)", "indicator": "length-height-for-age"}"#)
        #expect(height["points"]?.arrayValue?.first?["zScore"]?.doubleValue == 0.35, "anthro: zlen 0.35")

        // Milestones: the presets in Czech words, the first smile picked.
        try await onThread {
            try page.openDiaryTab("milestones")
            #expect(try page.evaluate("[...document.getElementById('milestone-preset').options].map((o) => o.textContent).join(' | ')")
                    == "První úsměv | První zoubek | První krůček | První slovo | Něco jiného (pojmenujte to níže)")
            #expect(try page.evaluate("[...document.getElementById('milestone-preset').options].every((o) => o.textContent !== o.value)") == true)
            #expect(try page.evaluate("document.getElementById('milestone-custom-field').hidden") == true, "the own name only for something else")
            try page.choose("firstSmile", in: "milestone-preset")
            try page.evaluate("document.getElementById('milestone-date').value = '2026-02-20'")
            try page.click("#milestone-form button[type=submit]")
            try page.waitFor("\(Self.status) === 'Milník je v deníku.'", "the milestone added")
            try page.waitFor("\(Self.text("milestones")).includes('20. 2. 2026 · První úsměv')", "the first smile listed in Czech")
            #expect(try page.evaluate("/first[A-Z]/.test(document.body.innerText)") == false, "no preset's key on the page")
            try Self.looksRight(page, "the milestone added")
            try page.screenshots("baby-day-milestones", in: ConsoleBrowserTests.artifacts)
            try page.use(.phone)
        }

        // The overview has the day: the weight and the first smile, and stays short on a desktop.
        try await onThread {
            try page.openDiaryTab("overview")
            try page.waitFor("\(Self.text("timeline")).includes('2. 3. 2026 · Váha: 7,4 kg')", "the weight in the timeline")
            #expect(try page.evaluate("\(Self.text("timeline")).includes('20. 2. 2026 · Milník: První úsměv')") == true)
            #expect(try page.evaluate("\(Self.text("children")).includes('Váha: 7,4 kg (2. 3. 2026)')") == true, "the latest weight with Ema")
            try Self.looksRight(page, "the overview with the day")
            try page.use(.desktop)
            let height = try page.evaluate("document.body.scrollHeight").doubleValue ?? .infinity
            #expect(height < 3000, "the overview is \(height) px tall at desktop size")
            try page.screenshots("baby-day", in: ConsoleBrowserTests.artifacts)
        }

        // The part chosen is in the address: a reload shows it again, Back returns to the one before.
        try await onThread {
            try page.openDiaryTab("growth")
            try page.evaluate("window.beforeTheReload = true")  // gone with the old document
            _ = try page.send("Page.reload")
            try page.waitFor("""
                !window.beforeTheReload && document.body.dataset.ready === 'true' && document.body.dataset.tab === 'growth'
                  && !document.getElementById('panel-growth').hidden
                """, "Growth again after the reload")
            try page.waitFor("document.querySelectorAll('#chart circle').length === 1", "the chart after the reload")
            try page.evaluate("history.back()")
            try page.waitFor("location.hash === '#/overview' && !document.getElementById('panel-overview').hidden && document.getElementById('panel-growth').hidden",
                             "Back to the overview")
            #expect(try page.developerText() == [])
        }

        // What the module got: the child, the weight, and the preset by its key.
        let children = try await call("children-list", "{}")["children"]?.arrayValue ?? []
        #expect(children.map { $0["name"] } == ["Ema"] && children.first?["birthDate"] == "2025-09-01")
        let child = try #require(children.first?["id"]?.stringValue)
        #expect(try await call("child-get", #"{"id": "\#(child)"}"#)["sex"] == "girl")
        let weights = try await call("measurements", #"{"childId": "\#(child)", "kind": "weight"}"#)["points"]?.arrayValue ?? []
        #expect(weights.compactMap { $0["value"]?.doubleValue } == [7.4])
        let milestones = try await call("timeline", #"{"childIds": ["\#(child)"], "types": ["milestone"], "includeFuture": true}"#)["items"]?.arrayValue ?? []
        #expect(milestones.map { $0["kind"] } == ["firstSmile"])

        // UC8: the owner deletes Ema's diary from its details, only after ticking that it cannot be undone.
        try await onThread {
            try page.openDiaryTab("overview")
            try page.click("#child-edit-open")
            try page.waitFor("!document.getElementById('child-delete-form').hidden", "the owner offered to delete the diary")
            #expect(try page.evaluate("document.getElementById('child-delete-heading').textContent") == "Smazat deník dítěte Ema")
            #expect(try page.evaluate("document.getElementById('child-delete-warning').textContent.includes('Vrátit to nejde.')") == true)
            try page.click("#child-delete")
            try page.waitFor("document.getElementById('child-delete-form').textContent.includes('Nejdřív zaškrtněte políčko výše')",
                             "not deleted before the box is ticked, said in Czech")
            try Self.looksRight(page, "deleting asks to confirm")
            try page.use(.phone)
        }
        #expect(try await call("children-list", "{}")["children"]?.arrayValue?.count == 1, "nothing deleted before the box was ticked")
        try await onThread {
            try page.click("#child-delete-sure")
            try page.click("#child-delete")
            try page.waitFor("\(Self.status) === 'Deník dítěte Ema je smazaný.'", "Ema's diary deleted")
            try page.waitFor("!document.getElementById('child-form').hidden && document.getElementById('child-pick').hidden",
                             "with no child left, the form to add one open again")
            #expect(try page.developerText() == [])
        }
        #expect(try await call("children-list", "{}")["children"] == [], "the module deleted the child")
        _ = try await serve.terminate()
    }
}

extension BrowserPage {
    /// Opens the part `name` of the baby diary's page (`overview`, `growth`, `milestones`, `posts`,
    /// `health`, `illnesses`, `calendar`, `contacts`, `export`, `sharing`) by its tab, as a person
    /// does, and waits until it shows and the address names it.
    func openDiaryTab(_ name: String) throws {
        try click("#tab-\(name)")
        try waitFor("""
            document.getElementById('tab-\(name)').getAttribute('aria-selected') === 'true'
              && !document.getElementById('panel-\(name)').hidden && location.hash === '#/\(name)'
            """, "the diary's part \(name)")
    }
}
