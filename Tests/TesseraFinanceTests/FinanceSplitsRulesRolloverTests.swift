import TesseraTestFixtures
import Foundation
import Testing
@testable import TesseraFinance
import TesseraTesting

/// Issue 42: what Actual Budget and Firefly III users expect — split transactions, rules with more
/// than words of the name (previewed, applied on import and to what is recorded), and category
/// limits that roll what is left into the next month, shown month by month.
@Suite(.hangWatchdog) struct FinanceSplitsRulesRolloverTests {
    func host(_ start: String = "2026-01-15T09:00:00Z") async throws -> PluginTestHost {
        try await PluginTestHost(manifest: FinanceTests.manifest, plugin: { FinancePlugin() }, start: try Date(start, strategy: .iso8601))
    }

    @Test func aSplitTransactionCountsByItsPartsAndItsPartsAddUp() async throws {
        let host = try await host()
        let receipt = try await host.call("transaction-add", ["kind": "expense", "name": "Tesco", "amount": "100", "category": "shopping", "date": "2026-01-10"])
        let id = try #require(receipt["id"])
        let refused = await #expect(throws: PluginError.self) {
            _ = try await host.call("transaction-split", ["id": id, "parts": [["category": "food", "amount": "60"], ["category": "health", "amount": "30"]]])
        }
        #expect(refused?.field == "$.parts" && refused?.message.contains("add up to 90.00 but the transaction is 100.00") == true)
        let single = await #expect(throws: PluginError.self) {
            _ = try await host.call("transaction-split", ["id": id, "parts": [["category": "food", "amount": "100"]]])
        }
        #expect(single?.reason == "split_parts")
        let split = try await host.call("transaction-split", ["id": id, "parts": [["category": "food", "amount": "70", "note": "groceries"],
                                                                                   ["category": "health", "amount": "30"]]])
        #expect(split["splits"]?.arrayValue?.map { $0["category"]?.stringValue } == ["food", "health"])
        #expect(split["splits"]?.arrayValue?.first?["note"] == "groceries")
        let month = try await host.call("overview", ["period": "month", "month": "2026-01"])
        #expect(month["expense"] == "100.00")
        #expect(month["byCategory"]?.arrayValue?.map { $0["category"]?.stringValue } == ["food", "health"])
        #expect(month["byCategory"]?.arrayValue?.map { $0["amount"]?.stringValue } == ["70.00", "30.00"])
        // A limit on health counts the part; the list finds the transaction by a part's category.
        _ = try await host.call("category-budget-set", ["category": "health", "amount": "50"])
        let status = try await host.call("budget-status")
        #expect(status["categories"]?.arrayValue?.first?["spent"] == "30.00")
        #expect(try await host.call("transactions-list", ["category": "health"])["transactions"]?.arrayValue?.count == 1)
        // Its amount alone cannot change; with new parts it can; no parts takes the split away.
        let alone = await #expect(throws: PluginError.self) { _ = try await host.call("transaction-update", ["id": id, "amount": "120"]) }
        #expect(alone?.reason == "split_amount")
        let renamed = try await host.call("transaction-update", ["id": id, "name": "Tesco Extra"])
        #expect(renamed["splits"]?.arrayValue?.count == 2)
        let bigger = try await host.call("transaction-split", ["id": id, "amount": "120", "parts": [["category": "food", "amount": "90"], ["category": "health", "amount": "30"]]])
        #expect(bigger["amount"] == "120.00")
        let whole = try await host.call("transaction-split", ["id": id, "parts": []])
        #expect(whole["splits"] == nil)
        #expect(try await host.call("overview", ["period": "month", "month": "2026-01"])["byCategory"]?.arrayValue?.map { $0["category"]?.stringValue } == ["shopping"])
        _ = try await host.call("transaction-split", ["id": id, "parts": [["category": "food", "amount": "100"], ["category": "health", "amount": "20"]]])
        _ = try await host.call("transaction-delete", ["id": id])
        #expect(try await host.query("SELECT COUNT(*) AS n FROM splits").first?["n"].integer == 0)
        await host.stop()
    }

    @Test func rulesWithSeveralConditionsArePreviewedAppliedToWhatIsRecordedAndOnImport() async throws {
        let host = try await host()
        for (name, amount) in [("Shell Praha", "1500"), ("Shell shop", "45"), ("Albert", "300")] {
            _ = try await host.call("transaction-add", ["kind": "expense", "name": .string(name), "amount": .string(amount), "category": "other", "date": "2026-01-12"])
        }
        let rule: JSONValue = ["match": "shell", "minAmount": "500", "category": "transport"]
        let preview = try await host.call("category-rule-test", rule)
        #expect(preview["count"] == 1 && preview["transactions"]?.arrayValue?.first?["name"] == "Shell Praha")
        #expect(try await host.call("category-rules-list")["rules"]?.arrayValue?.isEmpty == true)  // a test saves nothing
        var saving = rule.objectValue!
        saving["applyToExisting"] = true
        let saved = try await host.call("category-rule-add", .object(saving))
        #expect(saved["applied"] == 1 && saved["rules"]?.arrayValue?.first?["minAmount"] == "500.00")
        let moved = try await host.call("transactions-list", ["category": "transport"])["transactions"]?.arrayValue ?? []
        #expect(moved.map { $0["name"]?.stringValue } == ["Shell Praha"])
        // A rule on the counterparty and the direction, applied to a statement's movements.
        _ = try await host.call("category-rule-add", ["payee": "employer", "kind": "income", "category": "salary"])
        let csv = "Datum;Objem;Název protiúčtu;Zpráva pro příjemce\n14.01.2026;42 500,00;Employer s.r.o.;Mzda 12/2025\n14.01.2026;-12,00;Employer s.r.o.;Vratka\n"
        let lines = try await host.call("statement-preview", ["file": .string(csv)])["lines"]?.arrayValue ?? []
        #expect(lines.map { $0["category"]?.stringValue } == ["salary", "other"])
        _ = try await host.call("statement-import", ["file": .string(csv)])
        let salary = try await host.call("transactions-list", ["category": "salary"])["transactions"]?.arrayValue ?? []
        #expect(salary.first?["counterparty"] == "Employer s.r.o.")
        // No condition, or a range upside down, is refused and names its field.
        let none = await #expect(throws: PluginError.self) { _ = try await host.call("category-rule-add", ["match": "  ", "category": "food"]) }
        #expect(none?.field == "$.match")
        let upside = await #expect(throws: PluginError.self) {
            _ = try await host.call("category-rule-test", ["minAmount": "10", "maxAmount": "5", "category": "food"])
        }
        #expect(upside?.field == "$.maxAmount")
        await host.stop()
    }

    @Test func whatAMonthLeavesOfARolloverLimitCarriesIntoTheNextAndOverspendingDoesNot() async throws {
        let host = try await host()
        _ = try await host.call("category-budget-set", ["category": "food", "amount": "200", "rollover": true])
        _ = try await host.call("transaction-add", ["kind": "expense", "name": "Groceries", "amount": "150", "category": "food", "date": "2026-01-10"])
        try await host.advanceClock(by: 31 * 86_400)  // 2026-02-15
        _ = try await host.call("transaction-add", ["kind": "expense", "name": "Groceries", "amount": "300", "category": "food", "date": "2026-02-10"])
        let february = try #require(try await host.call("budget-status")["categories"]?.arrayValue?.first)
        #expect(february["carried"] == "50.00" && february["available"] == "250.00" && february["remaining"] == "-50.00" && february["overspent"] == true)
        try await host.advanceClock(by: 28 * 86_400)  // 2026-03-15
        let history = try await host.call("category-budget-history", ["category": "food", "months": 4])["months"]?.arrayValue ?? []
        // From the month the limit was set; overspending carries nothing.
        #expect(history.map { $0["month"]?.stringValue } == ["2026-01", "2026-02", "2026-03"])
        #expect(history.map { $0["carried"]?.stringValue } == ["0.00", "50.00", "0.00"])
        #expect(history.map { $0["left"]?.stringValue } == ["50.00", "-50.00", "200.00"])
        // Without rollover, nothing carries; a changed amount keeps rollover's first month.
        _ = try await host.call("category-budget-set", ["category": "food", "amount": "250"])
        let kept = try await host.call("category-budget-history", ["category": "food", "months": 3, "month": "2026-02"])["months"]?.arrayValue ?? []
        #expect(kept.map { $0["carried"]?.stringValue } == ["0.00", "100.00"])
        _ = try await host.call("category-budget-set", ["category": "food", "amount": "250", "rollover": false])
        // Without rollover nothing carries, and the limit counts from the month it was set again.
        let plain = try await host.call("category-budget-history", ["category": "food", "months": 2])["months"]?.arrayValue ?? []
        #expect(plain.map { $0["month"]?.stringValue } == ["2026-03"] && plain.map { $0["carried"]?.stringValue } == ["0.00"])
        await host.stop()
    }
}
