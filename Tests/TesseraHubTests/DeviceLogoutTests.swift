import Foundation
import Testing
import TesseraSDK
import TesseraRuntime
import TesseraHubFixtures
import TesseraTestFixtures
import TesseraTesting

/// Logging a device out (specs/baby-diary.md UC4: device storage never holds data of more than one
/// person): a device host with ``SpacesPlugin`` and a real hub.
@Suite("Logging a device out of its hub", .hangWatchdog)
struct DeviceLogoutTests {
    @Test("logout syncs first, then leaves none of the person's synced rows, pending notifications or hub token; the next person gets only theirs")
    func logout() async throws {
        try await HubTestServer.start().use { hub in
            for name in ["ada", "bob"] { try await hub.addPerson(name) }
            let device = try await PluginSpacesTests.device("ada", hub: hub)
            let space = try #require(try await device.call("do", ["action": "create", "name": "Ema"])["id"])
            _ = try await device.call("do", ["action": "write", "space": space, "id": "e1", "note": "ada's, shared"])
            _ = try await device.call("do", ["action": "write", "space": "personal", "id": "p1", "note": "ada's own, written offline"])
            let later = device.now.addingTimeInterval(86_400).timeIntervalSince1970
            _ = try await device.call("do", ["action": "notify", "space": space, "key": "bath", "title": "Bath time", "at": .number(later)])
            #expect(try device.pendingNotifications().count == 1)

            let report = try await device.host.syncLogout()
            #expect(report.rows["test.spaces"] == 2 && report.notifications == 1)
            #expect(try await device.query("SELECT id FROM entries").isEmpty)
            #expect(try await device.query("SELECT COUNT(*) AS n FROM _tessera_sync_messages").first?["n"].integer == 0)
            #expect(try device.pendingNotifications().isEmpty)
            #expect(!device.host.isLoggedInToHub)

            // What ada wrote offline went up before: it is at the hub, and comes back when she logs in again.
            try await device.host.syncLogin(name: "bob", password: "correct horse battery", device: "the family tablet")
            _ = try await device.advanceClock(by: 900)
            #expect(try await device.query("SELECT id FROM entries").isEmpty, "bob sees nothing of ada's")
            _ = try await device.host.syncLogout()
            try await device.host.syncLogin(name: "ada", password: "correct horse battery", device: "the family tablet")
            _ = try await device.advanceClock(by: 900)
            #expect(try await device.query("SELECT id, note FROM entries ORDER BY id").map { $0["id"].text ?? "" } == ["e1", "p1"])
            await device.stop()
        }
    }

    @Test("logout with the hub out of reach is refused, nothing removed; with discardUnsynced it goes ahead")
    func refusedOffline() async throws {
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("ada")
            let device = try await PluginSpacesTests.device("ada", hub: hub)
            _ = try await device.call("do", ["action": "write", "space": "personal", "id": "p1", "note": "not on the hub yet"])
            await hub.server.stop()
            await #expect(throws: PluginError.self) { try await device.host.syncLogout() }
            #expect(try await device.query("SELECT id FROM entries").count == 1)
            #expect(device.host.isLoggedInToHub)
            _ = try await device.host.syncLogout(discardUnsynced: true)
            #expect(try await device.query("SELECT id FROM entries").isEmpty)
            #expect(!device.host.isLoggedInToHub)
            await device.stop()
        }
    }
}
