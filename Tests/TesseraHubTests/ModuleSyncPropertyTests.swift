import Foundation
import Testing
import TesseraBaby
import TesseraFinance
@testable import TesseraRuntime
import TesseraSDK
import TesseraSafeTravel
import TesseraSTAG
import TesseraSTAGEmulator
import TesseraStress
import TesseraSync
import TesseraHubFixtures
import TesseraTestFixtures
import TesseraTesting

/// Issue 38's property, for every shipped module whose records two devices edit field by field:
/// a person's two devices, each a host with the module, edit the same record offline through the
/// module's own operations — different fields, or (where the module keeps text conflicts) the same
/// text field — then sync through a real hub on loopback in an order the seed picks. After
/// convergence both devices hold the same record; both edits of different fields are there; of
/// two edits of one text field one wins and the other is kept as a conflict on both devices.
///
/// `TESSERA_SYNC_MODULE_SEEDS` seeds per module (60 by default: 300 in all); `scripts/sync-property.sh`
/// runs more. A failure names the module and seed; `TESSERA_SYNC_MODULE_FIRST_SEED=<seed>
/// TESSERA_SYNC_MODULE_SEEDS=1` replays it. Safe travel's records change by state transitions of
/// one writer each (a trip is its traveller's); what two of her devices edit is a destination of
/// her history: marked a favourite on one, set off to from the other.
@Suite("Every field anyone changed survives, in every module", .hangWatchdog)
struct ModuleSyncPropertyTests {
    static let environment = ProcessInfo.processInfo.environment
    static let seeds = UInt64(environment["TESSERA_SYNC_MODULE_SEEDS"] ?? "") ?? 60
    static let firstSeed = UInt64(environment["TESSERA_SYNC_MODULE_FIRST_SEED"] ?? "") ?? 1

    /// One module's record and two of its fields, as its operations write and read them.
    struct Scenario: Sendable {
        let plugin: String
        let manifest: String
        let make: @Sendable () -> any Plugin
        var config: JSONValue = [:]
        /// Service URLs sent to an emulator on loopback (the STAG scenario's).
        var httpRedirects: [String: String] = [:]
        /// Each device, once, before the first record (a login, the programme started).
        var setUp: @Sendable (PluginTestHost, Bool) async throws -> Void = { _, _ in }
        /// Makes a record on a device; its id.
        let create: @Sendable (PluginTestHost, UInt64) async throws -> String
        /// The two fields: how a device sets each, and how it reads them back. A module with one
        /// editable field names it alone, and every seed has both devices edit it.
        let fields: [Field]
        /// The synced table and column of the text field that keeps conflicts, if the module has one
        /// (the first of `fields` then edits it).
        var keptText: (table: String, column: String)?
    }

    struct Field: Sendable {
        let name: String
        /// Sets the field of the record to (about) the value given; returns the value as it reads back
        /// on that device (a time the module takes from its clock, say).
        let set: @Sendable (PluginTestHost, String, String) async throws -> String
        let get: @Sendable (PluginTestHost, String) async throws -> String?
        /// A value this field accepts, different for every (seed, device).
        let value: @Sendable (UInt64, Int) -> String
    }

    @Test func financeTransactions() async throws { try await Self.run(Self.finance) }
    @Test func babyRecords() async throws { try await Self.run(Self.baby) }
    @Test func stressDiary() async throws { try await Self.run(Self.stress) }
    @Test func safeTravelDestinations() async throws { try await Self.run(Self.safeTravel) }
    @Test func stagNotes() async throws {
        let stag = try await STAGEmulator.start()
        try await Self.run(Self.stagNotes(stag))
        await stag.stop()
    }

    // MARK: The run

    static func run(_ scenario: Scenario) async throws {
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("ada")
            var devices: [PluginTestHost] = []
            for name in ["phone", "laptop"] {
                let host = try await PluginTestHost(manifest: scenario.manifest, plugin: scenario.make, config: scenario.config,
                                                    start: Date(timeIntervalSince1970: 1_772_438_400),
                                                    httpRedirects: scenario.httpRedirects,
                                                    syncHub: "http://127.0.0.1:\(hub.port)")
                try await host.host.syncLogin(name: "ada", password: "correct horse battery", device: name)
                devices.append(host)
            }
            for (i, device) in devices.enumerated() {
                try await scenario.setUp(device, i == 0)
                _ = try await device.host.syncNow(scenario.plugin)
            }
            for seed in firstSeed..<(firstSeed + seeds) {
                try await check(scenario, seed: seed, devices: devices)
            }
            for device in devices { await device.stop() }
        }
    }

    /// One seed: a record made on one device and seen by both, two offline edits, rounds in the
    /// seed's order, then a settling pass; the verdict.
    static func check(_ scenario: Scenario, seed: UInt64, devices: [PluginTestHost]) async throws {
        var random = SplitMix64(seed: seed &* 0x9E37_79B9_7F4A_7C15)
        let maker = Int(random.next() % 2)
        let id = try await scenario.create(devices[maker], seed)
        for i in [maker, 1 - maker] { _ = try await devices[i].host.syncNow(scenario.plugin) }
        let sameField = scenario.fields.count == 1 || (scenario.keptText != nil && random.next() % 3 == 0)
        let edits: [(device: Int, field: Field)] = [(0, scenario.fields[0]), (1, scenario.fields[sameField ? 0 : 1])]
        var written: [Int: String] = [:]
        for edit in (random.next() % 2 == 0 ? edits : edits.reversed()) {
            written[edit.device] = try await edit.field.set(devices[edit.device], id, edit.field.value(seed, edit.device))
        }
        var schedule = (0..<(2 + random.next() % 5)).map { _ in Int(random.next() % 2) }
        schedule += [0, 1, 0]
        for i in schedule { _ = try await devices[i].host.syncNow(scenario.plugin) }

        let context = "\(scenario.plugin), seed \(seed): edits \(sameField ? "of one field" : "of two fields"), rounds \(schedule)"
        let read = { (device: PluginTestHost) in
            var values: [String] = []
            for field in scenario.fields { values.append(try await field.get(device, id) ?? "∅") }
            return values
        }
        let onPhone = try await read(devices[0]), onLaptop = try await read(devices[1])
        #expect(onPhone == onLaptop, "the devices differ: \(context)")
        if sameField, let kept = scenario.keptText {
            let winner = onPhone[0]
            #expect(winner == written[0] || winner == written[1], "\(context)")
            let loser = winner == written[0] ? written[1] : written[0]
            for device in devices {
                let conflicts = try device.host.hub.syncStore(of: scenario.plugin)?.conflicts() ?? []
                let cell = conflicts.first { $0.table == kept.table && $0.row == id && $0.column == kept.column }
                #expect(cell?.others.contains { $0.value == .text(loser ?? "") } == true, "the loser is not kept as a conflict: \(context)")
            }
        } else {
            #expect(onPhone[0] == written[0], "the phone's \(scenario.fields[0].name) was lost: \(context)")
            #expect(onPhone[1] == written[1], "the laptop's \(scenario.fields[1].name) was lost: \(context)")
        }
    }

    // MARK: The modules

    static func manifest(_ name: String) -> String { Fixtures.repositoryRoot + "/manifests/\(name).json" }

    static let finance = Scenario(
        plugin: "cz.tessera.finance", manifest: manifest("finance"), make: { FinancePlugin() },
        create: { host, seed in
            try await host.call("transaction-add", ["kind": "expense", "name": .string("Bread \(seed)"), "amount": "3.00",
                                                    "category": "food"])["id"]?.stringValue ?? ""
        },
        fields: [
            Field(name: "name", set: { host, id, value in _ = try await host.call("transaction-update", ["id": .string(id), "name": .string(value)]); return value },
                  get: { host, id in try await financeRow(host, id)?["name"]?.stringValue },
                  value: { seed, device in "Rye bread \(seed) from device \(device)" }),
            Field(name: "amount", set: { host, id, value in _ = try await host.call("transaction-update", ["id": .string(id), "amount": .string(value)]); return value },
                  get: { host, id in try await financeRow(host, id)?["amount"]?.stringValue },
                  value: { seed, device in "\(seed % 900 + 10).\(device)0" }),
        ],
        keptText: ("transactions", "name"))

    static func financeRow(_ host: PluginTestHost, _ id: String) async throws -> JSONValue? {
        try await host.call("transactions-list", ["limit": 1000])["transactions"]?.arrayValue?.first { $0["id"]?.stringValue == id }
    }

    static let baby = Scenario(
        plugin: "cz.tessera.baby", manifest: manifest("baby"), make: { BabyPlugin() },
        setUp: { host, first in
            if first { _ = try await host.call("child-create", ["name": "Ema", "birthDate": "2026-01-10"]) }
        },
        create: { host, seed in
            let child = try await host.call("children-list")["children"]?.arrayValue?.first?["id"] ?? .null
            return try await host.call("symptom-add", ["childId": child, "name": .string("cough \(seed)"), "at": "2026-03-01T09:00",
                                                       "note": "first noticed"])["id"]?.stringValue ?? ""
        },
        fields: [
            Field(name: "note", set: { host, id, value in _ = try await host.call("record-update", ["id": .string(id), "note": .string(value)]); return value },
                  get: { host, id in try await host.call("record-get", ["id": .string(id)])["note"]?.stringValue },
                  value: { seed, device in "note \(seed) from device \(device)" }),
            Field(name: "name", set: { host, id, value in _ = try await host.call("record-update", ["id": .string(id), "name": .string(value)]); return value },
                  get: { host, id in try await host.call("record-get", ["id": .string(id)])["name"]?.stringValue },
                  value: { seed, device in "symptom \(seed) from device \(device)" }),
        ],
        keptText: ("records", "note"))

    static let stress = Scenario(
        plugin: "cz.tessera.stress", manifest: manifest("stress"), make: { StressPlugin() },
        setUp: { host, first in
            guard first else { return }
            _ = try await host.call("consent-give", ["consentVersion": "1", "accepted": true])
            _ = try await host.call("questionnaire-submit", try JSONValue(parsing: #"{"kind":"entry","answers":[{"questionId":1,"value":1},{"questionId":2,"value":2},{"questionId":3,"value":3},{"questionId":4,"value":0},{"questionId":5,"value":4}]}"#))
            _ = try await host.call("questionnaire-submit", try JSONValue(parsing: #"{"kind":"screen","answers":[{"questionId":1,"optionId":1},{"questionId":2,"optionId":2},{"questionId":3,"optionId":2}]}"#))
        },
        create: { host, seed in
            try await host.call("diary-record", ["level": 2, "questionId": 201, "text": .string("lectures \(seed)")])["id"]?.stringValue ?? ""
        },
        // The diary's one editable field is its text (diary-edit): every seed edits it on both.
        fields: [
            Field(name: "text", set: { host, id, value in _ = try await host.call("diary-edit", ["id": .string(id), "text": .string(value)]); return value },
                  get: { host, id in try await stressEntry(host, id)?["text"]?.stringValue },
                  value: { seed, device in "lectures \(seed), then device \(device)" }),
        ],
        keptText: ("diary", "text"))

    static func stressEntry(_ host: PluginTestHost, _ id: String) async throws -> JSONValue? {
        let days = try await host.call("diary-list")["days"]?.arrayValue ?? []
        return days.flatMap { $0["entries"]?.arrayValue ?? [] }.first { $0["id"]?.stringValue == id }
    }

    static let safeTravel = Scenario(
        plugin: "cz.tessera.safetravel", manifest: manifest("safetravel"), make: { SafeTravelPlugin() },
        config: ["pinIterations": 1000, "requireGuardians": false],
        setUp: { host, _ in _ = try await host.call("account-setup", ["username": "ada", "pin": "4826"]) },
        create: { host, seed in
            _ = try await travel(host, to: ["name": .string("Home \(seed)"), "lat": 50.08, "lon": 14.42])
            return try await destinations(host).first { $0["name"]?.stringValue == "Home \(seed)" }?["id"]?.stringValue ?? ""
        },
        fields: [
            Field(name: "favourite", set: { host, id, _ in
                      _ = try await host.call("destination-favourite", ["destinationId": .string(id)])
                      return try await destination(host, id)?["is_favourite"]?.serialized() ?? "∅"
                  },
                  get: { host, id in try await destination(host, id)?["is_favourite"]?.serialized() },
                  value: { _, _ in "" }),
            Field(name: "last used", set: { host, id, _ in
                      _ = try await travel(host, to: ["id": .string(id)])
                      return try await destination(host, id)?["last_used_at"]?.stringValue ?? "∅"
                  },
                  get: { host, id in try await destination(host, id)?["last_used_at"]?.stringValue },
                  value: { _, _ in "" }),
        ])

    /// A trip to `destination`, started and ended at once (one trip may be active at a time).
    static func travel(_ host: PluginTestHost, to destination: JSONValue) async throws -> JSONValue {
        let trip = try await host.call("trip-start", ["destination": destination])
        _ = try await host.call("trip-end", ["tripId": trip["id"] ?? .null, "pin": "4826"])
        return trip
    }

    static func destinations(_ host: PluginTestHost) async throws -> [JSONValue] {
        try await host.call("destinations")["destinations"]?.arrayValue ?? []
    }

    static func destination(_ host: PluginTestHost, _ id: String) async throws -> JSONValue? {
        try await destinations(host).first { $0["id"]?.stringValue == id }
    }

    static func stagNotes(_ stag: STAGEmulator) -> Scenario {
        Scenario(
            plugin: "cz.tessera.stag", manifest: manifest("stag"), make: { STAGPlugin() },
            httpRedirects: ["https://stag-demo.zcu.cz": stag.origin],
            setUp: { host, _ in _ = try await host.call("login-basic", ["university": "demo", "userName": "KRALM", "password": "heslo123"]) },
            create: { host, seed in
                try await host.call("note-save", ["title": .string("Exam \(seed)"), "text": "bring a calculator"])["id"]?.stringValue ?? ""
            },
            fields: [
                Field(name: "text", set: { host, id, value in _ = try await host.call("note-save", ["id": .string(id), "text": .string(value)]); return value },
                      get: { host, id in try await stagNote(host, id)?["text"]?.stringValue },
                      value: { seed, device in "calculator \(seed), device \(device)" }),
                Field(name: "day", set: { host, id, value in _ = try await host.call("note-save", ["id": .string(id), "day": .string(value)]); return value },
                      get: { host, id in try await stagNote(host, id)?["day"]?.stringValue },
                      value: { seed, device in String(format: "2026-%02d-%02d", Int(seed % 12) + 1, device + 10) }),
            ],
            keptText: ("notes", "body"))
    }

    static func stagNote(_ host: PluginTestHost, _ id: String) async throws -> JSONValue? {
        try await host.call("notes").arrayValue?.first { $0["id"]?.stringValue == id }
    }
}
