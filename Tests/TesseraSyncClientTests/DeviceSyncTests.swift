import TesseraHubFixtures
import TesseraTestFixtures
import Foundation
import Testing
import TesseraHub
import TesseraSDK
import TesseraSync
import TesseraSyncClient

/// The device side of the protocol (TesseraSyncClient) against a real hub on loopback.
@Suite("Device sync rounds through the hub", .hangWatchdog)
struct DeviceSyncTests {
    static let shared = "6f1c1a52-8d3e-4b7a-9c0d-2e5f7a9b1c3d"

    func device(_ replica: DeviceReplica, hub: HubTestServer, state: String) throws -> DeviceSync {
        DeviceSync(hub: hub.connection(replica.token),
                   plugin: DeviceReplica.plugin, store: replica.store, state: try SyncPeerState(path: hub.root + "/" + state))
    }

    /// ada at the hub, and her phone and laptop, each a replica with its sync client.
    func adasPhoneAndLaptop(_ hub: HubTestServer) async throws -> (DeviceReplica, DeviceReplica, DeviceSync, DeviceSync) {
        try await hub.addPerson("ada")
        let phone = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "phone"), node: 0xA1, clock: hub.clock.now)
        let laptop = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "laptop"), node: 0xB2, clock: hub.clock.now)
        return (phone, laptop, try device(phone, hub: hub, state: "phone-peers.sqlite"), try device(laptop, hub: hub, state: "laptop-peers.sqlite"))
    }

    @Test("two devices converge in rounds; a round with nothing new moves nothing", arguments: HubBackend.available)
    func roundsConverge(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            let (phone, laptop, phoneSync, laptopSync) = try await adasPhoneAndLaptop(hub)
            try phone.put("n1", title: "from the phone", in: "personal")
            try phone.put("s1", title: "shared", in: Self.shared)
            hub.clock.advance(1)
            try laptop.put("n1", title: "the laptop's later edit", stars: 2, in: "personal")
            let first = try await phoneSync.round()
            #expect(first.pushed == 8 && first.rejected.isEmpty)  // a new row is 4 changes: its existence, title, body, stars
            let second = try await laptopSync.round()
            #expect(second.pushed == 4 && second.pulled >= 8)  // the laptop had not seen n1: its put is a new row too
            let third = try await phoneSync.round()
            #expect(try phone.notes() == laptop.notes())
            #expect(try phone.notes().first { $0[0] == .text("n1") }?[1] == .text("the laptop's later edit"))
            #expect(third.changedRows.contains { $0.row == "n1" })
            // Nothing new: the check says in sync, and nothing is sent or applied.
            let idle = try await phoneSync.round()
            #expect(idle.inSyncAtStart == ["6f1c1a52-8d3e-4b7a-9c0d-2e5f7a9b1c3d", "personal"])
            #expect(idle.pushed == 0 && idle.pulled == 0)
        }
    }

    /// Issue 38: rounds used to send back everything pulled since the device's last push ("pushed
    /// 83 (83 already there)"). The hub lacks only what this device made.
    @Test("a device pushes only its own changes, each once", arguments: HubBackend.available)
    func ownChangesOnce(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            let (phone, laptop, phoneSync, laptopSync) = try await adasPhoneAndLaptop(hub)
            try phone.put("n1", title: "the phone's", in: "personal")
            #expect(try await phoneSync.round().pushed == 4)
            hub.clock.advance(1)
            try laptop.put("n2", title: "the laptop's", in: "personal")
            let fromLaptop = try await laptopSync.round()
            #expect(fromLaptop.pushed == 4 && fromLaptop.pulled == 8)  // a pull brings back its own changes too: they are new to its cursor
            #expect(try await phoneSync.round().pulled == 4)
            // The phone changes one cell: that cell is all it sends, though it has pulled the
            // laptop's four changes since its last push.
            hub.clock.advance(1)
            try phone.put("n1", title: "the phone's, edited", in: "personal")
            let edit = try await phoneSync.round()
            #expect(edit.pushed == 1 && edit.duplicates == 0)
            let last = try await laptopSync.round()
            #expect(last.pushed == 0 && last.pulled == 1)
            #expect(try phone.notes() == laptop.notes())
        }
    }

    @Test("the cursor and push marks survive a restart: only new changes move", arguments: HubBackend.available)
    func stateSurvivesRestart(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            let phone = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "phone"), node: 0xA1, clock: hub.clock.now)
            let laptop = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "laptop"), node: 0xB2, clock: hub.clock.now)
            for i in 0..<20 { try phone.put("n\(i)", title: "note \(i)", in: "personal") }
            _ = try await device(phone, hub: hub, state: "phone.sqlite").round()
            _ = try await device(laptop, hub: hub, state: "laptop.sqlite").round()
            hub.clock.advance(1)
            try phone.put("n99", title: "one more", in: "personal")
            // A new DeviceSync on the same state files, as after a restart.
            let pushedAgain = try await device(phone, hub: hub, state: "phone.sqlite").round()
            #expect(pushedAgain.pushed == 4)  // the new row only: existence, title, body, stars
            let pulledAgain = try await device(laptop, hub: hub, state: "laptop.sqlite").round()
            #expect(pulledAgain.pulled == 4)
            #expect(try laptop.notes().count == 21)
        }
    }

    @Test("a backlog is applied several pages to a transaction, and its cursor saved after each", arguments: HubBackend.available)
    func backlogAppliedInBatches(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            let phone = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "phone"), node: 0xA1, clock: hub.clock.now)
            for i in 0..<20 { try phone.put("n\(i)", title: "note \(i)", in: "personal") }
            _ = try await device(phone, hub: hub, state: "phone.sqlite").round()
            // Two devices pull the same 80 changes in pages of 3: one applies each page on its own,
            // the other gathers pages until they hold 10 changes.
            var pagewise = try device(try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "tablet"), node: 0xC3,
                                                        clock: hub.clock.now), hub: hub, state: "tablet.sqlite")
            pagewise.pullPage = 3
            pagewise.applyBatch = 1
            let laptop = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "laptop"), node: 0xB2, clock: hub.clock.now)
            var batched = try device(laptop, hub: hub, state: "laptop.sqlite")
            batched.pullPage = 3
            batched.applyBatch = 10
            let onePerPage = try await pagewise.round()
            let gathered = try await batched.round()
            #expect(onePerPage.pulled == 80 && gathered.pulled == 80)
            // A page of 3 holds one new row's 4 changes (one timestamp, which the hub never
            // splits): 20 pages, and a transaction each. Gathered, a transaction takes pages until
            // they hold 10 changes or more: 12 at a time.
            #expect(onePerPage.pulledBatches == 20)
            #expect(gathered.pulledBatches == 7)
            #expect(try laptop.notes() == phone.notes())
            // The cursor was saved after the last batch: a new round on the same state pulls nothing.
            let again = try await device(laptop, hub: hub, state: "laptop.sqlite").round()
            #expect(again.pulled == 0 && again.pulledBatches == 0)
        }
    }

    @Test("a viewer's writes come back rejected with their reason", arguments: HubBackend.available)
    func viewerRejected(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            try await hub.addPerson("bob")
            let ada = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "phone"), node: 0xA1, clock: hub.clock.now)
            let bob = try DeviceReplica(hub: hub, token: try await hub.login("bob", device: "phone"), node: 0xB2, clock: hub.clock.now)
            try bob.put("child", title: "Emma", in: Self.shared)
            _ = try await device(bob, hub: hub, state: "bob.sqlite").round()  // registers the space, Bob owns it
            try await hub.share(Self.shared, owner: bob.token, with: ada.token, role: "viewer")
            let adaSync = try device(ada, hub: hub, state: "ada.sqlite")
            let joined = try await adaSync.round()  // catches up on the space she joined
            #expect(joined.pulled > 0)
            #expect(try ada.notes().first?[1] == .text("Emma"))
            hub.clock.advance(1)
            try ada.put("child", title: "Emma (the viewer's edit)", in: Self.shared)
            try ada.put("ghost", title: "a row only the viewer made", in: Self.shared)
            let refused = try await adaSync.round()
            #expect(!refused.rejected.isEmpty)
            #expect(refused.rejected.allSatisfy { $0.reason == "read_only" && ["child", "ghost"].contains($0.row) })
            // Taken back: the edited row shows the space's value again, the new row is gone...
            #expect(refused.reverted.map(\.row).sorted() == ["child", "ghost"])
            #expect(try ada.notes().map { $0[1] } == [.text("Emma")])
            // ...and the next round finds the space in sync instead of pushing them again.
            let calm = try await adaSync.round()
            #expect(calm.rejected.isEmpty && calm.pushed == 0 && calm.inSyncAtStart.contains(Self.shared))
        }
    }

    @Test("a member removed from a space, or whose space is deleted, drops its data; the personal space stays", arguments: HubBackend.available)
    func departedSpacesAreDropped(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            try await hub.addPerson("bob")
            let ada = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "phone"), node: 0xA1, clock: hub.clock.now)
            let bob = try DeviceReplica(hub: hub, token: try await hub.login("bob", device: "phone"), node: 0xB2, clock: hub.clock.now)
            try bob.put("child", title: "Emma", in: Self.shared)
            _ = try await device(bob, hub: hub, state: "bob.sqlite").round()
            try await hub.share(Self.shared, owner: bob.token, with: ada.token, role: "editor")
            let adaSync = try device(ada, hub: hub, state: "ada.sqlite")
            try ada.put("own", title: "my own note", in: "personal")
            _ = try await adaSync.round()
            #expect(try ada.notes().count == 2)
            // A space made on Ada's phone and not pushed yet is not a departure: it must stay.
            let offline = "0b8f3c2e-1d4a-4e6b-8c9d-0a1b2c3d4e5f"
            let me = try await hub.request("GET", "/v1/hub/me", token: ada.token)
            let adaID = try #require(me.json?["person"]?.stringValue)
            #expect(try await hub.request("DELETE", "/v1/hub/spaces/\(Self.shared)/members/\(adaID)", token: bob.token).status == 204)
            try ada.put("draft", title: "in a space made offline", in: offline)
            let removed = try await adaSync.round()
            #expect(removed.dropped == [Self.shared])
            #expect(try ada.notes().map { $0[0] } == [.text("draft"), .text("own")])
            #expect(try ada.store.spaces().sorted() == [offline, "personal"].sorted())
            #expect(try await adaSync.round().dropped.isEmpty)  // once
        }
    }

    @Test("an unreachable hub is 'unavailable'; offline edits sync once it is back", arguments: HubBackend.available)
    func unreachableHub(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            let phone = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "phone"), node: 0xA1, clock: hub.clock.now)
            let sync = try device(phone, hub: hub, state: "phone.sqlite")
            let gone = DeviceSync(hub: HubConnection(baseURL: "http://127.0.0.1:1", token: phone.token), plugin: DeviceReplica.plugin,
                                  store: phone.store, state: sync.state)
            try phone.put("n1", title: "written offline", in: "personal")
            let error = await #expect(throws: SyncClientError.self) { _ = try await gone.round() }
            #expect(error?.code == "unavailable")
            #expect(error?.message.contains(phone.token) == false)
            #expect(try sync.state.lastPushed(hub: "http://127.0.0.1:1", plugin: DeviceReplica.plugin, space: "personal") == nil)
            let back = try await sync.round()
            #expect(back.pushed == 4)
        }
    }

    @Test("a forged token is refused with the hub's code", arguments: HubBackend.available)
    func forgedToken(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            let client = hub.connection("tsd_" + String(repeating: "0", count: 64))
            let error = await #expect(throws: SyncClientError.self) { _ = try await client.spaces() }
            #expect(error?.status == 401 && error?.code == "unauthorized")
            let login = await #expect(throws: SyncClientError.self) {
                _ = try await HubConnection.login(baseURL: "http://127.0.0.1:\(hub.port)", name: "nobody", password: "wrong password", device: "x",
                                                   timeout: HubTestServer.clientTimeout)
            }
            #expect(login?.code == "invalid_credentials")
        }
    }
}
