import Foundation
import Testing
import TesseraHTTP
import TesseraSDK
import TesseraSQLite
import TesseraManifest
@testable import TesseraRuntime
import TesseraSync
import TesseraSyncClient
import TesseraHubFixtures
import TesseraTestFixtures
import TesseraTesting

/// A plugin's synced tables, wired by the host: record writes stamped in their own transaction,
/// carried between two devices through a real hub by DeviceSync.
@Suite("Host-wired sync of a plugin's tables", .hangWatchdog)
struct HostSyncTests {
    static let shared = "6f1c1a52-8d3e-4b7a-9c0d-2e5f7a9b1c3d"

    /// A manifest for ``DiaryPlugin`` with `sync` as given.
    static func manifest(sync: String = #""sync": {"tables": {"entries": {"keepConflicts": ["note"]}}},"#) -> String {
        let dir = Fixtures.temporaryDirectory("sync-manifest")
        let object = #"{"type": "object"}"#
        Fixtures.write("""
        {
          "id": "test.diary", "name": "Diary", "version": "1.0.0",
          "sdk": {"abi": "1.10", "toolchain": "6.3.1"}, "library": {"name": "Diary"},
          "requires": [{"capability": "storage", "version": "^1.0"}, {"capability": "sync", "version": "^1.0"}],
          "permissions": {},
          \(sync)
          "operations": [
            {"name": "add", "input": \(object), "output": \(object)},
            {"name": "scribble", "input": \(object), "output": \(object)},
            {"name": "conflicts", "input": \(object), "output": {"type": "array"}},
            {"name": "resolve", "input": \(object), "output": \(object)}
          ]
        }
        """, to: dir + "/diary.json")
        return dir + "/diary.json"
    }

    /// Two hosts running the diary, both logged in to the hub at `url` as ada.
    static func adasPhoneAndLaptop(hub url: String) async throws -> (PluginTestHost, PluginTestHost) {
        let phone = try await PluginTestHost(manifest: Self.manifest(), plugin: { DiaryPlugin() }, syncHub: url)
        let laptop = try await PluginTestHost(manifest: Self.manifest(), plugin: { DiaryPlugin() }, syncHub: url)
        try await phone.host.syncLogin(name: "ada", password: "correct horse battery", device: "phone")
        try await laptop.host.syncLogin(name: "ada", password: "correct horse battery", device: "laptop")
        return (phone, laptop)
    }

    @Test("writes to a synced table are stamped; other tables are not; a batch's space is kept")
    func stamping() async throws {
        let host = try await PluginTestHost(manifest: Self.manifest(), plugin: { DiaryPlugin() })
        _ = try await host.call("add", ["id": "e1", "note": "slept well"])
        _ = try await host.call("add", ["id": "e2", "note": "shared", "space": .string(Self.shared)])
        _ = try await host.call("scribble", ["id": "x1"])
        let store = try #require(host.host.hub.syncStore(of: "test.diary"))
        #expect(try store.spaces().sorted() == [Self.shared, "personal"].sorted())
        #expect(try store.changes(in: "personal").map(\.row).allSatisfy { $0 == "e1" })
        #expect(try store.changes(in: Self.shared).map(\.row).allSatisfy { $0 == "e2" })
        let scribbles = try await host.query("SELECT COUNT(*) AS n FROM _tessera_sync_messages WHERE tbl = 'scribbles'")
        #expect(scribbles.first?["n"].integer == 0)
        await host.stop()
    }

    @Test("a table that cannot be synced stops the plugin with the rule")
    func unsyncableTable() async throws {
        let error = await #expect(throws: PluginTestHostError.self) {
            _ = try await PluginTestHost(manifest: Self.manifest(sync: #""sync": {"tables": {"tags": {}}},"#), plugin: { DiaryPlugin() })
        }
        #expect(error?.reason?.contains("tags") == true)
        #expect(error?.reason?.lowercased().contains("unique") == true)
    }

    @Test("two devices' plugins converge through the hub")
    func twoDevices() async throws {
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("ada")
            let phone = try await PluginTestHost(manifest: Self.manifest(), plugin: { DiaryPlugin() })
            let laptop = try await PluginTestHost(manifest: Self.manifest(), plugin: { DiaryPlugin() })
            func sync(_ device: PluginTestHost, _ name: String, token: String) throws -> DeviceSync {
                DeviceSync(hub: hub.connection(token), plugin: "test.diary",
                           store: try #require(device.host.hub.syncStore(of: "test.diary")),
                           state: try SyncPeerState(path: device.directory + "/sync-peers.sqlite"))
            }
            let phoneSync = try sync(phone, "phone", token: try await hub.login("ada", device: "phone"))
            let laptopSync = try sync(laptop, "laptop", token: try await hub.login("ada", device: "laptop"))
            _ = try await phone.call("add", ["id": "e1", "note": "first tooth"])
            _ = try await laptop.call("add", ["id": "e2", "note": "slept 6 hours"])
            _ = try await phoneSync.round()
            let laptopRound = try await laptopSync.round()
            #expect(laptopRound.changedRows.contains { $0.row == "e1" })
            _ = try await phoneSync.round()
            let onPhone = try await phone.query("SELECT id, note FROM entries ORDER BY id")
            let onLaptop = try await laptop.query("SELECT id, note FROM entries ORDER BY id")
            #expect(onPhone.map { $0["note"].text } == ["first tooth", "slept 6 hours"])
            #expect(onLaptop.map { $0["note"].text } == onPhone.map { $0["note"].text })
            await phone.stop()
            await laptop.stop()
        }
    }
    @Test("rounds run on the host's clock: soon after a local change, and periodically; the plugin is told what changed")
    func scheduledRounds() async throws {
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("ada")
            let url = "http://127.0.0.1:\(hub.port)"
            let (phone, laptop) = try await Self.adasPhoneAndLaptop(hub: url)
            #expect(phone.host.isLoggedInToHub)
            #expect(try phone.secretNames().isEmpty)  // the token is the host's secret, not the plugin's
            try await phone.advanceClock(by: 1)  // the first rounds, with nothing to send
            try await laptop.advanceClock(by: 1)
            _ = try await phone.call("add", ["id": "e1", "note": "first tooth"])
            try await phone.advanceClock(by: 3)  // a round soon after the change pushes it
            #expect(phone.host.lastSyncRounds()["test.diary"]?.report?.pushed == 2)
            try await laptop.advanceClock(by: 60)  // not yet: the laptop's next periodic round is at 15 min
            #expect(try await laptop.query("SELECT id FROM entries").isEmpty)
            try await laptop.advanceClock(by: 900)
            #expect(try await laptop.query("SELECT note FROM entries").map { $0["note"].text } == ["first tooth"])
            #expect(try await laptop.query("SELECT rows FROM told").map { $0["rows"].text } == ["entries/e1"])
            // The API shows each syncing plugin's hub and last round.
            let tokens = TokenStore(dataDirectory: laptop.directory + "/data")
            let admin = try #require(try tokens.ensureAdminToken())
            let api = HTTPServer(host: laptop.host, tokens: tokens, configuration: HTTPConfiguration(host: "127.0.0.1", port: 0, rateLimit: nil))
            let port = try await api.start()
            api.markReady()
            let listed = try await HubClient(port: port).request("GET", "/v1/plugins", token: admin)
            let sync = listed.json?["plugins"]?.arrayValue?.first { $0["id"] == "test.diary" }?["sync"]
            #expect(sync?["hub"]?.stringValue == url)
            #expect(sync?["lastRound"]?["pulled"]?.integerValue == 2)
            #expect(sync?["lastRound"]?["error"] == nil)
            await api.stop()
            await phone.stop()
            await laptop.stop()
        }
    }

    @Test("a viewer's write is taken back and the plugin told why; a removed member's device drops the space and is told")
    func refusedAndDropped() async throws {
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("ada")
            try await hub.addPerson("bob")
            let url = "http://127.0.0.1:\(hub.port)"
            let bob = try await PluginTestHost(manifest: Self.manifest(), plugin: { DiaryPlugin() }, syncHub: url)
            let ada = try await PluginTestHost(manifest: Self.manifest(), plugin: { DiaryPlugin() }, syncHub: url)
            try await bob.host.syncLogin(name: "bob", password: "correct horse battery", device: "bob's phone")
            try await ada.host.syncLogin(name: "ada", password: "correct horse battery", device: "ada's phone")
            _ = try await bob.call("add", ["id": "e1", "note": "first tooth", "space": .string(Self.shared)])
            try await bob.advanceClock(by: 3)  // registers the space: Bob owns it
            let bobToken = try await hub.login("bob", device: "bob's laptop"), adaToken = try await hub.login("ada", device: "ada's laptop")
            try await hub.share(Self.shared, owner: bobToken, with: adaToken, role: "viewer")
            try await ada.advanceClock(by: 900)
            #expect(try await ada.query("SELECT note FROM entries").map { $0["note"].text } == ["first tooth"])

            _ = try await ada.call("add", ["id": "e1", "note": "the viewer's edit", "space": .string(Self.shared)])
            try await ada.advanceClock(by: 3)
            #expect(try await ada.query("SELECT note FROM entries").map { $0["note"].text } == ["first tooth"])
            let told = try await ada.query("SELECT rows, refused FROM told ORDER BY CAST(id AS INTEGER) DESC LIMIT 1").first
            #expect(told?["refused"].text == "entries/e1/note:read_only")
            #expect(told?["rows"].text == "entries/e1")

            let me = try await hub.request("GET", "/v1/hub/me", token: adaToken)
            let adaID = try #require(me.json?["person"]?.stringValue)
            #expect(try await hub.request("DELETE", "/v1/hub/spaces/\(Self.shared)/members/\(adaID)", token: bobToken).status == 204)
            try await ada.advanceClock(by: 900)
            #expect(try await ada.query("SELECT id FROM entries").isEmpty)
            let dropped = try await ada.query("SELECT rows, dropped FROM told ORDER BY CAST(id AS INTEGER) DESC LIMIT 1").first
            #expect(dropped?["dropped"].text == Self.shared && dropped?["rows"].text == "entries/e1-")
            await ada.stop()
            await bob.stop()
        }
    }

    @Test("a note edited on two devices offline is kept as a conflict both list; resolving it on one clears it on both")
    func conflictsListedAndResolved() async throws {
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("ada")
            let url = "http://127.0.0.1:\(hub.port)"
            let (phone, laptop) = try await Self.adasPhoneAndLaptop(hub: url)
            _ = try await phone.call("add", ["id": "e1", "note": "slept well"])
            _ = try await phone.host.syncNow("test.diary")
            _ = try await laptop.host.syncNow("test.diary")
            // Both edit offline, then sync in turn.
            _ = try await phone.call("add", ["id": "e1", "note": "slept 8 hours"])
            try await laptop.advanceClock(by: 1)
            _ = try await laptop.call("add", ["id": "e1", "note": "woke twice"])
            for device in [phone, laptop, phone] { _ = try await device.host.syncNow("test.diary") }
            let listed = try await phone.call("conflicts")
            #expect(listed == ["entries/e1.note: woke twice vs slept 8 hours"])
            #expect(try await laptop.call("conflicts") == listed)
            _ = try await laptop.call("resolve", ["id": "e1", "note": "slept 8 hours, woke twice"])
            await #expect(throws: PluginError.self) { _ = try await laptop.call("resolve", ["id": "e1", "note": "again"]) }
            for device in [laptop, phone] { _ = try await device.host.syncNow("test.diary") }
            #expect(try await phone.call("conflicts") == [])
            #expect(try await phone.query("SELECT note FROM entries").first?["note"].text == "slept 8 hours, woke twice")
            await phone.stop()
            await laptop.stop()
        }
    }

    @Test("a serving device waits at the hub: another device's change brings its round forward to seconds")
    func roundsComeForwardWhenTheHubHasChanges() async throws {
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("ada")
            let (phone, laptop) = try await Self.adasPhoneAndLaptop(hub: "http://127.0.0.1:\(hub.port)")
            try await phone.advanceClock(by: 1)  // the first rounds; the next periodic ones are 15 min away
            try await laptop.advanceClock(by: 1)
            let periodic = try #require(laptop.host.nextSyncRound(of: "test.diary"))
            let watch = laptop.host.startHubWatch()
            defer { watch.forEach { $0.cancel() } }
            _ = try await phone.call("add", ["id": "e1", "note": "first tooth"])
            _ = try await phone.host.syncNow("test.diary")
            // The laptop's wait at the hub answers; its round moves to now on its clock.
            var due = periodic
            for _ in 0..<500 where due >= periodic {
                due = laptop.host.nextSyncRound(of: "test.diary") ?? periodic
                if due >= periodic { try await Task.sleep(for: .milliseconds(20)) }  // the watch runs on its own task
            }
            #expect(due <= laptop.host.clock.now())
            try await laptop.advanceClock(by: 1)
            #expect(try await laptop.query("SELECT note FROM entries").map { $0["note"].text } == ["first tooth"])
            await phone.stop()
            await laptop.stop()
        }
    }

    @Test("a plugin that failed to start is told at its next start what sync changed meanwhile, once")
    func toldWhenActiveAgain() async throws {
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("ada")
            let url = "http://127.0.0.1:\(hub.port)"
            let phone = try await PluginTestHost(manifest: Self.manifest(), plugin: { DiaryPlugin() }, syncHub: url)
            try await phone.host.syncLogin(name: "ada", password: "correct horse battery", device: "phone")
            // The laptop's diary fails to start (its start throws); its tables still sync.
            let laptop = try LaptopWithFlakyDiary(hub: url, manifest: Self.manifest())
            let failing = try await laptop.start(failing: true)
            #expect(failing.status(of: "test.diary")?.state == .failed)
            try await failing.syncLogin(name: "ada", password: "correct horse battery", device: "laptop")
            _ = try await phone.call("add", ["id": "e1", "note": "first tooth"])
            _ = try await phone.host.syncNow("test.diary")
            let round = try await failing.syncNow("test.diary")
            #expect(round.changedRows.map(\.row) == ["e1"])
            _ = try await phone.call("add", ["id": "e2", "note": "slept 6 hours"])
            _ = try await phone.host.syncNow("test.diary")
            _ = try await failing.syncNow("test.diary")
            await failing.stop()
            // Started again, it works: the rows both rounds changed are handed to it in one call.
            let working = try await laptop.start(failing: false)
            #expect(working.status(of: "test.diary")?.state == .active)
            await working.stop()
            #expect(try laptop.told() == ["entries/e1,entries/e2"])
            // And only once.
            let again = try await laptop.start(failing: false)
            await again.stop()
            #expect(try laptop.told() == ["entries/e1,entries/e2"])
            await phone.stop()
        }
    }

    @Test("without a login or a hub a round says what is missing")
    func missingLoginOrHub() async throws {
        let noHub = try await PluginTestHost(manifest: Self.manifest(), plugin: { DiaryPlugin() })
        let error = await #expect(throws: PluginError.self) { _ = try await noHub.host.syncNow("test.diary") }
        #expect(error?.message.contains("providers.sync.hub") == true)
        let notLoggedIn = try await PluginTestHost(manifest: Self.manifest(), plugin: { DiaryPlugin() }, syncHub: "http://127.0.0.1:1")
        let login = await #expect(throws: PluginError.self) { _ = try await notLoggedIn.host.syncNow("test.diary") }
        #expect(login?.message.contains("tessera sync login") == true)
        await noHub.stop()
        await notLoggedIn.stop()
    }
}

/// A diary with one synced table (`entries`), one local one (`scribbles`) and one that cannot be
/// synced (`tags`: a UNIQUE column).
final class DiaryPlugin: Plugin {
    struct Entry: Decodable, Sendable { let id: String; let note: String; let space: String? }
    struct Scribble: Decodable, Sendable { let id: String }
    struct Empty: Decodable, Sendable {}
    struct Done: Encodable, Sendable { let ok: Bool }

    var migrations: [StorageMigration] {
        [StorageMigration(version: 1, sql: """
            CREATE TABLE entries (id TEXT PRIMARY KEY, note TEXT NOT NULL DEFAULT '');
            CREATE TABLE scribbles (id TEXT PRIMARY KEY);
            CREATE TABLE tags (id TEXT PRIMARY KEY, name TEXT UNIQUE);
            CREATE TABLE told (id TEXT PRIMARY KEY, rows TEXT NOT NULL, refused TEXT NOT NULL DEFAULT '', dropped TEXT NOT NULL DEFAULT '');
            """)]
    }

    func start(context: PluginContext) async throws {
        let storage = try context.capability(.storage)
        context.onOperation("add", input: Entry.self) { input, _ in
            try await storage.write { batch in
                if let space = input.space { batch.inSpace(space) }
                batch.put("entries", id: input.id, ["note": .text(input.note)])
            }
            return Done(ok: true)
        }
        // What sync changed, kept in a local table the test reads.
        context.onRemoteChanges { changes in
            let rows = changes.rows.map { "\($0.table)/\($0.id)\($0.deleted ? "-" : "")" }.joined(separator: ",")
            let count = try await storage.query("SELECT COUNT(*) AS n FROM told").first?["n"].integer ?? 0
            let refused = changes.refused.map { "\($0.table)/\($0.id)/\($0.column):\($0.reason)" }.joined(separator: ",")
            try await storage.write {
                $0.put("told", id: "\(count + 1)", ["rows": .text(rows), "refused": .text(refused),
                                                    "dropped": .text(changes.droppedSpaces.joined(separator: ","))])
            }
        }
        if context.isGranted(.sync) {
            let sync = try context.capability(.sync)
            context.onOperation("conflicts", input: Empty.self) { _, _ in
                try await sync.conflicts().map { "\($0.table)/\($0.id).\($0.column): \($0.current.text ?? "") vs \($0.others.compactMap(\.text).joined(separator: "|"))" }
            }
            context.onOperation("resolve", input: Entry.self) { input, _ in
                try await sync.resolveConflict(table: "entries", id: input.id, column: "note", value: .text(input.note))
                return Done(ok: true)
            }
        }
        context.onOperation("scribble", input: Scribble.self) { input, _ in
            try await storage.write { $0.put("scribbles", id: input.id, [:]) }
            return Done(ok: true)
        }
    }
}

/// A device whose diary's start throws while `failing`: started again and again on one data
/// directory, as a restarted host would be.
struct LaptopWithFlakyDiary {
    let directory = Fixtures.temporaryDirectory("flaky-laptop")
    let deploymentFile: String

    init(hub: String, manifest: String) throws {
        try FileManager.default.createDirectory(atPath: directory + "/manifests", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: manifest, toPath: directory + "/manifests/diary.json")
        deploymentFile = directory + "/deployment.json"
        Fixtures.write("""
            {"name": "laptop", "role": "device", "manifestDirectories": ["\(directory)/manifests"],
             "providers": {"storage": {"kind": "sqlite"}, "clock": {"kind": "virtual", "start": "2026-01-01T00:00:00Z"},
                           "sync": {"hub": "\(hub)"}},
             "plugins": [{"id": "test.diary", "grants": {"storage": {}, "sync": {}}}]}
            """, to: deploymentFile)
    }

    /// What the diary was told, one line per call, read from its database (the host stopped).
    func told() throws -> [String] {
        let database = try SQLiteDatabase(path: directory + "/data/plugins/test.diary/storage.sqlite", mode: .readOnly)
        return try database.withConnection { try $0.fetchAll("SELECT rows FROM told ORDER BY CAST(id AS INTEGER)") }.compactMap { $0[0].text }
    }

    func start(failing: Bool) async throws -> PluginHost {
        let host = try PluginHost(deployment: DeploymentReader.read(file: deploymentFile), options: HostOptions(
            dataDirectory: directory + "/data", onlyPlugins: ["test.diary"],
            inProcessPlugins: ["test.diary": PluginFactory { FlakyDiary(failing: failing) }]))
        await host.start()
        return host
    }
}

/// ``DiaryPlugin``, or a start that throws.
final class FlakyDiary: Plugin {
    let failing: Bool
    let diary = DiaryPlugin()
    init(failing: Bool) { self.failing = failing }
    var migrations: [StorageMigration] { diary.migrations }
    func start(context: PluginContext) async throws {
        if failing { throw PluginError(.unavailable, "a start that fails, for the test") }
        try await diary.start(context: context)
    }
}
