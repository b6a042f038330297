import Foundation
import Testing
import TesseraHub
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraSQLite
import TesseraStorage
import TesseraSync
import TesseraSyncClient
import TesseraTestFixtures

/// A data directory written by release d2dff17, before the host's stores were versioned
/// (`Fixtures/release-d2dff17`, README there), opens with this code: every store records its
/// version in `_tessera_schema`, and every row is still there and usable. Each test works on a copy.
@Suite struct DataDirectoryUpgradeTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Fixtures/release-d2dff17"
    static let hubAddress = "http://127.0.0.1:18431"
    static let stress = "cz.tessera.stress"
    static let user = Principal(id: "test-user", role: .user)

    static func copy() throws -> String {
        let root = Fixtures.temporaryDirectory("upgrade") + "/release-d2dff17"
        try FileManager.default.copyItem(atPath: fixture, toPath: root)
        return root
    }

    /// The version each store in the file is at.
    static func versions(_ path: String) throws -> [String: Int] {
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        var versions: [String: Int] = [:]
        for row in try connection.fetchAll("SELECT store, MAX(version) FROM _tessera_schema GROUP BY store") {
            versions[row[0].text ?? ""] = Int(row[1].integer ?? 0)
        }
        return versions
    }

    @Test func theDeviceDirectoryOpensOnTheShippedDeploymentAndEveryRowIsUsable() async throws {
        let data = try Self.copy() + "/device"
        let deployment = try DeploymentReader.read(file: Fixtures.repositoryRoot + "/manifests/deployments/virtual.json")
        let host = try PluginHost(deployment: deployment, options: HostOptions(dataDirectory: data, libraryPaths: [Fixtures.buildDirectory]))
        await host.start()
        for id in ["dev.tessera.example", "cz.tessera.finance", Self.stress, "cz.tessera.stag"] {
            #expect(host.status(of: id)?.state == .active, "\(id): \(String(describing: host.status(of: id)))")
        }
        // The virtual clock's time (host.sqlite) is where the release left it.
        #expect(host.clock.now() == (try Date("2026-03-02T11:00:00Z", strategy: .iso8601)))
        // Plugins' rows: a note, a transaction, the stress programme's consent.
        #expect(try await host.call("dev.tessera.example", "list-notes", input: [:], as: Self.user).serialized().contains("buy milk"))
        #expect(try await host.call("cz.tessera.finance", "transactions-list", input: [:], as: Self.user).serialized().contains("Groceries"))
        #expect(try await host.call(Self.stress, "account-state", input: [:], as: Self.user).serialized().contains("active"))
        // The inbox (notifications.sqlite) holds the delivered reminder, and the pending timer fires.
        #expect(try host.inbox().map(\.title) == ["stretch"])
        let firings = try await host.advanceClock(by: 2 * 86_400)
        #expect(firings.contains { $0.timer.key == "reminder:e3500722-cce4-4869-85be-d038ac1f7ab6" && $0.outcome == .delivered })
        #expect(try host.inbox().map(\.title) == ["call mum", "stretch"], "newest first")
        // Secrets (secrets.sqlite): the hub's device token and the STAG ticket.
        #expect(host.isLoggedInToHub, "the device's hub token is still kept")
        #expect(try host.secretNames(plugin: "cz.tessera.stag").contains("stag-ticket"))
        await host.stop()

        // The event (events.sqlite) is there, delivered to the stress programme.
        let events = try SQLiteConnection(path: data + "/events.sqlite", mode: .readOnly)
        #expect(try events.fetchAll("SELECT publisher, seq, name FROM events") == [[.text("cz.tessera.stag"), .integer(1), .text("exam-upcoming")]])
        #expect(try events.fetchOne("SELECT delivered FROM cursors WHERE subscriber = ?", [.text(Self.stress)]) == [.integer(1)])
        // Every store recorded version 1 (the tables the release made), and newer steps ran.
        #expect(try Self.versions(data + "/host.sqlite") == ["clock": 1])
        #expect(try Self.versions(data + "/notifications.sqlite") == ["notifications": 3])  // 2 added the relay to a space's members; 3 priority and message
        #expect(try Self.versions(data + "/events.sqlite") == ["events": 1])
        #expect(try Self.versions(data + "/secrets.sqlite") == ["secrets": 1])
        for id in ["dev.tessera.example", "cz.tessera.finance", "cz.tessera.stag"] {
            // and 2 keeps the change log one row per batch
            #expect(try Self.versions(data + "/plugins/\(id)/storage.sqlite") == ["storage": 2], "\(id)")
        }
        // The change log the release wrote (seq 1–4, a row per change) is still read, and what the
        // host logged since (a row per batch) runs on from it.
        let example = try SQLitePluginStorage(pluginID: "dev.tessera.example", path: data + "/plugins/dev.tessera.example/storage.sqlite",
                                              now: { Date() })
        let logged = try example.changes(after: 0, limit: 100)
        #expect(logged.prefix(4).map(\.seq) == [1, 2, 3, 4] && logged.count > 4, "\(logged.map(\.seq))")
        #expect(logged.map(\.seq) == Array(1...Int64(logged.count)))
    }

    @Test func theSyncStateOpensAndKeepsTheReplicaAndItsCursor() throws {
        let data = try Self.copy() + "/device"
        let peers = try SyncPeerState(path: data + "/sync-peers.sqlite")
        #expect(try peers.cursor(hub: Self.hubAddress, plugin: Self.stress) == 14)
        let path = data + "/plugins/\(Self.stress)/storage.sqlite"
        let store = try SyncStore(path: path, tables: [SyncedTable("participant"), SyncedTable("diary")], now: { Date() })
        #expect(store.node.description.uppercased() == "0B74EEBAE1D90851", "the replica keeps its identity")
        #expect(try store.changes(in: "personal", since: nil, limit: 100).count == 14)
        #expect(try Self.versions(path)["sync"] == 2)  // 2: forgotten_until (spaces dropped may come back)
        #expect(try Self.versions(data + "/sync-peers.sqlite") == ["sync-peers": 3])  // 2: spaces created offline; 3: per-plugin roles
    }

    @Test func theHubOpensAtVersion2AndItsPersonDeviceAndSpacesWork() async throws {
        let root = try Self.copy()
        // The fixture was written on 2026-11-25; device tokens last 180 days unused.
        let now: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_764_115_200) }  // 2026-11-26T00:00Z
        let hub = try await HubStore(path: root + "/hub/hub.sqlite", now: now)
        #expect(try Self.versions(root + "/hub/hub.sqlite") == ["hub": 12], "user_version 2 is recorded as version 2, then 3 to 12 run")
        #expect(try await hub.people().map(\.name) == ["ada"])
        let token = try SQLiteConnection(path: root + "/device/secrets.sqlite", mode: .readOnly)
            .fetchOne("SELECT value FROM secrets WHERE plugin = 'tessera.host' AND name = 'hub-device-token'")?.first?.text ?? ""
        let device = try #require(try await hub.device(forToken: token))
        #expect(device.name == "fixture laptop")
        let spaces = try await hub.spaces(of: device.person).spaces
        #expect(Set(spaces.map(\.kind)) == [.personal, .shared])
        #expect(spaces.contains { $0.name == "Ema" && $0.role == .owner })
        #expect(try await hub.pull(plugin: Self.stress, person: device.person, after: 0).changes.count == 14)
        let login = try await hub.login(name: "ada", password: "correct horse battery", deviceName: "new phone")
        #expect(try await hub.device(forToken: login.token)?.person == device.person)
    }
}
