import Foundation
import Testing
import TesseraSDK
import TesseraSTAGEmulator
import TesseraTestFixtures

/// IS/STAG's page for a student, in a real headless Chromium against the real `tessera serve` on a
/// virtual clock at Monday 16 February 2026, 8:00 in Prague (the summer semester: a PRG lecture at
/// 9:20 in UC 355), the university's host sent to the emulator. In Czech, at a phone's size: the
/// student logs in through the emulator's single sign-on and the callback leads on to the page,
/// which shows Monday's lecture with its time, room and "Přednáška"; she registers for an exam
/// term and sees it registered, unregisters, sees a result, is refused a note without a title,
/// adds one for a subject, changes it (a new title and a day, which plans its reminder) and deletes it, and switches the class reminder on. Then the same page in
/// English says "Lecture", and IS/STAG names the subject and the canteen its meals in English. Nothing for developers at any step, nothing wider than a phone;
/// screenshots at phone and desktop size in artifacts/stag-student-*.png.
@Suite(.needs("chromium")) struct STAGStudentBrowserTests {
    /// An exam term added to the emulator's: PRG on 25 February, registering open until the day before.
    static let term = 3_000_001

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func aStudentSeesHerWeekRegistersForAnExamKeepsANoteAndSwitchesAReminderOn() async throws {
        let executable = try #require(HeadlessChromium.executable)
        // The emulator's time is the host's, so that IS/STAG and the module agree on what is open.
        let emulator = try await STAGEmulator.start(now: STAGEmulator.pragueDate("16.2.2026 8:00"))
        try await withCleanup({ await emulator.stop() }) {
            emulator.addTerm(EmulatorTerm(id: Self.term, department: "KMI", subject: "PRG", start: STAGEmulator.pragueDate("25.2.2026 9:00"),
                                          room: "355", limit: 10, otherStudents: 3))
            let ws = FixtureWorkspace("http-browser-stag-student")
            try ConsoleBrowserTests.copyShippedManifest("stag", into: ws)
            // The shipped default deployment's grants; the university's host and the canteen's lead to the emulator.
            ws.writeDeployment(plugins: [["id": "cz.tessera.stag", "grants": try ConsoleBrowserTests.shippedGrants(of: "cz.tessera.stag")]],
                               extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-02-16T07:00:00Z"],
                                                     "http": ["redirects": ["https://stag-demo.zcu.cz": emulator.origin, "https://www.zcu.cz": emulator.origin]]]])
            let serve = try await ServeProcess.start(ws)
            defer { serve.process.terminate() }
            let token = try #require(serve.adminToken)
            let base = "http://127.0.0.1:\(serve.port)"
            let browser = try await HeadlessChromium.launch(executable: executable)
            defer { browser.quit() }
            let page = try await onThread { try BrowserPage(browser) }
            let text = { (expression: String) async throws -> String in try await onThread { try page.evaluate(expression).stringValue ?? "" } }
            let lecture = "document.querySelector(\"#timetable li.class[data-date='2026-02-16'][data-subject='KMI/PRG']\")"
            let termItem = "document.querySelector(\"[data-term='\(Self.term)']\")"

            // Logged out of IS/STAG: the page offers the university's login, in Czech, on a phone.
            try await onThread {
                try ConsoleBrowserTests.signIn(page, at: base, with: token)
                try page.evaluate("localStorage.setItem('tessera.language', 'cs')")
                try page.use(.phone)
                try page.navigate(base + "/ui/cz.tessera.stag/")
                try page.waitFor("document.body.dataset.ready === 'true' && document.body.dataset.stag === 'out'", "the login")
            }
            #expect(try await onThread { try page.evaluate("document.getElementById('login-section').hidden") } == false)
            #expect(try await text("document.getElementById('login-heading').textContent") == "Přihlášení")
            #expect(try await onThread { try page.developerText() } == [])
            #expect(try await onThread { try page.fitsItsWidth() })

            // The university's single sign-on (the emulator's) sends the browser back with the ticket;
            // the university chosen is what the form keeps in the tab.
            let back = try await RawHTTPClient.request(port: emulator.port, "GET",
                                                       "/ws/login?originalURL=\(base)/ui/cz.tessera.stag/callback.html&longTicket=true")
            let location = try #require(back.headers["location"])
            try await onThread {
                try page.evaluate("sessionStorage.setItem('stag.login', JSON.stringify({university: 'demo'}))")
                try page.navigate(location)
                try page.waitFor("location.pathname.endsWith('/callback.html') && document.body.dataset.ready === 'true'", "the callback")
            }
            #expect(try await text("document.getElementById('status').textContent") == "Jste přihlášeni jako Jana Nováková (student).")
            #expect(try await text("location.search") == "")
            #expect(try await onThread { try page.developerText() } == [])
            try await onThread {
                try page.click("#continue")
                try page.waitFor("location.pathname === '/ui/cz.tessera.stag/' && document.body.dataset.ready === 'true' && document.body.dataset.stag === 'in'",
                                 "the page after the login")
            }

            // Monday's PRG lecture: its time, room and kind in Czech, coloured as a lecture; today's too.
            #expect(try await text("\(lecture).querySelector('.class-time').textContent") == "9:20–11:00")
            #expect(try await text("\(lecture).querySelector('.class-details').textContent").hasPrefix("Přednáška · místnost UC 355"))
            #expect(try await onThread { try page.evaluate("\(lecture).classList.contains('kind-lecture')") } == true)
            #expect(try await text("document.getElementById('timetable-when').textContent").hasPrefix("8. týden (sudý)"))
            let today = try await text("document.getElementById('today').innerText")
            #expect(today.contains("pondělí 16. února 2026") && today.contains("9:20–11:00") && today.contains("Programování"), "\(today)")
            #expect(try await text(termItem + ".querySelector('.term-status').textContent") == "Můžete se přihlásit.")
            // The ZČU canteen's menu for today, prices by diner and allergens in words.
            try await onThread { try page.waitFor("document.getElementById('canteen-menu').innerText.includes('Svíčková')", "the canteen's menu") }
            let menu = try await text("document.getElementById('canteen-menu').innerText")
            #expect(menu.contains("Polévky") && menu.contains("Svíčková na smetaně, knedlík") && menu.contains("studenti 62,00\u{a0}Kč")
                    && menu.contains("Alergeny: 1 lepek, 3 vejce a\u{a0}7 mléko"), "\(menu)")
            // The lecture's subject, opened from the timetable.
            try await onThread {
                try page.evaluate("\(lecture).querySelector('button.class-about').click()")
                try page.waitFor("document.getElementById('subject-info').innerText.includes('Kredity')", "the subject's details")
            }
            #expect(try await text("document.getElementById('subject-heading').textContent") == "Programování (KMI/PRG)")
            let subject = try await text("document.getElementById('subject-info').innerText")
            #expect(subject.contains("2 hodiny přednášek, 2 hodiny cvičení") && subject.contains("zápočet před zkouškou")
                    && subject.contains("doc. Ing. Jan Garant, Ph.D., RNDr. Petr Dvořák") && subject.contains("Předmět v Courseware"), "\(subject)")
            #expect(try await onThread { try page.developerText() } == [])
            #expect(try await onThread { try page.fitsItsWidth() })
            try await onThread {
                try page.screenshots("stag-student-week", in: ConsoleBrowserTests.artifacts)
                try page.use(.phone)
            }

            // Registering for the term: the term says so, its seats count her, today lists the exam.
            try await onThread {
                try page.click("[data-term='\(Self.term)'] button.register")
                try page.waitFor(termItem + ".classList.contains('status-registered')", "the term registered")
            }
            #expect(try await text("document.getElementById('exams-status').textContent") == "Jste přihlášeni na termín 25. 2. 2026 9:00 (Programování).")
            let registered = try await text(termItem + ".innerText")
            #expect(registered.contains("Jste přihlášeni.") && registered.contains("Obsazeno 4 z 10 míst") && registered.contains("Odhlásit se"), "\(registered)")
            #expect(emulator.isRegistered(term: Self.term))
            try await onThread { try page.waitFor("document.getElementById('today').innerText.includes('Vaše zkoušky')", "the exam in today's part") }
            #expect(try await onThread { try page.developerText() } == [])
            #expect(try await onThread { try page.fitsItsWidth() })
            try await onThread {
                try page.screenshots("stag-student-exam", in: ConsoleBrowserTests.artifacts)
                try page.use(.phone)
            }

            // Unregistering: the term is open again.
            try await onThread {
                try page.click("[data-term='\(Self.term)'] button.unregister")
                try page.waitFor(termItem + ".classList.contains('status-open')", "the term unregistered")
            }
            #expect(try await text("document.getElementById('exams-status').textContent") == "Z termínu 25. 2. 2026 9:00 (Programování) jste odhlášeni.")
            #expect(!emulator.isRegistered(term: Self.term))
            #expect(try await onThread { try page.developerText() } == [])

            // A result: the winter semester's Discrete mathematics, its grade with the word, and the average.
            let grade = try await text("document.querySelector(\"#results .grades li[data-subject='KMI/DM']\").innerText")
            #expect(grade.contains("Diskrétní matematika") && grade.contains("2 (velmi dobře)") && grade.contains("18. 12. 2025"), "\(grade)")
            #expect(try await text("document.getElementById('results').innerText").contains("1,93"))

            // A note without a title is refused at its field; one for PRG is added, listed under the subject, and deleted.
            try await onThread {
                try page.choose("KMI/PRG", in: "note-subject")
                try page.click("#note-form button[type=submit]")
                try page.waitFor("document.getElementById('note-error').textContent !== ''", "the refused note")
            }
            #expect(try await text("document.getElementById('note-error').textContent") == "Dejte poznámce nadpis.")
            #expect(try await text("document.getElementById('note-title').getAttribute('aria-invalid')") == "true")
            #expect(try await onThread { try page.developerText() } == [])
            try await onThread {
                try page.type("Odevzdat úlohu 3", into: "note-title")
                try page.type("Řazení haldou", into: "note-text")
                try page.click("#note-form button[type=submit]")
                // The page says so once the list shows it (notes.js): the sentence is what to wait for.
                try page.waitFor("document.getElementById('notes-status').textContent.includes('přidaná')", "the note added")
            }
            let note = try await text("document.querySelector(\"#notes section[data-subject='KMI/PRG']\").innerText")
            #expect(note.contains("Programování (KMI/PRG)") && note.contains("Odevzdat úlohu 3") && note.contains("Řazení haldou"), "\(note)")
            #expect(try await text("document.getElementById('notes-status').textContent") == "Poznámka „Odevzdat úlohu 3“ je přidaná.")
            #expect(try await onThread { try page.developerText() } == [])
            // Changed: Change fills the form in; she renames it and gives it a day, which the
            // module then reminds her of the morning before (spec §7.1 (j)).
            try await onThread {
                try page.click("#notes li.note button.change")
                try page.waitFor("!document.getElementById('note-cancel').hidden", "the form changing the note")
            }
            #expect(try await text("document.getElementById('note-form-heading').textContent") == "Úprava poznámky „Odevzdat úlohu 3“")
            #expect(try await text("document.getElementById('note-title').value") == "Odevzdat úlohu 3")
            #expect(try await onThread { try page.fitsItsWidth() })
            try await onThread {
                try page.screenshots("stag-student-note", in: ConsoleBrowserTests.artifacts)
                try page.use(.phone)
            }
            try await onThread {
                try page.evaluate("document.getElementById('note-title').select()")
                try page.type("Odevzdat úlohu 4", into: "note-title")
                try page.choose("2026-02-20", in: "note-day")
                try page.click("#note-form button[type=submit]")
                try page.waitFor("document.getElementById('notes-status').textContent.includes('upravena')", "the note changed")
            }
            #expect(try await text("document.getElementById('notes-status').textContent") == "Poznámka „Odevzdat úlohu 4“ je upravena.")
            let changed = try await text("document.querySelector(\"#notes section[data-subject='KMI/PRG'] li.note\").innerText")
            #expect(changed.contains("Odevzdat úlohu 4") && changed.contains("20. 2. 2026") && changed.contains("Řazení haldou"), "\(changed)")
            #expect(try await text("document.getElementById('note-form-heading').textContent") == "Přidat poznámku")
            let planned = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.stag/ops/notifications-status",
                                                          headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: Array("{}".utf8))
            let noteReminders = (try JSONValue(parsing: planned.text)["pending"]?.objectValue ?? [:]).filter { $0.key.hasPrefix("stag:noteDue:") }
            #expect(noteReminders.values.map(\.stringValue) == ["2026-02-19T07:00:00Z"], "\(planned.text)")
            #expect(try await onThread { try page.developerText() } == [])
            #expect(try await onThread { try page.fitsItsWidth() })
            try await onThread {
                try page.click("#notes li.note button.delete")
                try page.waitFor("document.getElementById('notes-status').textContent.includes('smazaná')", "the note deleted")
            }
            #expect(try await text("document.getElementById('notes-status').textContent") == "Poznámka „Odevzdat úlohu 4“ je smazaná.")
            #expect(try await text("document.getElementById('notes').textContent") == "Zatím žádné poznámky.")

            // The reminder before each class, off by default, switched on: said, and kept by the module.
            #expect(try await onThread { try page.evaluate("document.getElementById('reminder-classBefore').checked") } == false)
            try await onThread {
                try page.click("#reminder-classBefore")
                try page.waitFor("document.getElementById('reminders-status').textContent !== ''", "the reminder switched on")
            }
            #expect(try await text("document.getElementById('reminders-status').textContent") == "„Před každou výukou“: zapnuto.")
            #expect(try await onThread { try page.evaluate("document.getElementById('reminder-classBefore').checked") } == true)
            #expect(try await text("document.getElementById('reminder-classBefore-lead').selectedOptions[0].textContent") == "15 minut předem")
            let status = try await RawHTTPClient.request(port: serve.port, "POST", "/v1/plugins/cz.tessera.stag/ops/notifications-status",
                                                         headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: Array("{}".utf8))
            #expect(try JSONValue(parsing: status.text)["settings"]?["classBefore"]?["enabled"] == true, "\(status.text)")
            #expect(try await onThread { try page.developerText() } == [])
            #expect(try await onThread { try page.fitsItsWidth() })

            // The same page in English: the lecture is a "Lecture", its time as English writes it.
            try await onThread {
                try page.evaluate("localStorage.setItem('tessera.language', 'en')")
                try page.navigate(base + "/ui/cz.tessera.stag/")
                try page.waitFor("document.documentElement.lang === 'en' && document.body.dataset.ready === 'true' && document.body.dataset.stag === 'in'",
                                 "the page in English")
            }
            #expect(try await text("\(lecture).querySelector('.class-details').textContent").hasPrefix("Lecture · room UC 355"))
            // (ICU writes a narrow no-break space before "AM" in some versions.)
            #expect(try await text("\(lecture).querySelector('.class-time').textContent.replace(/\\u202f/g, ' ')") == "9:20 AM–11:00 AM")
            #expect(try await text("document.getElementById('timetable-when').textContent").hasPrefix("Week 8 (even)"))
            // IS/STAG names the subject in English too (the page asks for its reads in English).
            #expect(try await text("\(lecture).querySelector('.class-name').textContent").hasPrefix("Programming"))
            try await onThread { try page.waitFor("document.getElementById('canteen-menu').innerText.includes('Beef sirloin')", "the menu in English") }
            // The note reminder's switch and the note form's words in English too.
            #expect(try await text("document.querySelector(\"[data-kind='noteDue'] label\").textContent") == "On a note’s due day (at 8:00)")
            #expect(try await text("document.getElementById('note-cancel').textContent") == "Cancel")
            #expect(try await onThread { try page.evaluate("document.getElementById('reminder-classBefore').checked") } == true)
            #expect(try await onThread { try page.developerText() } == [])
            #expect(try await onThread { try page.fitsItsWidth() })
            let unlabelled = try await text("""
                [...document.querySelectorAll('input, select, textarea')]
                  .filter((c) => c.labels.length === 0 && !c.getAttribute('aria-label')).map((c) => c.id || c.name).join(',')
                """)
            #expect(unlabelled == "")
            try await onThread {
                try page.screenshots("stag-student-en", in: ConsoleBrowserTests.artifacts)
                try page.evaluate("localStorage.removeItem('tessera.language')")
            }
            #expect(try await onThread { try page.fitsItsWidth() })  // at desktop size, where screenshots leave the tab
            _ = try await serve.terminate()
        }
    }
}
