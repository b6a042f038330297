import TesseraTestFixtures
import Foundation
import Testing
@testable import TesseraFinance
import TesseraFioEmulator
import TesseraTesting

/// The Fio import against the emulator on loopback: the module's real Fio URLs, redirected by
/// the host (providers.http.redirects), the token a secret.
@Suite(.hangWatchdog) struct FioImportTests {
    static let token = String(repeating: "a1B2", count: 16)  // 64 characters, as Fio's are
    static let start = try! Date("2026-03-02T08:00:00Z", strategy: .iso8601)

    func setUp() async throws -> (PluginTestHost, FioEmulator) {
        let fio = try await FioEmulator.start(now: Self.start)
        fio.addAccount(token: Self.token, movements: [
            .init(id: 10_000_000_001, date: "2025-11-20", amount: -99.0, counterparty: "Too old"),
            .init(id: 10_000_000_002, date: "2026-02-10", amount: -130.0, counterparty: "Albert"),
            .init(id: 10_000_000_003, date: "2026-02-25", amount: 1500.5, counterparty: "Employer", message: "Salary"),
            .init(id: 10_000_000_004, date: "2026-03-01", amount: -0.1, message: "Fee"),
        ])
        let host = try await PluginTestHost(manifest: FinanceTests.manifest, plugin: { FinancePlugin() }, start: Self.start,
                                            httpRedirects: ["https://fioapi.fio.cz": "http://127.0.0.1:\(fio.port)"])
        return (host, fio)
    }

    @Test func theFirstImportTakesNinetyDaysThenOnlyNewMovementsAndNeverDoubles() async throws {
        let (host, fio) = try await setUp()
        _ = try await host.call("fio-token-set", ["token": .string(Self.token)])
        let first = try await host.call("fio-import")
        #expect(first["imported"] == 3 && first["from"] == "2025-12-03" && first["to"] == "2026-03-02")
        let rows = try await host.call("transactions-list")["transactions"]?.arrayValue ?? []
        #expect(rows.map { $0["id"]?.stringValue } == ["fio-10000000004", "fio-10000000003", "fio-10000000002"])
        #expect(rows.map { $0["amount"]?.stringValue } == ["0.10", "1500.50", "130.00"])
        #expect(rows.map { $0["kind"]?.stringValue } == ["expense", "income", "expense"])
        #expect(rows.map { $0["name"]?.stringValue } == ["Fee", "Salary", "Albert"])  // the message before the counterparty
        // Half a minute later a new movement has arrived: only it is added, from the last import's day.
        fio.advance(seconds: 31)
        try await host.advanceClock(by: 31)
        fio.addMovements(token: Self.token, [.init(id: 10_000_000_005, date: "2026-03-02", amount: -12.34, counterparty: "Bakery")])
        let second = try await host.call("fio-import")
        #expect(second["imported"] == 1 && second["alreadyThere"] == 0 && second["from"] == "2026-03-02")
        fio.advance(seconds: 31)
        try await host.advanceClock(by: 31)
        let again = try await host.call("fio-import")
        #expect(again["imported"] == 0 && again["alreadyThere"] == 1)
        #expect(try await host.query("SELECT COUNT(*) AS n FROM transactions").first?["n"].integer == 4)
        #expect(fio.requests.first == "/v1/rest/periods/TOKEN/2025-12-03/2026-03-02/transactions.json")
        await host.stop()
        await fio.stop()
    }

    @Test func theTokenIsASecretNeverInTheDatabase() async throws {
        let (host, fio) = try await setUp()
        _ = try await host.call("fio-token-set", ["token": .string(Self.token)])
        _ = try await host.call("fio-import")
        #expect(try host.secretNames() == ["fio-token"])
        let status = try await host.call("fio-status")
        #expect(status["hasToken"] == true && status["lastImport"] == "2026-03-02" && status["tokenSetOn"] == "2026-03-02")
        for file in [host.databasePath, host.databasePath + "-wal"] where FileManager.default.fileExists(atPath: file) {
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)).range(of: Data(Self.token.utf8)) == nil, "\(file)")
        }
        _ = try await host.call("fio-token-clear")
        let error = await #expect(throws: PluginError.self) { _ = try await host.call("fio-import") }
        #expect(error?.reason == "no_token")
        let bad = await #expect(throws: PluginError.self) { _ = try await host.call("fio-token-set", ["token": "short but twenty chars!"]) }
        #expect(bad?.field == "$.token")
        await host.stop()
        await fio.stop()
    }

    @Test func refusalsAndFaultsWriteNothingAndSayWhy() async throws {
        let (host, fio) = try await setUp()
        _ = try await host.call("fio-token-set", ["token": .string(Self.token)])
        _ = try await host.call("fio-import")
        let before = try await host.query("SELECT COUNT(*) AS n FROM transactions").first?["n"].integer
        fio.addMovements(token: Self.token, [.init(id: 10_000_000_009, date: "2026-03-02", amount: -1, counterparty: "Later")])
        // Another program used the token just now: Fio's own 409 (the module's window has passed).
        try await host.advanceClock(by: 31)  // the emulator's clock stays: to Fio, the last request was just now
        let tooSoon = await #expect(throws: PluginError.self) { _ = try await host.call("fio-import") }
        #expect(tooSoon?.reason == "rate_limited" && tooSoon?.code == .conflict)
        #expect(tooSoon?.message.contains("try again in 30 s, after 2026-03-02T08:01:01Z") == true)  // the host's clock + 30 s
        for (fault, code) in [(FioEmulator.Fault.status(500), "bank_unavailable"), (.malformed, "bank_malformed")] {
            fio.advance(seconds: 31)
            try await host.advanceClock(by: 31)
            fio.inject(fault)
            let error = await #expect(throws: PluginError.self) { _ = try await host.call("fio-import") }
            #expect(error?.reason?.rawValue == code, "\(fault)")
        }
        #expect(try await host.query("SELECT COUNT(*) AS n FROM transactions").first?["n"].integer == before)
        #expect(try await host.call("fio-status")["lastImport"] == "2026-03-02")
        await host.stop()
        await fio.stop()
    }

    @Test func anAccountInAnotherCurrencyIsRefusedOrSwitchedToWithoutASecondRequest() async throws {
        let (host, fio) = try await setUp()
        fio.addAccount(token: Self.token, currency: "CZK", movements: [.init(id: 1, date: "2026-03-01", amount: -10, counterparty: "Lidl")])
        _ = try await host.call("fio-token-set", ["token": .string(Self.token)])
        let lunch = try await host.call("transaction-add", ["kind": "expense", "name": "Cash lunch", "amount": "9", "category": "food"])
        _ = try await host.call("transaction-split", ["id": lunch["id"] ?? .null, "parts": [["category": "food", "amount": "5"], ["category": "health", "amount": "4"]]])
        let error = await #expect(throws: PluginError.self) { _ = try await host.call("fio-import") }
        #expect(error?.code == .conflict && error?.reason == "currency_mismatch")
        #expect(try await host.query("SELECT COUNT(*) AS n FROM transactions").first?["n"].integer == 1)
        // Resolved at once (within Fio's 30 s): the statement fetched above is used, no new request.
        let requestsBefore = fio.requests.count
        let switched = try await host.call("fio-import", ["resolveMismatch": "switchCurrencyAndWipe"])
        #expect(switched["imported"] == 1)
        #expect(fio.requests.count == requestsBefore)
        #expect(try await host.call("settings-get")["currency"] == "CZK")
        #expect(try await host.call("transactions-list")["transactions"]?.arrayValue?.map { $0["name"] } == ["Lidl"])
        // The wiped transaction's parts went with it (before, they stayed and counted in CZK).
        #expect(try await host.query("SELECT COUNT(*) AS n FROM splits").first?["n"].integer == 0)
        await host.stop()
        await fio.stop()
    }

    @Test func rulesCategoriseImportedTransactionsByCounterparty() async throws {
        let (host, fio) = try await setUp()
        _ = try await host.call("fio-token-set", ["token": .string(Self.token)])
        _ = try await host.call("category-rule-add", ["match": "albert", "category": "food"])
        _ = try await host.call("category-rule-add", ["match": "SALARY", "category": "salary"])
        let unknown = await #expect(throws: PluginError.self) { _ = try await host.call("category-rule-add", ["match": "x", "category": "yachts"]) }
        #expect(unknown?.field == "$.category")
        _ = try await host.call("fio-import")
        let rows = try await host.query("SELECT name, category FROM transactions ORDER BY name")
        #expect(rows.map { "\($0["name"].text ?? ""):\($0["category"].text ?? "")" } == ["Albert:food", "Fee:other", "Salary:salary"])
        await host.stop()
        await fio.stop()
    }
}
