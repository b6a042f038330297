import TesseraTestFixtures
import Foundation
import Testing
@testable import TesseraFinance
import TesseraTesting

/// The finance module on the host's real storage, clock and notifications (PluginTestHost), on a
/// virtual clock that starts 2026-01-01T00:00:00Z (a Thursday).
@Suite(.hangWatchdog) struct FinanceTests {
    static let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("manifests/finance.json").path

    func host(start: String = "2026-01-01T00:00:00Z") async throws -> PluginTestHost {
        try await PluginTestHost(manifest: Self.manifest, plugin: { FinancePlugin() }, start: try Date(start, strategy: .iso8601))
    }

    func count(_ host: PluginTestHost, _ table: String) async throws -> Int64 {
        try await host.query("SELECT COUNT(*) AS n FROM \(table)").first?["n"].integer ?? -1
    }

    @Test func moneyIsParsedExactlyOrRefused() throws {
        #expect(try Money.parse("12.50", field: "$") == 1250)
        #expect(try Money.parse("12,5", field: "$") == 1250)
        #expect(try Money.parse("1 234,56", field: "$") == 123_456)
        #expect(try Money.parse("0.01", field: "$") == 1)
        #expect(try Money.parse("999999999.99", field: "$") == Money.maximum)
        for bad in ["12.345", "abc", "0", "0.00", "-5", "1.2.3", "", "1000000000", "12e3"] {
            #expect(throws: PluginError.self, "\(bad)") { try Money.parse(bad, field: "$.amount") }
        }
        #expect(Money.plain(123_456) == "1234.56")
        #expect(Money.format(123_456, currency: "EUR", language: "en") == "1,234.56 EUR")
        #expect(Money.format(123_456, currency: "EUR", language: "sk") == "1\u{00A0}234,56 EUR")
        #expect(Money.percentFloor(2, of: 3) == 66)
        #expect(Money.percentFloor(1, of: 0) == nil)
    }

    @Test func transactionsAreAddedFilteredSearchedEditedAndDeleted() async throws {
        let host = try await host()
        let coffee = try await host.call("transaction-add", ["kind": "expense", "name": "Káva na stanici", "amount": "2.40", "category": "food"])
        #expect(coffee["date"] == "2026-01-01")  // today in Europe/Bratislava
        #expect(coffee["amountMinor"] == 240)
        _ = try await host.call("transaction-add", ["kind": "income", "name": "Salary", "amount": "1500", "category": "salary", "date": "2026-01-05", "account": "bank"])
        _ = try await host.call("transaction-add", ["kind": "expense", "name": "Train", "amount": "12,30", "category": "transport", "date": "2026-01-03"])
        #expect(try await host.call("transactions-list", ["kind": "expense"])["transactions"]?.arrayValue?.count == 2)
        #expect(try await host.call("transactions-list", ["search": "KAVA"])["transactions"]?.arrayValue?.first?["name"] == "Káva na stanici")
        #expect(try await host.call("transactions-list", ["from": "2026-01-02", "to": "2026-01-04"])["transactions"]?.arrayValue?.map { $0["name"] } == ["Train"])
        let names = try await host.call("transactions-list")["transactions"]?.arrayValue?.map { $0["name"]?.stringValue }
        #expect(names == ["Salary", "Train", "Káva na stanici"])  // newest first
        let id = try #require(coffee["id"]?.stringValue)
        let edited = try await host.call("transaction-update", ["id": .string(id), "amount": "2.60"])
        #expect(edited["amount"] == "2.60" && edited["name"] == "Káva na stanici")
        _ = try await host.call("transaction-delete", ["id": .string(id)])
        #expect(try await count(host, "transactions") == 2)
        await host.stop()
    }

    @Test func badInputNamesTheFieldAndWritesNothing() async throws {
        let host = try await host()
        let cases: [(JSONValue, String)] = [
            (["kind": "expense", "name": "x", "amount": "1.234", "category": "food"], "$.amount"),
            (["kind": "expense", "name": "x", "amount": "1", "category": "yachts"], "$.category"),
            (["kind": "expense", "name": "   ", "amount": "1", "category": "food"], "$.name"),
            (["kind": "expense", "name": "x", "amount": "1", "category": "food", "account": "swiss"], "$.account"),
            (["kind": "expense", "name": "x", "amount": "1", "category": "food", "date": "2026-02-30"], "$.date"),
        ]
        for (input, field) in cases {
            let error = await #expect(throws: PluginError.self) { _ = try await host.call("transaction-add", input) }
            #expect(error?.field == field, "\(input)")
        }
        #expect(try await count(host, "transactions") == 0)
        let unknown = await #expect(throws: PluginError.self) { _ = try await host.call("transaction-update", ["id": "nope", "amount": "1"]) }
        #expect(unknown?.code == .notFound)
        _ = try await host.call("category-add", ["name": "Yachts"])
        _ = try await host.call("transaction-add", ["kind": "expense", "name": "Sail", "amount": "99", "category": "yachts"])
        #expect(try await count(host, "transactions") == 1)
        await host.stop()
    }

    @Test func theBudgetCountsOnlyExpensesIncludingEarlierOnesAndRollsOverInTheUsersTimeZone() async throws {
        // 2026-01-31T23:30:00Z is already February 1st, 00:30 in Prague.
        let host = try await host(start: "2026-01-31T23:30:00Z")
        _ = try await host.call("settings-set", ["timeZone": "Europe/Prague"])
        _ = try await host.call("transaction-add", ["kind": "expense", "name": "Rent", "amount": "400", "category": "housing", "date": "2026-02-01"])
        _ = try await host.call("transaction-add", ["kind": "income", "name": "Salary", "amount": "2000", "category": "salary", "date": "2026-02-01"])
        let set = try await host.call("budget-set", ["amount": "1000", "repeatMonthly": true])
        #expect(set["month"] == "2026-02")
        #expect(set["spent"] == "400.00" && set["remaining"] == "600.00" && set["percentUsed"] == 40)
        // AS-02: a month without a budget says so with nulls, not by leaving the members out.
        let unset = try await host.call("budget-status", ["month": "2026-01"])
        #expect(unset["isSet"] == false && unset["percentUsed"] == .null && unset["remaining"] == .null && unset["amount"] == .null)
        #expect(unset.objectValue?.keys.contains("percentUsed") == true, "\(unset)")
        // A month later (March 1st in Prague): the same budget applies, nothing spent yet.
        try await host.advanceClock(by: 28 * 86_400)
        let march = try await host.call("budget-status")
        #expect(march["month"] == "2026-03" && march["amount"] == "1000.00" && march["spent"] == "0.00")
        // Without repeating, the next month starts without a budget.
        _ = try await host.call("budget-set", ["amount": "800", "repeatMonthly": false])
        try await host.advanceClock(by: 31 * 86_400)
        let april = try await host.call("budget-status")
        #expect(april["month"] == "2026-04" && april["isSet"] == false && april["repeatMonthly"] == false)
        await host.stop()
    }

    @Test func passingTheBudgetAlertsOncePerMonthInTheUsersLanguage() async throws {
        let host = try await host()
        _ = try await host.call("settings-set", ["language": "sk"])
        _ = try await host.call("budget-set", ["amount": "100"])
        _ = try await host.call("transaction-add", ["kind": "expense", "name": "Shoes", "amount": "80", "category": "shopping"])
        #expect(try host.deliveredNotifications().isEmpty)
        _ = try await host.call("transaction-add", ["kind": "expense", "name": "Coat", "amount": "50", "category": "shopping"])
        _ = try await host.call("transaction-add", ["kind": "expense", "name": "Hat", "amount": "5", "category": "shopping"])
        try await host.advanceClock(by: 1)
        let delivered = try host.deliveredNotifications()
        #expect(delivered.map(\.title) == ["Rozpočet prekročený"])
        #expect(delivered.first?.body.contains("130,00 EUR z 100,00 EUR") == true)
        await host.stop()
    }

    @Test func theWeeklyStatusComesOnFridaysAt8AndTheReminderEveryThreeDays() async throws {
        let host = try await host()  // Thursday 2026-01-01 01:00 in Bratislava
        _ = try await host.call("budget-set", ["amount": "400"])
        _ = try await host.call("transaction-add", ["kind": "expense", "name": "Food", "amount": "49.99", "category": "food"])
        let status = try await host.call("notifications-configure", ["weeklyBudget": true, "logReminder": true])
        #expect(status["next"]?["weekly-budget"] == "2026-01-02T07:00:00Z")  // Friday 08:00 CET
        #expect(status["next"]?["log-reminder"] == "2026-01-04T00:00:00Z")   // three days after it was turned on
        try await host.advanceClock(by: 7 * 86_400)
        let delivered = try host.deliveredNotifications()
        #expect(delivered.filter { $0.key.hasPrefix("weekly-budget") }.map(\.dueAt) == [try Date("2026-01-02T07:00:00Z", strategy: .iso8601)])
        #expect(delivered.first { $0.key.hasPrefix("weekly-budget") }?.body == "You have 350.01 EUR left of 400.00 EUR for 2026-01.")
        #expect(delivered.filter { $0.key == "log-reminder" }.count == 2)  // January 4th and 7th
        _ = try await host.call("notifications-configure", ["weeklyBudget": false, "logReminder": false])
        #expect(try host.pendingNotifications().isEmpty)
        #expect(try await host.call("notifications-status")["next"] == [:])  // the weekly timer is gone too
        await host.stop()
    }

    @Test func goalsTrackContributionsAndNeedConfirmationToDelete() async throws {
        let host = try await host()
        let bike = try await host.call("goal-create", ["name": "Bike", "duration": "annual", "target": "300"])
        _ = try await host.call("goal-create", ["name": "Concert", "duration": "monthly", "target": "40"])
        let id = try #require(bike["id"]?.stringValue)
        _ = try await host.call("goal-contribute", ["id": .string(id), "amount": "100"])
        let after = try await host.call("goal-contribute", ["id": .string(id), "amount": "0.50"])
        #expect(after["saved"] == "100.50" && after["percent"] == 33 && after["completed"] == false)
        let zero = await #expect(throws: PluginError.self) { _ = try await host.call("goal-contribute", ["id": .string(id), "amount": "0"]) }
        #expect(zero?.field == "$.amount")
        #expect(try await host.call("goals-list", ["duration": "monthly"])["goals"]?.arrayValue?.map { $0["name"] } == ["Concert"])
        let unconfirmed = await #expect(throws: PluginError.self) { _ = try await host.call("goal-delete", ["id": .string(id)]) }
        #expect(unconfirmed?.code == .invalidInput && unconfirmed?.field == "$.confirm" && unconfirmed?.reason == "confirmation_required")
        _ = try await host.call("goal-delete", ["id": .string(id), "confirm": true])
        #expect(try await count(host, "contributions") == 0)
        #expect(try await host.call("goals-list")["goals"]?.arrayValue?.count == 1)
        await host.stop()
    }

    @Test func overviewsAndChartsSumByPeriodAndCategory() async throws {
        let host = try await host()
        for (name, amount, category, date) in [("Rent", "500", "housing", "2026-01-02"), ("Food", "120.50", "food", "2026-01-10"),
                                               ("More food", "29.50", "food", "2026-01-20"), ("Old", "10", "food", "2025-12-31")] {
            _ = try await host.call("transaction-add", ["kind": "expense", "name": .string(name), "amount": .string(amount), "category": .string(category), "date": .string(date)])
        }
        _ = try await host.call("transaction-add", ["kind": "income", "name": "Pay", "amount": "1000", "category": "salary", "date": "2026-01-15"])
        let month = try await host.call("overview", ["period": "month", "month": "2026-01"])
        #expect(month["income"] == "1000.00" && month["expense"] == "650.00" && month["balance"] == "350.00")
        #expect(month["byCategory"]?.arrayValue?.map { $0["category"] } == ["housing", "food"])
        #expect(month["byCategory"]?.arrayValue?.map { $0["percent"] } == [77, 23])  // 76.9 and 23.1, adding up to 100
        // AS-07: to two decimals too (76.92 and 23.08), still adding up to 100.
        #expect(month["byCategory"]?.arrayValue?.map { $0["share"] } == ["76.92", "23.08"])
        #expect(Money.percentSharesTwoDecimals([5000, 3000, 1000]) == ["55.56", "33.33", "11.11"])
        // The figures for AS-07 (55.56 / 33.34 / 11.10) are those of 50.00, 30.01 and 9.99.
        #expect(Money.percentSharesTwoDecimals([5000, 3001, 999]) == ["55.56", "33.34", "11.10"])
        #expect(Money.percentSharesTwoDecimals([1, 1, 1]) == ["33.34", "33.33", "33.33"] && Money.percentSharesTwoDecimals([0, 0]) == ["0.00", "0.00"])
        #expect(month["series"]?.arrayValue?.count == 31)
        let year = try await host.call("overview", ["period": "year", "year": 2025])
        #expect(year["expense"] == "10.00" && year["series"]?.arrayValue?.count == 12)
        let chart = try await host.call("chart-svg", ["kind": "categories", "month": "2026-01"])
        let again = try await host.call("chart-svg", ["kind": "categories", "month": "2026-01"])
        let svg = try #require(chart["svg"]?.stringValue)
        #expect(svg == again["svg"]?.stringValue)
        #expect(svg.hasPrefix("<svg") && svg.contains("<title>Expenses by category") && svg.contains("housing"))
        let bad = await #expect(throws: PluginError.self) { _ = try await host.call("overview", ["period": "custom", "from": "2026-02-01", "to": "2026-01-01"]) }
        #expect(bad?.field == "$.to")
        await host.stop()
    }

    @Test func csvRoundTripsWithoutLossAndImportsAllOrNothing() async throws {
        let source = try await host()
        _ = try await source.call("transaction-add", ["kind": "expense", "name": "Wine; \"good\" one", "amount": "12.90", "category": "food", "date": "2026-01-02"])
        _ = try await source.call("transaction-add", ["kind": "income", "name": "Gift", "amount": "50", "category": "gifts", "date": "2026-01-03", "account": "bank"])
        let full = try #require(try await source.call("export-csv", ["layout": "full"])["csv"]?.stringValue)
        let thesis = try await source.call("export-csv")
        #expect(thesis["csv"]?.stringValue?.hasPrefix("Name;Date;Price\r\n\"Wine; \"\"good\"\" one\";2026-01-02;-12.90\r\n") == true)
        #expect(thesis["filename"] == "transactions-2026-01-01.csv")
        // Into a fresh host: the same transactions, ids and all.
        let target = try await host()
        #expect(try await target.call("import-csv", ["csv": .string(full), "layout": "full"])["imported"] == 2)
        #expect(try await target.call("transactions-list") == (try await source.call("transactions-list")))
        _ = try await target.call("import-csv", ["csv": .string(full), "layout": "full"])  // again: no doubles
        #expect(try await count(target, "transactions") == 2)
        // The thesis layout imported where the rows exist already: skipped, not doubled.
        let skipped = try await source.call("import-csv", ["csv": thesis["csv"]!])
        #expect(skipped["imported"] == 0 && skipped["skipped"] == 2)
        // A bad row anywhere: nothing imported, the line and column named.
        let broken = "Name;Date;Price\r\nBread;2026-01-04;-1.20\r\nMilk;2026-13-01;-0.90\r\n"
        let error = await #expect(throws: PluginError.self) { _ = try await target.call("import-csv", ["csv": .string(broken)]) }
        #expect(error?.message.contains("line 3, column Date") == true)
        #expect(try await count(target, "transactions") == 2)
        await source.stop()
        await target.stop()
    }

    @Test func changingTheCurrencyNeedsConfirmationAndConvertsNothing() async throws {
        let host = try await host()
        _ = try await host.call("transaction-add", ["kind": "expense", "name": "Lunch", "amount": "8.50", "category": "food"])
        let refused = await #expect(throws: PluginError.self) { _ = try await host.call("settings-set", ["currency": "CZK"]) }
        #expect(refused?.code == .invalidInput && refused?.field == "$.confirm" && refused?.reason == "confirmation_required")
        #expect(try await host.call("settings-get")["currency"] == "EUR")
        #expect(try await host.call("settings-set", ["currency": "CZK", "confirm": true])["currency"] == "CZK")
        #expect(try await host.call("transactions-list")["transactions"]?.arrayValue?.first?["amount"] == "8.50")
        await host.stop()
    }
}

/// Recurring transactions, on the virtual clock.
@Suite(.hangWatchdog) struct RecurringTests {
    @Test func occurrencesAreWrittenOnceEachUpToTodayAndMonthEndsAreKept() async throws {
        let host = try await PluginTestHost(manifest: FinanceTests.manifest, plugin: { FinancePlugin() })  // 2026-01-01
        let rent = try await host.call("recurring-add", ["kind": "expense", "name": "Rent", "amount": "650", "category": "housing",
                                                         "every": "month", "start": "2025-11-30"])
        #expect(rent["every"] == "month" && rent["interval"] == 1)
        _ = try await host.call("recurring-add", ["kind": "expense", "name": "Cleaning", "amount": "20", "category": "housing",
                                                  "every": "week", "interval": 2, "start": "2026-01-01", "until": "2026-01-20"])
        func days(_ name: String) async throws -> [String] {
            try await host.query("SELECT occurred_on FROM transactions WHERE name = ? ORDER BY occurred_on", [.text(name)]).compactMap { $0["occurred_on"].text }
        }
        #expect(try await days("Rent") == ["2025-11-30", "2025-12-30"])
        #expect(try await days("Cleaning") == ["2026-01-01"])
        try await host.advanceClock(by: 59 * 86_400)  // to March 1st: the hourly job catches up
        #expect(try await days("Rent") == ["2025-11-30", "2025-12-30", "2026-01-30", "2026-02-28"])
        #expect(try await days("Cleaning") == ["2026-01-01", "2026-01-15"])  // the 29th is past `until`
        _ = try await host.call("recurring-list")
        #expect(try await host.query("SELECT COUNT(*) AS n FROM transactions").first?["n"].integer == 6)
        _ = try await host.call("recurring-delete", ["id": rent["id"]!])
        try await host.advanceClock(by: 31 * 86_400)
        #expect(try await days("Rent").count == 4)  // stopped; what it wrote stays
        let bad = await #expect(throws: PluginError.self) {
            _ = try await host.call("recurring-add", ["kind": "expense", "name": "x", "amount": "1", "category": "food", "every": "month",
                                                      "start": "2026-03-01", "until": "2026-02-01"])
        }
        #expect(bad?.field == "$.until")
        await host.stop()
    }
}
