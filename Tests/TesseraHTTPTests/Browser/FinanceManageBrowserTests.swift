import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// Issue 42: every other flow of the finance module from its page, in a real headless Chromium
/// against the real `tessera serve` on a virtual clock (2026-01-15, Bratislava), in Slovak. A
/// person adds a supermarket receipt and splits it into food and health on the Transactions tab,
/// finds it by searching, and downloads everything as CSV; on Budgets and goals sets the month's
/// budget, a food limit that rolls over (and reads it month by month), makes a savings goal, puts
/// money towards it and deletes it; on Repeating and rules adds the rent every month and a rule,
/// seeing what it would take before saving it; in Settings adds a category of her own and switches
/// the Friday budget reminder on. At every step nothing meant for developers is on the page, and it
/// fits a phone and a desktop; the screenshots are artifacts/finance-manage-*-phone.png and -desktop.png.
@Suite(.needs("chromium")) struct FinanceManageBrowserTests {
    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func budgetsGoalsSplitsRulesAndRepeatsFromThePageInSlovak() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let ws = FixtureWorkspace("http-browser-finance-manage")
        try ConsoleBrowserTests.copyShippedManifest("finance", into: ws)
        let empty: [String: Any] = [:]
        ws.writeDeployment(plugins: [["id": "cz.tessera.finance", "grants": ["storage": empty, "clock": empty, "notifications": empty]]],
                           extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-01-15T09:00:00Z"]]])
        let serve = try await ServeProcess.start(ws)
        defer { serve.process.terminate() }
        let token = try #require(serve.adminToken)
        let base = "http://127.0.0.1:\(serve.port)"
        let browser = try await HeadlessChromium.launch(executable: executable)
        defer { browser.quit() }
        let page = try await onThread { try BrowserPage(browser) }
        let text: @Sendable (String) async throws -> String = { id in
            try await onThread { try page.evaluate("document.getElementById('\(id)').innerText").stringValue ?? "" }
        }
        let looksRight: @Sendable (String) async throws -> Void = { name in
            try await onThread { try page.looksRight("finance-manage-\(name)", in: ConsoleBrowserTests.artifacts) }
        }
        // A sentence the page writes as the person types: waited for, then compared (a wait that ends says what it found).
        let reads: @Sendable (String, String) async throws -> Void = { id, expected in
            try? await onThread { try page.waitFor("document.getElementById('\(id)').innerText === \(BrowserPage.quoted(expected))", id, seconds: 5) }
            let found = try await text(id)
            #expect(found == expected)
        }
        let statusSays: @Sendable (String, String) async throws -> Void = { prefix, what in
            try await onThread { try page.waitFor("document.getElementById('status').textContent.startsWith(\(BrowserPage.quoted(prefix)))", what) }
        }

        try await onThread {
            _ = try page.send("Emulation.setTimezoneOverride", ["timezoneId": "Europe/Bratislava"])
            try ConsoleBrowserTests.signIn(page, at: base, with: token)
            try page.evaluate("localStorage.setItem('tessera.language', 'sk')")
            try page.navigate(base + "/ui/cz.tessera.finance/")
            try page.waitFor("document.documentElement.lang === 'sk' && document.body.dataset.ready === 'true'", "the finance page in Slovak")
            try page.type("Tesco", into: "name")
            try page.type("100", into: "amount")
            try page.choose("shopping", in: "category")
            try page.click("#add-form button[type=submit]")
        }
        try await statusSays("Transakcia „Tesco“", "the receipt added")
        #expect(try await onThread { try page.evaluate("[...document.querySelectorAll('#tablist [role=tab]')].map((b) => b.textContent).join(' | ')") }
                == "Prehľad | Transakcie | Import z banky | Rozpočty a ciele | Opakovanie a pravidlá | Nastavenia")

        // Transactions: the receipt split into food and health, found by searching.
        try await onThread {
            try page.openDiaryTab("transactions")
            try page.click("#all-transactions tbody button")
            try page.waitFor("!document.getElementById('edit-form').hidden", "the edit form")
            try page.click("#split-add")
            try page.evaluate("document.getElementById('part-amount-1').value = ''")
            try page.type("70", into: "part-amount-1")
            try page.choose("food", in: "part-category-1")
            try page.choose("health", in: "part-category-2")
            try page.type("20", into: "part-amount-2")
        }
        try await reads("split-left", "Ešte 10,00\u{a0}€ nie je v žiadnej časti.")
        try await onThread { try page.type("0", into: "part-amount-2") }
        try await reads("split-left", "Časti sú o 170,00\u{a0}€ viac ako suma.")
        try await onThread {
            try page.evaluate("document.getElementById('part-amount-2').value = ''")
            try page.type("30", into: "part-amount-2")
        }
        try await reads("split-left", "Časti dávajú spolu celú sumu.")
        try await looksRight("split")
        try await onThread { try page.click("#edit-form button[type=submit]") }
        try await statusSays("Transakcia „Tesco“ je uložená.", "the split saved")
        let row = try await onThread { try page.evaluate("document.querySelector('#all-transactions tbody tr').innerText").stringValue ?? "" }
        #expect(row.contains("15. 1. 2026") && row.contains("Rozdelené: Jedlo, Zdravie") && row.contains("100,00"), "\(row)")
        try await onThread {
            try page.type("xyz", into: "filter-search")
            try page.waitFor("document.getElementById('all-count').textContent === '0 transakcií.'", "no match")
        }
        #expect(try await text("all-transactions").contains("Žiadna transakcia nezodpovedá."))
        try await onThread {
            try page.evaluate("document.getElementById('filter-search').value = ''")
            try page.type("tes", into: "filter-search")
            try page.waitFor("document.getElementById('all-count').textContent === '1 transakcia.'", "the receipt found")
            try page.click("#export-thesis")
            try page.waitFor("document.getElementById('csv-result').textContent !== ''", "the download")
        }
        #expect(try await text("csv-result") == "Súbor je stiahnutý: 1 transakcia.")

        // Budgets and goals.
        try await onThread {
            try page.openDiaryTab("budgets")
            try page.type("500", into: "budget-amount")
            try page.click("#budget-repeat")
            try page.click("#budget-form button[type=submit]")
        }
        try await statusSays("Rozpočet na január 2026 je 500,00\u{a0}€.", "the budget set")
        #expect(try await text("budget-current") == "Rozpočet na január 2026 je 500,00\u{a0}€, každý mesiac rovnaký.")
        try await onThread {
            try page.choose("food", in: "limit-category")
            try page.type("200", into: "limit-amount")
            try page.click("#limit-rollover")
            try page.click("#limit-form button[type=submit]")
        }
        try await statusSays("Limit pre kategóriu Jedlo je nastavený.", "the limit set")
        let limit = try await text("limit-list")
        #expect(limit.hasPrefix("Jedlo: minuté 70,00\u{a0}€ z 200,00\u{a0}€, zostáva 130,00\u{a0}€. (200,00\u{a0}€ na tento mesiac a 0,00\u{a0}€ zostalo z predchádzajúcich.)"), "\(limit)")
        try await onThread {
            try page.click("#limit-list button")
            try page.waitFor("!document.getElementById('limit-history').hidden", "the limit month by month")
        }
        #expect(try await text("limit-history-heading") == "Jedlo po mesiacoch")
        let lastMonth = try await onThread { try page.evaluate("[...document.querySelectorAll('#limit-history-table tbody tr')].at(-1).innerText").stringValue ?? "" }
        #expect(lastMonth.contains("január 2026") && lastMonth.contains("130,00\u{a0}€"), "\(lastMonth)")
        #expect(try await onThread { try page.evaluate("document.querySelectorAll('#limit-history-table tbody tr').length") } == 1)  // set this month
        try await onThread {
            try page.type("Bicykel", into: "goal-name")
            try page.type("300", into: "goal-target")
            try page.choose("annual", in: "goal-duration")
            try page.click("#goal-form button[type=submit]")
        }
        try await statusSays("Cieľ „Bicykel“ je pridaný.", "the goal made")
        try await onThread {
            try page.evaluate("document.querySelector('#goals input[name=amount]').focus()")
            _ = try page.send("Input.insertText", ["text": "100"])
            try page.click("#goals form button[type=submit]")
        }
        try await statusSays("Bicykel: nasporené 100,00\u{a0}€ z 300,00\u{a0}€.", "the contribution")
        try await looksRight("budgets")
        try await onThread {
            try page.click("#goals li > button")
            try page.waitFor("document.querySelector('#goals li > button').textContent === 'Naozaj zmazať aj s nasporeným?'", "the question")
            try page.click("#goals li > button")
        }
        try await statusSays("Cieľ „Bicykel“ je zmazaný.", "the goal deleted")

        // Repeating and rules.
        try await onThread {
            try page.openDiaryTab("automation")
            try page.type("Nájom", into: "recurring-name")
            try page.type("650", into: "recurring-amount")
            try page.choose("housing", in: "recurring-category")
            try page.click("#recurring-form button[type=submit]")
        }
        try await statusSays("„Nájom“ sa odteraz opakuje.", "the rent repeating")
        #expect(try await text("recurring-list").hasPrefix("Nájom, -650,00\u{a0}€, Bývanie: každý mesiac od 15. 1. 2026."))
        try await onThread {
            try page.type("tesco", into: "rule-match")
            try page.evaluate("document.getElementById('rule-match').dispatchEvent(new Event('change'))")
            try page.waitFor("document.getElementById('rule-preview').textContent !== ''", "the rule's preview")
        }
        #expect(try await text("rule-preview") == "Platí pre 1 zapísanú transakciu: Tesco.")
        try await onThread {
            try page.choose("shopping", in: "rule-category")
            try page.click("#rule-form button[type=submit]")
        }
        try await statusSays("Pravidlo je uložené.", "the rule saved")
        #expect(try await text("rule-list").hasPrefix("Keď popis obsahuje „tesco“: Nákupy."))
        try await looksRight("automation")

        // Settings: a category of her own, the Friday reminder.
        try await onThread {
            try page.openDiaryTab("settings")
            try page.type("Zvieratá", into: "category-name")
            try page.click("#category-form button[type=submit]")
        }
        try await statusSays("Kategória je pridaná.", "the category added")
        #expect(try await text("own-categories") == "Vaše kategórie: zvieratá.")
        #expect(try await onThread { try page.evaluate("[...document.getElementById('category').options].some((o) => o.value === 'zvieratá')") } == true)
        try await onThread {
            try page.click("#notify-weekly")
            try page.waitFor("document.getElementById('notify-state').textContent !== ''", "the reminder's next time")
        }
        #expect(try await text("notify-state") == "Ďalšia pripomienka rozpočtu: 16. 1. 2026, 8:00.")
        #expect(try await onThread { try page.evaluate("document.getElementById('currency').value") } == "EUR")
        try await looksRight("settings")
        _ = try await serve.terminate()
    }
}
