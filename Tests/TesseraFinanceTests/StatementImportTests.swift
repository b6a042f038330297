import TesseraTestFixtures
import Foundation
import Testing
@testable import TesseraFinance
import TesseraTesting

/// Issue 42: a bank's statement file — CAMT.053 or a CSV in the bank's own columns — previewed,
/// imported in slices under one import, never doubled, and undone as a whole.
@Suite(.hangWatchdog) struct StatementImportTests {
    func host(currency: String = "CZK") async throws -> PluginTestHost {
        let host = try await PluginTestHost(manifest: FinanceTests.manifest, plugin: { FinancePlugin() },
                                            start: try Date("2026-03-10T09:00:00Z", strategy: .iso8601))
        _ = try await host.call("settings-set", ["currency": .string(currency), "confirm": true])
        return host
    }

    @Test func aCAMT053StatementIsPreviewedImportedNeverDoubledAndUndoneAsAWhole() async throws {
        let host = try await host()
        _ = try await host.call("category-rule-add", ["match": "albert", "category": "food"])
        let preview = try await host.call("statement-preview", ["file": .string(StatementFixtures.camt), "filename": "vypis-2026-03.xml"])
        #expect(preview["format"] == "camt053" && preview["currency"] == "CZK" && preview["account"] == "CZ6508000000192000145399")
        #expect(preview["total"] == 5 && preview["new"] == 5 && preview["duplicates"] == 0)
        let lines = preview["lines"]?.arrayValue ?? []
        // The pending entry is left out; the batch is two movements; the reversal is money back.
        #expect(lines.map { $0["name"]?.stringValue } == ["ALBERT CR & SK", "Mzda 02/2026", "Nájem březen", "Zálohy energie", "Storno platby kartou"])
        #expect(lines.map { $0["kind"]?.stringValue } == ["expense", "income", "expense", "expense", "income"])
        #expect(lines.map { $0["amount"]?.stringValue } == ["249.90", "42500.00", "1000.00", "500.00", "249.90"])
        #expect(lines.map { $0["date"]?.stringValue } == ["2026-03-02", "2026-03-05", "2026-03-06", "2026-03-06", "2026-03-07"])
        #expect(lines.first?["category"] == "food")  // the rule applied to the counterparty
        #expect(try await host.query("SELECT COUNT(*) AS n FROM transactions").first?["n"].integer == 0)  // a preview writes nothing

        let imported = try await host.call("statement-import", ["file": .string(StatementFixtures.camt), "filename": "vypis-2026-03.xml"])
        #expect(imported["imported"] == 5 && imported["done"] == true)
        let again = try await host.call("statement-import", ["file": .string(StatementFixtures.camt)])
        #expect(again["imported"] == 0 && again["duplicates"] == 5)
        let budget = try await host.call("overview", ["period": "month", "month": "2026-03"])
        #expect(budget["income"] == "42749.90" && budget["expense"] == "1749.90")

        let imports = try await host.call("imports-list")["imports"]?.arrayValue ?? []
        #expect(imports.count == 1)  // the second found nothing new
        let first = try #require(imports.first { $0["imported"] == 5 })
        #expect(first["filename"] == "vypis-2026-03.xml" && first["source"] == "camt053" && first["remaining"] == 5)
        let undone = try await host.call("import-undo", ["id": first["id"]!])
        #expect(undone["remaining"] == 0 && undone["undoneAt"] != nil)
        #expect(try await host.query("SELECT COUNT(*) AS n FROM transactions").first?["n"].integer == 0)
        let twice = await #expect(throws: PluginError.self) { _ = try await host.call("import-undo", ["id": first["id"]!]) }
        #expect(twice?.reason == "already_undone")
        await host.stop()
    }

    /// Fio's CSV export: a header in Czech, `;`, days as 02.03.2026, a decimal comma, a footer.
    static let fioCSV = """
        "ID pohybu";"Datum";"Objem";"Měna";"Protiúčet";"Název protiúčtu";"Zpráva pro příjemce";"Poznámka"
        "26512345001";"02.03.2026";"-249,90";"CZK";"";"ALBERT CR";"";"Nákup: ALBERT"
        "26512345002";"05.03.2026";"42 500,00";"CZK";"123/0800";"Employer s.r.o.";"Mzda 02/2026";""
        "26512345005";"08.03.2026";"-2,40";"CZK";"";"";"";"Káva"
        "";"Celkem";"42 247,70";"";"";"";"";""
        """

    @Test func aBanksCSVIsReadInItsOwnColumnsAndAFooterIsNamedNotImported() async throws {
        let host = try await host()
        let preview = try await host.call("statement-preview", ["file": .string(Self.fioCSV)])
        #expect(preview["format"] == "csv")
        let options = try #require(preview["options"])
        #expect(options["delimiter"] == ";" && options["decimalSeparator"] == "," && options["dateFormat"] == "DD.MM.YYYY" && options["hasHeader"] == true)
        #expect(options["mapping"]?["date"] == 2 && options["mapping"]?["amount"] == 3 && options["mapping"]?["reference"] == 1
                && options["mapping"]?["counterparty"] == 6 && options["mapping"]?["name"] == 7)
        #expect(preview["columns"]?.arrayValue?.count == 8 && preview["columns"]?.arrayValue?[1]["header"] == "Datum")
        let lines = preview["lines"]?.arrayValue ?? []
        #expect(lines.map { $0["name"]?.stringValue } == ["ALBERT CR", "Mzda 02/2026", "Bank payment"])
        #expect(lines.map { $0["amountMinor"]?.integerValue } == [24_990, 4_250_000, 240])
        let problems = preview["problems"]?.arrayValue ?? []
        #expect(problems.count == 1 && problems.first?["line"] == 5)
        #expect(problems.first?["reason"]?.stringValue?.contains("'Celkem' in column 2 is not a day written DD.MM.YYYY") == true)
        // The person says the note column is the description: "Káva" instead of "Bank payment".
        var mapping = try #require(options["mapping"]?.objectValue)
        mapping["name"] = 8
        let remapped = try await host.call("statement-preview", ["file": .string(Self.fioCSV), "options": ["mapping": .object(mapping)]])
        #expect(remapped["lines"]?.arrayValue?[2]["name"] == "Káva")
        let imported = try await host.call("statement-import", ["file": .string(Self.fioCSV), "options": ["mapping": .object(mapping)]])
        #expect(imported["imported"] == 3 && imported["problems"]?.arrayValue?.count == 1)
        // The same movements in a CAMT.053 statement of the same account are already there: the bank's references match.
        let camt = try await host.call("statement-preview", ["file": .string(StatementFixtures.camt)])
        #expect(camt["lines"]?.arrayValue?[0]["duplicate"] == "exact" && camt["lines"]?.arrayValue?[1]["duplicate"] == "exact")
        await host.stop()
    }

    @Test func moneyOutAndInInTwoColumnsAndAnEnglishExportWithoutAHeader() async throws {
        let host = try await host(currency: "GBP")
        let twoColumns = "Date,Description,Money out,Money in\n03/02/2026,Coffee,\"1,234.50\",\n04/02/2026,Refund,,12.00\n"
        let preview = try await host.call("statement-preview", ["file": .string(twoColumns)])
        #expect(preview["options"]?["delimiter"] == "," && preview["options"]?["decimalSeparator"] == ".")
        #expect(preview["options"]?["mapping"]?["debit"] == 3 && preview["options"]?["mapping"]?["credit"] == 4)
        // Day first is how a British bank writes 03/02/2026.
        #expect(preview["lines"]?.arrayValue?.map { $0["date"]?.stringValue } == ["2026-02-03", "2026-02-04"])
        #expect(preview["lines"]?.arrayValue?.map { $0["amountMinor"]?.integerValue } == [123_450, 1_200])
        #expect(preview["lines"]?.arrayValue?.map { $0["kind"]?.stringValue } == ["expense", "income"])
        let noHeader = "2026-02-10\tTesco\t-12.34\n2026-02-11\tSalary\t2000\n"
        let bare = try await host.call("statement-preview", ["file": .string(noHeader)])
        #expect(bare["options"]?["hasHeader"] == false && bare["options"]?["delimiter"] == "\t")
        #expect(bare["lines"]?.arrayValue?.map { $0["name"]?.stringValue } == ["Tesco", "Salary"])
        // A column the file does not have is named.
        let wrong = await #expect(throws: PluginError.self) {
            _ = try await host.call("statement-preview", ["file": .string(noHeader), "options": ["mapping": ["date": 1, "amount": 7]]])
        }
        #expect(wrong?.field == "$.options.mapping" && wrong?.message.contains("no column 7") == true)
        await host.stop()
    }

    @Test func whatWasTypedByHandIsLikelyAlreadyThereAndLeftOutUnlessAsked() async throws {
        let host = try await host()
        _ = try await host.call("transaction-add", ["kind": "expense", "name": "Káva u nádraží", "amount": "2.40", "category": "food", "date": "2026-03-07"])
        let preview = try await host.call("statement-preview", ["file": .string(Self.fioCSV)])
        let coffee = try #require(preview["lines"]?.arrayValue?.first { $0["amountMinor"] == 240 })
        #expect(coffee["duplicate"] == "likely" && coffee["duplicateOf"] == "Káva u nádraží (2026-03-07)")
        #expect(preview["likely"] == 1 && preview["new"] == 2)
        let imported = try await host.call("statement-import", ["file": .string(Self.fioCSV)])
        #expect(imported["imported"] == 2 && imported["likelySkipped"] == 1)
        let withIt = try await host.call("statement-import", ["file": .string(Self.fioCSV), "includeLikely": true])
        #expect(withIt["imported"] == 1 && withIt["duplicates"] == 2)
        #expect(try await host.query("SELECT COUNT(*) AS n FROM transactions").first?["n"].integer == 4)
        await host.stop()
    }

    @Test func slicesOfOneImportAreUndoneTogether() async throws {
        let host = try await host()
        var next = 0, importId: JSONValue? = nil, done = false, slices = 0
        while !done {
            var input: [String: JSONValue] = ["file": .string(StatementFixtures.camt), "start": .integer(Int64(next)), "count": 2]
            if let importId { input["importId"] = importId }
            let slice = try await host.call("statement-import", .object(input))
            importId = slice["importId"]
            next = Int(slice["next"]?.integerValue ?? 0)
            done = slice["done"] == true
            slices += 1
        }
        #expect(slices == 3)
        let record = try #require(try await host.call("imports-list")["imports"]?.arrayValue?.first)
        #expect(try await host.call("imports-list")["imports"]?.arrayValue?.count == 1)
        #expect(record["imported"] == 5 && record["remaining"] == 5)
        _ = try await host.call("import-undo", ["id": importId!])
        #expect(try await host.query("SELECT COUNT(*) AS n FROM transactions").first?["n"].integer == 0)
        let unknown = await #expect(throws: PluginError.self) {
            _ = try await host.call("statement-import", ["file": .string(StatementFixtures.camt), "importId": "nope"])
        }
        #expect(unknown?.field == "$.importId")
        await host.stop()
    }

    @Test func aStatementInAnotherCurrencyOrNotReadableWritesNothingAndSaysWhy() async throws {
        let host = try await host(currency: "EUR")
        let other = await #expect(throws: PluginError.self) { _ = try await host.call("statement-import", ["file": .string(StatementFixtures.camt)]) }
        #expect(other?.message.contains("the statement is in CZK but the app's amounts are in EUR") == true)
        let broken = await #expect(throws: PluginError.self) {
            _ = try await host.call("statement-preview", ["file": "<Document><BkToCstmrStmt><Stmt></BkToCstmrStmt></Document>"])
        }
        #expect(broken?.field == "$.file" && broken?.message.contains("</BkToCstmrStmt> closes <Stmt>") == true)
        let entities = await #expect(throws: PluginError.self) {
            _ = try await host.call("statement-preview", ["file": "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY a \"aaaa\">]><Document/>", "format": "camt053"])
        }
        #expect(entities?.message.contains("<!DOCTYPE>") == true)
        let quotes = await #expect(throws: PluginError.self) {
            _ = try await host.call("statement-preview", ["file": "Datum;Objem\n\"\"Celkem\";1\n"])
        }
        #expect(quotes?.field == "$.file" && quotes?.reason == "statement_unreadable")
        #expect(try await host.query("SELECT COUNT(*) AS n FROM transactions").first?["n"].integer == 0)
        await host.stop()
    }

    @Test func amountsAndDaysAsBanksWriteThem() {
        #expect(BankAmount.parse("-1 234,50 Kč", decimalSeparator: ",") == -123_450)
        #expect(BankAmount.parse("1,234.50", decimalSeparator: ".") == 123_450)
        #expect(BankAmount.parse("CZK 12.5", decimalSeparator: ".") == 1_250)
        #expect(BankAmount.parse("1\u{A0}000", decimalSeparator: ",") == 100_000)
        #expect(BankAmount.parse("12,345", decimalSeparator: ",") == nil)  // three decimals
        #expect(BankAmount.parse("abc", decimalSeparator: ",") == nil)
        #expect(BankDateFormat.dotted.day("1. 3. 2026") == "2026-03-01")
        #expect(BankDateFormat.dotted.day("31.02.2026") == nil)
        #expect(BankDateFormat.guess(["03/02/2026", "13/02/2026"]) == .dayFirst)
        #expect(BankDateFormat.guess(["02/13/2026"]) == .monthFirst)
        #expect(BankDateFormat.iso.day("2026-03-01T10:00:00") == "2026-03-01")
    }
}
