import Foundation
import Testing
import TesseraSDK
import TesseraFioEmulator
import TesseraTestFixtures

/// Issue 42: a month of finance from the page, in a real headless Chromium against the real
/// `tessera serve` on a virtual clock (2026-03-10, Prague), in Czech. A person who has recorded
/// nothing gets Czech crowns; adds the rent with its day and a coffee; downloads her bank's CSV
/// (Windows-1250, the bank's own columns, a footer line) and imports it: the page shows what the
/// module guessed, she says the description is in another column, sees the footer left out in a
/// sentence and her coffee recognised as already recorded, imports the rest with a progress bar in
/// slices under one import, and undoes it as a whole. Then her Fio account through the API (the
/// emulator on loopback, the token typed into a password field). In English she imports a CAMT.053
/// statement. At every step nothing meant for developers is on the page, and it fits a phone and
/// a desktop; the screenshots are artifacts/finance-month-*-phone.png and -desktop.png.
@Suite(.needs("chromium")) struct FinanceMonthBrowserTests {
    static let fioToken = String(repeating: "f1O2", count: 16)

    /// The bank's CSV: the three movements of StatementImportTests, 57 purchases more (so that the
    /// import takes three slices), and the footer.
    static func bankCSV() -> String {
        var lines = [#""ID pohybu";"Datum";"Objem";"Měna";"Protiúčet";"Název protiúčtu";"Zpráva pro příjemce";"Poznámka""#,
                     #""26512345001";"02.03.2026";"-249,90";"CZK";"";"ALBERT CR";"";"Nákup: ALBERT""#,
                     #""26512345002";"05.03.2026";"42 500,00";"CZK";"123/0800";"Employer s.r.o.";"Mzda 02/2026";"Výplata""#,
                     #""26512345005";"08.03.2026";"-2,40";"CZK";"";"";"";"Káva""#]
        for i in 1...57 {
            lines.append(#""2651239\#(String(format: "%04d", i))";"09.03.2026";"-1\#(String(format: "%02d", i % 100)),00";"CZK";"";"Trafika";"";"Noviny č. \#(i)""#)
        }
        lines.append("\"\";\"Celkem\";\"40 000,00\";\"\";\"\";\"\";\"\";\"\"")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog) func aMonthOfFinanceWithABankImportFromThePage() async throws {
        let executable = try #require(HeadlessChromium.executable)
        let fio = try await FioEmulator.start(now: try Date("2026-03-10T08:00:00Z", strategy: .iso8601))
        try await withCleanup({ await fio.stop() }) {
            fio.addAccount(token: Self.fioToken, currency: "CZK", movements: [
                .init(id: 10_000_000_002, date: "2026-03-03", amount: -318.0, counterparty: "Lékárna"),
            ])
            let ws = FixtureWorkspace("http-browser-finance-month")
            try ConsoleBrowserTests.copyShippedManifest("finance", into: ws)
            ws.writeDeployment(plugins: [["id": "cz.tessera.finance", "grants": try ConsoleBrowserTests.shippedGrants(of: "cz.tessera.finance")]],
                               extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-10T08:00:00Z"],
                                                     "http": ["redirects": ["https://fioapi.fio.cz": "http://127.0.0.1:\(fio.port)"]]]])
            // Windows-1250, as many Czech banks still write their CSV.
            let csvPath = ws.root + "/vypis-brezen.csv"
            try #require(FileManager.default.createFile(atPath: csvPath, contents: Self.bankCSV().data(using: .windowsCP1250)))
            let camtPath = ws.root + "/statement-march.xml"
            try StatementFixtures.camt.write(toFile: camtPath, atomically: true, encoding: .utf8)

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
                try await onThread { try page.looksRight("finance-month-\(name)", in: ConsoleBrowserTests.artifacts) }
            }
            let chooseFile: @Sendable (String) async throws -> Void = { path in
                try await onThread {
                    let document = try page.send("DOM.getDocument")
                    let input = try page.send("DOM.querySelector", ["nodeId": document["root"]?["nodeId"] ?? .null, "selector": "#statement-file"])
                    _ = try page.send("DOM.setFileInputFiles", ["nodeId": input["nodeId"] ?? .null, "files": [.string(path)]])
                }
            }

            // Nothing recorded yet: the page proposes Czech crowns, the currency of a Czech reader.
            try await onThread {
                _ = try page.send("Emulation.setTimezoneOverride", ["timezoneId": "Europe/Prague"])
                try ConsoleBrowserTests.signIn(page, at: base, with: token)
                try page.evaluate("localStorage.setItem('tessera.language', 'cs')")
                try page.navigate(base + "/ui/cz.tessera.finance/")
                try page.waitFor("document.documentElement.lang === 'cs' && document.body.dataset.ready === 'true'", "the finance page in Czech")
            }
            #expect(try await text("status") == "Vaše částky jsou v měně česká koruna, měně vaší země. Změnit ji můžete v části Měna.")
            #expect(try await onThread { try page.evaluate("document.getElementById('currency').value") } == "CZK")
            #expect(try await onThread { try page.evaluate("document.getElementById('date').value") } == "2026-03-10")

            // The rent on the first of the month, grouped as she writes thousands; a coffee on Saturday.
            try await onThread {
                try page.type("Nájem", into: "name")
                try page.type("12.000,00", into: "amount")
                try page.choose("housing", in: "category")
                try page.evaluate("document.getElementById('date').value = '2026-03-01'")
                try page.click("#add-form button[type=submit]")
                try page.waitFor("document.getElementById('transactions').innerText.includes('Nájem')", "the rent in the table")
                try page.type("Káva u nádraží", into: "name")
                try page.type("2,40", into: "amount")
                try page.choose("food", in: "category")
                try page.evaluate("document.getElementById('date').value = '2026-03-07'")
                try page.click("#add-form button[type=submit]")
                try page.waitFor("document.getElementById('transactions').innerText.includes('Káva u nádraží')", "the coffee in the table")
            }
            #expect(try await onThread { try page.evaluate("document.getElementById('date').value") } == "2026-03-10")  // back to today
            let rent = try await onThread { try page.evaluate("[...document.querySelectorAll('#transactions tbody tr')].at(-1).innerText").stringValue ?? "" }
            #expect(rent.contains("1. 3. 2026") && rent.contains("Bydlení") && rent.contains("12\u{a0}000,00\u{a0}Kč"), "\(rent)")
            #expect(try await text("budget") == "Na březen 2026 nemáte nastavený rozpočet. Zatím utraceno: 12\u{a0}002,40\u{a0}Kč.")

            // The bank's CSV: what the module guessed, the footer left out, the coffee already recorded.
            try await onThread { try page.openDiaryTab("import") }
            try await chooseFile(csvPath)
            try await onThread { try page.waitFor("!document.getElementById('import-preview').hidden", "the preview of the CSV") }
            #expect(try await text("import-summary")
                    == "60 pohybů od 2. 3. 2026 do 9. 3. 2026: nové 59, už importované 0, nejspíš zapsané vámi 1.")
            #expect(try await onThread { try page.evaluate("document.getElementById('map-date').selectedOptions[0].textContent") } == "Sloupec 2: Datum")
            #expect(try await onThread { try page.evaluate("document.getElementById('map-name').selectedOptions[0].textContent") } == "Sloupec 7: Zpráva pro příjemce")
            #expect(try await onThread { try page.evaluate("document.getElementById('opt-date-format').value") } == "DD.MM.YYYY")
            #expect(try await text("import-problems")
                    == "Řádek 62 se vynechá: „Celkem“ ve sloupci 2 není den zapsaný, jak je zvoleno výše.")
            let coffeeRow = try await onThread { try page.evaluate("[...document.querySelectorAll('#import-lines tbody tr')][2].innerText").stringValue ?? "" }
            #expect(coffeeRow.contains("Nejspíš „Káva u nádraží“ ze dne 7. 3. 2026"), "\(coffeeRow)")
            // She says the description is the note column: the preview follows.
            try await onThread {
                try page.choose("8", in: "map-name")
                try page.waitFor("document.getElementById('import-lines').innerText.includes('Výplata')", "the preview with the notes as descriptions")
            }
            #expect(try await onThread { try page.evaluate("document.getElementById('import-confirm').textContent") } == "Importovat 59 transakcí")
            try await looksRight("import-preview")
            try await onThread {
                try page.click("#import-confirm")
                try page.waitFor("document.getElementById('import-progress-text').textContent.startsWith('Z vypis-brezen.csv')", "the import's end", seconds: 60)
            }
            #expect(try await text("import-progress-text") == "Z vypis-brezen.csv se importovalo 59 transakcí.")
            #expect(try await onThread { try page.evaluate("document.getElementById('import-progress').hidden") } == true)
            #expect(try await text("transactions").contains("Noviny č. "))
            #expect(try await text("budget").hasSuffix("Zatím utraceno: 19\u{a0}605,30\u{a0}Kč."))
            let imports = try await text("imports")
            #expect(imports.hasPrefix("vypis-brezen.csv, 10. 3. 2026 9:00: 59 transakcí."), "\(imports)")
            // The three slices were one import: one line, one undo.
            #expect(try await onThread { try page.evaluate("document.querySelectorAll('#imports li').length") } == 1)
            try await looksRight("imported")
            try await onThread {
                try page.click("#imports button")
                try page.waitFor("document.getElementById('import-progress-text').textContent.startsWith('Import je vrácený')", "the undo")
            }
            #expect(try await text("import-progress-text") == "Import je vrácený: odebráno 59 transakcí.")
            #expect(try await !text("transactions").contains("Noviny"))
            #expect(try await text("imports").contains("Vráceno 10. 3. 2026 9:00."))

            // Fio: the token into a password field, then the import.
            try await onThread {
                #expect(try page.evaluate("document.getElementById('fio-token').type") == "password")
                try page.type(Self.fioToken, into: "fio-token")
                try page.click("#fio-token-form button[type=submit]")
                try page.waitFor("!document.getElementById('fio-import').hidden", "the Fio import button")
                try page.click("#fio-import")
                try page.waitFor("document.getElementById('fio-result').textContent.startsWith('Importována')", "the Fio import")
            }
            #expect(try await text("fio-result") == "Importována 1 nová transakce od 11. 12. 2025 do 10. 3. 2026 (už tu bylo 0).")
            #expect(try await text("fio-state") == "Propojeno. Poslední import: 10. 3. 2026.")
            #expect(try await text("transactions").contains("Lékárna"))
            #expect(try await onThread { try page.evaluate("document.body.innerText.includes('\(Self.fioToken)')") } == false)
            try await looksRight("fio")

            // In English: a CAMT.053 statement of the same month.
            try await onThread {
                try page.evaluate("localStorage.setItem('tessera.language', 'en')")
                try page.navigate(base + "/ui/cz.tessera.finance/")
                try page.waitFor("document.documentElement.lang === 'en' && document.body.dataset.ready === 'true'", "the finance page in English")
                try page.openDiaryTab("import")
            }
            try await chooseFile(camtPath)
            try await onThread { try page.waitFor("!document.getElementById('import-preview').hidden", "the preview of the CAMT.053 statement") }
            #expect(try await text("import-summary")
                    == "5 movements from Mar 2, 2026 to Mar 7, 2026: new 5, already imported 0, probably recorded by you 0.")
            #expect(try await onThread { try page.evaluate("document.getElementById('import-columns').hidden") } == true)
            try await onThread {
                try page.click("#import-confirm")
                try page.waitFor("document.getElementById('import-progress-text').textContent.includes('statement-march.xml')", "the CAMT.053 import")
            }
            #expect(try await text("import-progress-text") == "Imported 5 transactions from statement-march.xml.")
            #expect(try await text("transactions").contains("Mzda 02/2026"))
            try await looksRight("camt")
            _ = try await serve.terminate()
        }
    }
}
