import Foundation
import Testing
import TesseraSDK
import TesseraSTAGEmulator
import TesseraTestFixtures

/// Issue 42: IS/STAG's page for a teacher, in a real headless Chromium against the real `tessera
/// serve` on a virtual clock (Monday 16 February 2026, 8:00 in Prague), the university's and ZČU's
/// hosts sent to the emulator. In English: the teacher logs in through the emulator's single
/// sign-on, is greeted by his name, sees the theses he supervises and opposes with his part in each, opens "About the
/// subject" on a lecture he teaches and reads its details and the four students who attend it.
/// Nothing for developers, nothing wider than a phone; screenshots artifacts/stag-teacher-*.png.
@Suite(.needs("chromium")) struct STAGTeacherBrowserTests {
    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func aTeacherReadsHisThesesAndTheStudentsOfHisLectureInEnglish() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let emulator = try await STAGEmulator.start(now: STAGEmulator.pragueDate("16.2.2026 8:00"))
        try await withCleanup({ await emulator.stop() }) {
            emulator.setLoginUser(.teacher)
            let ws = FixtureWorkspace("http-browser-stag-teacher")
            try ConsoleBrowserTests.copyShippedManifest("stag", into: ws)
            let empty: [String: Any] = [:]
            ws.writeDeployment(plugins: [["id": "cz.tessera.stag", "grants": ["storage": empty, "clock": empty, "secrets": empty, "notifications": empty,
                                                                               "http": ["hosts": ["stag-demo.zcu.cz", "www.zcu.cz"]]]]],
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

            let back = try await RawHTTPClient.request(port: emulator.port, "GET",
                                                       "/ws/login?originalURL=\(base)/ui/cz.tessera.stag/callback.html&longTicket=true")
            let location = try #require(back.headers["location"])
            try await onThread {
                _ = try page.send("Emulation.setTimezoneOverride", ["timezoneId": "Europe/Prague"])
                try ConsoleBrowserTests.signIn(page, at: base, with: token)
                try page.evaluate("localStorage.setItem('tessera.language', 'en')")
                try page.evaluate("sessionStorage.setItem('stag.login', JSON.stringify({university: 'demo'}))")
                try page.navigate(location)
                try page.waitFor("location.pathname.endsWith('/callback.html') && document.body.dataset.ready === 'true'", "the callback")
                try page.click("#continue")
                try page.waitFor("location.pathname === '/ui/cz.tessera.stag/' && document.body.dataset.ready === 'true' && document.body.dataset.stag === 'in'",
                                 "the page after the login")
                try page.waitFor("document.getElementById('theses').innerText.includes('A mobile client for IS/STAG')", "the theses")
            }
            // His name, as the login gave it (`account`): IS/STAG's profile is a student's only.
            let who = try await text("document.getElementById('account-who').textContent")
            #expect(who == "Logged in as Petr Dvořák (teacher).")
            let theses = try await text("document.getElementById('theses').innerText")
            #expect(theses.contains("Bachelor's thesis · Jana Nováková · Computer Science") && theses.contains("You supervise it")
                    && theses.contains("to be handed in by May 15, 2026") && theses.contains("You are its opponent"), "\(theses)")

            let lecture = "document.querySelector(\"#timetable li.class[data-date='2026-02-16'][data-subject='KMI/PRG']\")"
            try await onThread {
                try page.evaluate("\(lecture).querySelector('button.class-about').click()")
                try page.waitFor("document.getElementById('subject-info').innerText.includes('attend this class')", "the lecture's students")
            }
            #expect(try await text("document.getElementById('subject-heading').textContent") == "Programming (KMI/PRG)")
            let subject = try await text("document.getElementById('subject-info').innerText")
            #expect(subject.contains("4 students attend this class") && subject.contains("Jana Nováková"), "\(subject)")
            try await onThread { try page.looksRight("stag-teacher", in: ConsoleBrowserTests.artifacts) }
            _ = try await serve.terminate()
        }
    }
}
