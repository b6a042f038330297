import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The console's inbox in the reader's language and time zone, in a real headless Chromium
/// against `tessera serve` (safe travel's `.so`, a virtual clock from 2026-03-02 08:00 UTC): an
/// SOS released and left unanswered delivers the traveller's "enter your PIN" prompt
/// (time-sensitive, with the deadline as an instant) and the alert to her space (critical). The
/// module wrote both with a catalogue message (SDK 1.8), so a Czech reader in Prague reads them in
/// Czech with the deadline at 9:00 Prague time (08:00 UTC), a Slovak reader in Slovak and an English one in English, each marked
/// by its priority, with no developer text. Screenshots artifacts/inbox-*.png.
@Suite(.needs("chromium")) struct NotificationInboxBrowserTests {
    @Test(.hangWatchdog) func theInboxShowsAModulesNotificationsInTheReadersLanguageAndTimeZoneWithTheirPriority() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let serve = try await SafeTravelSOSAndPhotoBrowserTests.serve()
        defer { serve.process.terminate() }
        let admin = try #require(serve.adminToken)
        let ops = SafeTravelSOSAndPhotoBrowserTests.ops
        #expect(try await SafeTravelSOSAndPhotoBrowserTests.post(serve, ops + "account-setup", #"{"username": "ada", "pin": "4826"}"#, token: admin).status == 200)
        _ = try await SafeTravelSOSAndPhotoBrowserTests.post(serve, ops + "sos-touch-down", token: admin)
        _ = try await SafeTravelSOSAndPhotoBrowserTests.post(serve, "/v1/clock/advance", #"{"by": "3s"}"#, token: admin)
        #expect(try await SafeTravelSOSAndPhotoBrowserTests.post(serve, ops + "sos-touch-up", token: admin).json?["state"] == "RELEASED")
        _ = try await SafeTravelSOSAndPhotoBrowserTests.post(serve, "/v1/clock/advance", #"{"by": "20s"}"#, token: admin)

        // The API keeps the machine-readable parts: the priority and the message.
        let inbox = try await RawHTTPClient.request(port: serve.port, "GET", "/v1/notifications", headers: [("Authorization", "Bearer \(admin)")])
        let entries = inbox.json?["notifications"]?.arrayValue ?? []
        let prompt = try #require(entries.first { $0["key"]?.stringValue?.hasPrefix("sos-pin-") == true })
        #expect(prompt["priority"] == "time-sensitive")
        #expect(prompt["message"]?["key"] == "notify.sosPin")
        #expect(prompt["message"]?["values"]?["at"]?["instant"]?.integerValue != nil)
        let alert = try #require(entries.first { $0["key"]?.stringValue?.hasPrefix("alert-sos-") == true })
        #expect(alert["priority"] == "critical")
        #expect(alert["message"]?["key"] == "notify.alert.sos")
        #expect(alert["title"] == "SOS from ada", "the text the module wrote stays, for webhooks and e-mail")

        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        try await onThread {
            try ConsoleBrowserTests.signIn(page, at: base, with: admin)
            _ = try page.send("Emulation.setTimezoneOverride", ["timezoneId": "Europe/Prague"])
        }
        for (language, pinTitle, sosTitle, urgent) in [("cs", "Zadejte svůj PIN", "SOS od: ada", "Naléhavé"),
                                                       ("sk", "Zadajte svoj PIN", "SOS od: ada", "Naliehavé"),
                                                       ("en", "Enter your PIN", "SOS from ada", "Urgent")] {
            try await onThread {
                _ = try page.evaluate("localStorage.setItem('tessera.language', '\(language)')")
                try page.navigate(base + "/")
                try page.waitFor("document.body.dataset.ready === 'true' && document.querySelectorAll('#inbox li').length >= 2", "the inbox")
            }
            func text(_ selector: String) async throws -> String {
                try await onThread { try page.evaluate("document.querySelector(\(BrowserPage.quoted(selector)))?.textContent ?? ''").stringValue ?? "" }
            }
            #expect(try await onThread { try page.evaluate("document.documentElement.lang") } == .string(language))
            let critical = try await text("#inbox li[data-priority=critical] .title")
            #expect(critical == sosTitle, "\(language): \(critical)")
            #expect(try await text("#inbox li[data-priority=critical] .priority") == urgent)
            #expect(try await text("#inbox li[data-priority=time-sensitive] .title") == pinTitle)
            // The deadline, 08:00:18 UTC on 2 March, is 9:00 in Prague.
            let body = try await text("#inbox li[data-priority=time-sensitive] .body")
            #expect(body.contains("9:00") && !body.contains("8:00") && !body.contains("T08"), "\(language): \(body)")
            let meta = try await text("#inbox li[data-priority=critical] .meta")
            #expect(!meta.contains("cz.tessera"), "the module is named by its title: \(meta)")
            #expect(try await onThread { try page.developerText() } == [])
        }
        try await onThread { try page.use(.phone) }
        #expect(try await onThread { try page.fitsItsWidth() })
        try await onThread { try page.screenshots("inbox", in: ConsoleBrowserTests.artifacts) }
    }
}
