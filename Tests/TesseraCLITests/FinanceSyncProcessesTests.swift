import Foundation
import Testing
import TesseraFioEmulator
import TesseraSDK
import TesseraTestFixtures

/// The finance module on two of a person's devices (issue 22), each its own data directory and
/// `tessera` processes loading `libTesseraFinance.so`, through a hub served by `tessera serve`,
/// with Fio's API emulated on loopback (the module's real URL redirected by the deployment). A
/// budget set on one device governs the other's alert; both import the same statement before
/// syncing and end with one row per movement; offline edits on both converge.
@Suite(.serialized, .hangWatchdog) struct FinanceSyncProcessesTests {
    static let token = String(repeating: "a1B2", count: 16)
    static let start = "2026-03-02T08:00:00Z"

    /// A device running the finance module: its workspace, and `tessera` on it.
    struct Device {
        let name: String
        let workspace: FixtureWorkspace

        init(_ name: String, hubPort: String?, fioPort: Int) {
            self.name = name
            workspace = FixtureWorkspace("finance-device-\(name)")
            Fixtures.write(try! String(contentsOfFile: Fixtures.repositoryRoot + "/manifests/finance.json", encoding: .utf8),
                           to: workspace.root + "/finance.json")
            var grants: [String: Any] = [:]
            for capability in ["storage", "clock", "notifications", "http", "secrets", "events"] { grants[capability] = [:] as [String: Any] }
            var providers: [String: Any] = [
                "storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": FinanceSyncProcessesTests.start],
                "http": ["redirects": ["https://fioapi.fio.cz": "http://127.0.0.1:\(fioPort)"]],
            ]
            if let hubPort {
                grants["sync"] = [:] as [String: Any]
                providers["sync"] = ["hub": "http://127.0.0.1:\(hubPort)"]
            }
            workspace.writeDeployment(plugins: [["id": "cz.tessera.finance", "grants": grants]], extra: ["providers": providers])
        }

        /// `tessera ARGUMENTS` on this device; an exit status other than `expecting` is a failure.
        @discardableResult
        func tessera(_ arguments: [String], input: String? = nil, expecting: Int32 = 0) async throws -> ProcessResult {
            let result = try await runDetached(Fixtures.tesseraExecutable,
                                               arguments + ["--deployment", workspace.deploymentFile, "--data", workspace.dataDirectory], input: input)
            if result.status != expecting {
                Issue.record("\(name): tessera \(arguments.joined(separator: " ")) → \(result.status), expected \(expecting): \(result.stderr)")
            }
            return result
        }

        func call(_ operation: String, _ input: String = "{}") async throws -> JSONValue {
            try JSONValue(parsing: await tessera(["call", "cz.tessera.finance", operation, input, "--json"]).stdout)
        }

        func sync() async throws { try await tessera(["sync", "now"]) }

        func notificationTitles() async throws -> [String] {
            let list = try JSONValue(parsing: await tessera(["notifications", "list", "--json"]).stdout)
            return (list["notifications"]?.arrayValue ?? []).compactMap { $0["title"]?.stringValue }
        }
    }

    static func startFio() async throws -> FioEmulator {
        let fio = try await FioEmulator.start(now: try Date(start, strategy: .iso8601))
        fio.addAccount(token: token, movements: [
            .init(id: 10_000_000_002, date: "2026-02-10", amount: -130.0, counterparty: "Albert"),
            .init(id: 10_000_000_003, date: "2026-02-25", amount: 1500.5, counterparty: "Employer", message: "Salary"),
            .init(id: 10_000_000_004, date: "2026-03-01", amount: -0.1, message: "Fee"),
        ])
        return fio
    }

    @Test func twoDevicesShareTheLedgerAndABankImportIsNeverDoubled() async throws {
        let fio = try await Self.startFio()
        let (hub, port) = try await SyncProcessesTests.startHub()
        defer { if hub.isRunning { Task { await hub.terminateAndWait() } } }  // only when an expectation threw
        let phone = Device("phone", hubPort: port, fioPort: fio.port), laptop = Device("laptop", hubPort: port, fioPort: fio.port)
        for device in [phone, laptop] {
            try await device.tessera(["sync", "login", "ada", "--device", device.name], input: "correct horse battery\n")
        }

        // A budget set on the phone governs the laptop: its expense passes it, and the laptop says so.
        _ = try await phone.call("budget-set", #"{"amount": "100", "repeatMonthly": true}"#)
        try await phone.sync()
        try await laptop.sync()
        #expect(try await laptop.call("budget-status")["amount"] == "100.00")
        _ = try await laptop.call("transaction-add", #"{"kind": "expense", "name": "Shoes", "amount": "120", "category": "shopping"}"#)
        try await laptop.tessera(["clock", "advance", "1m"])
        #expect(try await laptop.notificationTitles() == ["Budget exceeded"])

        // Both import the same statement before either has synced the other's import.
        for device in [phone, laptop] { _ = try await device.call("fio-token-set", #"{"token": "\#(Self.token)"}"#) }
        #expect(try await phone.call("fio-import")["imported"] == 3)
        fio.advance(seconds: 31)
        #expect(try await laptop.call("fio-import")["imported"] == 3)

        // Offline edits on both: a new expense on the phone, a category on the laptop.
        _ = try await phone.call("transaction-add", #"{"kind": "expense", "name": "Bus", "amount": "2", "category": "transport"}"#)
        _ = try await laptop.call("transaction-update", #"{"id": "fio-10000000002", "category": "food"}"#)
        for device in [phone, laptop, phone] { try await device.sync() }

        let (onPhone, onLaptop) = (try await phone.call("transactions-list"), try await laptop.call("transactions-list"))
        #expect(onPhone == onLaptop)
        let rows = onPhone["transactions"]?.arrayValue ?? []
        #expect(rows.count == 5)  // Shoes, Bus and the three movements, once each
        #expect(rows.filter { $0["id"]?.stringValue?.hasPrefix("fio-") == true }.count == 3)
        #expect(rows.first { $0["id"] == "fio-10000000002" }?["category"] == "food")
        #expect(try await phone.call("budget-status") == (try await laptop.call("budget-status")))
        // The phone learnt of the laptop's overspending through sync; the month's alert was the laptop's, once.
        #expect(try await phone.call("budget-status")["overspent"] == true)
        try await phone.tessera(["clock", "advance", "1m"])
        #expect(try await phone.notificationTitles().filter { $0 == "Budget exceeded" }.isEmpty)
        await hub.terminateAndWait()
        await fio.stop()
    }

    /// Issue 38: the phone (offline) changes a transaction's amount, the laptop (not yet synced)
    /// its name, each through `transaction-update`; after both have synced, in the order A, B, A,
    /// B, both devices have both edits. And a device pushes each change once: the rounds after
    /// the first send back nothing they pulled, and `tessera sync status` says what waits.
    @Test func anOfflineEditOfOneFieldSurvivesAnotherDevicesEditOfAnother() async throws {
        let (hub, port) = try await SyncProcessesTests.startHub()
        defer { if hub.isRunning { Task { await hub.terminateAndWait() } } }  // only when an expectation threw
        let phone = Device("phone", hubPort: port, fioPort: 9), laptop = Device("laptop", hubPort: port, fioPort: 9)
        for device in [phone, laptop] {
            try await device.tessera(["sync", "login", "ada", "--device", device.name], input: "correct horse battery\n")
        }
        let added = try await phone.call("transaction-add", #"{"kind": "expense", "name": "Bread", "amount": "3.00", "category": "food"}"#)
        let id = try #require(added["id"]?.stringValue)
        try await phone.sync()
        try await laptop.sync()

        _ = try await phone.call("transaction-update", #"{"id": "\#(id)", "amount": "4.00"}"#)
        _ = try await laptop.call("transaction-update", #"{"id": "\#(id)", "name": "Rye bread"}"#)
        let waiting = try await phone.tessera(["sync", "status"]).stdout
        #expect(waiting.contains("waiting to be pushed: "), "\(waiting)")
        var rounds: [String] = []
        for device in [phone, laptop, phone, laptop] { rounds.append(try await device.tessera(["sync", "now"]).stdout) }
        for device in [phone, laptop] {
            let row = try await device.call("transactions-list")["transactions"]?.arrayValue?.first { $0["id"]?.stringValue == id }
            #expect(row?["amount"] == "4.00", "\(device.name): the phone's amount")
            #expect(row?["name"] == "Rye bread", "\(device.name): the laptop's name")
        }
        // The third and fourth rounds had nothing of their own to send: what they pulled stays here.
        for round in rounds.suffix(2) { #expect(round.contains("pushed 0 (0 already there)"), "\(round)") }
        let settled = try await phone.tessera(["sync", "status"]).stdout
        #expect(settled.contains("nothing waiting to be pushed"), "\(settled)")
        await hub.terminateAndWait()
    }

    @Test func aCurrencyMismatchIsSettledByALaterProcessWithoutAskingTheBankAgain() async throws {
        let fio = try await Self.startFio()
        fio.addAccount(token: Self.token, currency: "CZK", movements: [.init(id: 1, date: "2026-03-01", amount: -10, counterparty: "Lidl")])
        let device = Device("alone", hubPort: nil, fioPort: fio.port)
        _ = try await device.call("fio-token-set", #"{"token": "\#(Self.token)"}"#)
        _ = try await device.call("transaction-add", #"{"kind": "expense", "name": "Cash lunch", "amount": "9", "category": "food"}"#)
        let refused = try await device.tessera(["call", "cz.tessera.finance", "fio-import"], expecting: 1)
        #expect(refused.stderr.contains("currency_mismatch"))
        let tooSoon = try await device.tessera(["call", "cz.tessera.finance", "fio-import"], expecting: 1)  // not 5, "plugin not active"
        #expect(tooSoon.stderr.contains("rate_limited") && tooSoon.stderr.contains("try again in 30 s"))
        let requests = fio.requests.count
        let switched = try await device.call("fio-import", #"{"resolveMismatch": "switchCurrencyAndWipe"}"#)
        #expect(switched["imported"] == 1)
        #expect(fio.requests.count == requests)
        #expect(try await device.call("settings-get")["currency"] == "CZK")
        let unconfirmed = try await device.tessera(["call", "cz.tessera.finance", "settings-set", #"{"currency": "EUR"}"#], expecting: 2)
        #expect(unconfirmed.stderr.contains("invalid_input (confirmation_required): "))
        await fio.stop()
    }
}
