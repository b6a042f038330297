import Foundation
import Synchronization
import Testing
import TesseraHTTP
import TesseraSDK
@testable import TesseraRuntime
import TesseraSyncClient
import TesseraHubFixtures
import TesseraTestFixtures
import TesseraTesting

/// Notifications addressed to a space's members, relayed through a real hub on loopback to the
/// members' device hosts, on the virtual clock.
@Suite("Notifications to a space's members", .hangWatchdog)
struct SpaceNotificationTests {
    /// ada's and bob's device hosts, and a space of ada's that bob joined (as an editor).
    static func adaAndBob(_ hub: HubTestServer) async throws -> (ada: PluginTestHost, bob: PluginTestHost, space: String) {
        for name in ["ada", "bob"] { try await hub.addPerson(name) }
        let ada = try await PluginSpacesTests.device("ada", hub: hub), bob = try await PluginSpacesTests.device("bob", hub: hub)
        let space = try #require(try await ada.call("do", ["action": "create", "name": "Ema"])["id"]?.stringValue)
        let invitation = try await ada.call("do", ["action": "invite", "space": .string(space), "role": "editor", "person": "bob"])
        _ = try await bob.call("do", ["action": "accept", "invitation": invitation["id"]!])
        return (ada, bob, space)
    }

    /// Schedules a notification from `host` to `space`, due a minute from now on its clock.
    static func notify(_ host: PluginTestHost, key: String, space: String, others: Bool = false) async throws {
        _ = try await host.call("do", ["action": "notify", "key": .string(key), "title": .string("title \(key)"), "note": "body",
                                       "space": .string(space), "person": others ? "others" : .null,
                                       "at": .number(host.now.timeIntervalSince1970 + 60)])
    }

    static func inbox(_ host: PluginTestHost) throws -> [String] {
        try host.deliveredNotifications().map { "\($0.plugin) \($0.key) \($0.recipient) \($0.title)" }
    }

    @Test("a notification to a space reaches each member's inbox and live stream once, however often it is sent or fetched")
    func deliveredToEveryMember() async throws {
        try await HubTestServer.start().use { hub in
            let (ada, bob, space) = try await Self.adaAndBob(hub)
            let streamed = Mutex<[String]>([])
            bob.host.onNotificationDelivered { entry in streamed.withLock { $0.append(entry.key) } }
            let bobsLaptop = hub.connection(try await hub.login("bob", device: "laptop"))

            try await Self.notify(ada, key: "k1", space: space)
            try await ada.advanceClock(by: 60)  // due: queued for the hub and sent
            #expect(try ada.host.hub.notificationRelaySummary() == ["sent": 1])
            #expect(try Self.inbox(ada).isEmpty)  // not delivered locally: it comes back through the hub
            try await bob.advanceClock(by: 900)  // bob's next round fetches it
            let expected = ["test.spaces k1 space:\(space) title k1"]
            #expect(try Self.inbox(bob) == expected)
            #expect(streamed.withLock { $0 } == ["k1"])
            try await ada.advanceClock(by: 900)
            #expect(try Self.inbox(ada) == expected)  // the sender's own person is a member too

            // The sender retries (its answer was lost): the hub files nothing new.
            let adaToken = try await hub.login("ada", device: "ada's laptop")
            let again = try await hub.connection(adaToken).relayNotification(
                key: try #require(try ada.host.notificationRelayKeys().first), notificationKey: "k1", plugin: "test.spaces", space: space,
                excludingSender: false, title: "title k1", body: "body", payload: .null, dueAt: ada.now, late: false)
            #expect(again == false)
            // Bob's phone fetches again from the start (a lost cursor): the hub still holds it for the
            // laptop, and the phone files it no second time.
            #expect(try await bob.host.fetchHubNotifications(from: 0) == 0)
            #expect(try Self.inbox(bob) == expected && streamed.withLock { $0 } == ["k1"])
            // Once bob's laptop has it too, the hub drops bob's copy.
            let fetched = try await bobsLaptop.notifications(after: 0)
            #expect(fetched.notifications.map(\.notificationKey) == ["k1"] && fetched.notifications.first?.sender == "ada")
            _ = try await bobsLaptop.notifications(after: fetched.cursor)
            #expect(try await bobsLaptop.notifications(after: 0).notifications.isEmpty)

            // To the others: ada's own inbox does not get it.
            try await Self.notify(ada, key: "k2", space: space, others: true)
            try await ada.advanceClock(by: 60)
            try await bob.advanceClock(by: 900)
            try await ada.advanceClock(by: 900)
            #expect(try Self.inbox(bob).count == 2 && Self.inbox(bob).last == "test.spaces k2 space:\(space) title k2")
            #expect(try Self.inbox(ada) == expected)
            await ada.stop()
            await bob.stop()
        }
    }

    @Test("a notification's priority and catalogue message reach the other member's inbox through the hub as the sender's plugin gave them")
    func priorityAndMessageRelayed() async throws {
        try await HubTestServer.start().use { hub in
            let (ada, bob, space) = try await Self.adaAndBob(hub)
            let due = ada.now.addingTimeInterval(60)
            _ = try await ada.call("do", ["action": "notify", "key": "sos", "title": "SOS from ada", "note": "ada pressed SOS",
                                          "space": .string(space), "person": "others", "at": .number(due.timeIntervalSince1970),
                                          "priority": "critical", "messageKey": "notify.alert.sos"])
            try await ada.advanceClock(by: 60)
            try await bob.advanceClock(by: 900)
            let entry = try #require(try bob.deliveredNotifications().first)
            #expect(entry.title == "SOS from ada" && entry.body == "ada pressed SOS")
            #expect(entry.priority == .critical)
            let millis = (due.timeIntervalSince1970 * 1000).rounded()
            #expect(entry.message == NotificationMessage("notify.alert.sos", ["at": .instant(Date(timeIntervalSince1970: millis / 1000)),
                                                                             "far": .meters(1250), "who": .text("ada")]))
            // The API and the SSE stream carry them as JSON.
            #expect(entry.json["priority"] == "critical")
            #expect(entry.json["message"]?["values"]?["at"] == ["instant": .integer(Int64(millis))])
            await ada.stop()
            await bob.stop()
        }
    }

    @Test("a space the sender is not in is refused at the hub and reaches nobody; a relay waits while the hub is down")
    func refusedAndRetried() async throws {
        try await HubTestServer.start().use { hub in
            let (ada, bob, space) = try await Self.adaAndBob(hub)
            let strangers = "0b8f3c2e-1111-4222-8333-444455556666"
            try await Self.notify(ada, key: "lost", space: strangers)
            try await ada.advanceClock(by: 60)
            #expect(try ada.host.hub.notificationRelaySummary() == ["dropped": 1])
            #expect(try ada.host.notificationCounters()["relayRefused"] == 1)

            await hub.server.stop()
            try await Self.notify(ada, key: "later", space: space)
            try await ada.advanceClock(by: 60)  // due while the hub is down: kept
            #expect(try ada.host.hub.notificationRelaySummary()["pending"] == 1)
            let back = try await hub.restartServer()
            try await withCleanup({ await back.stop() }) {
                try await ada.advanceClock(by: 10)  // the retry
                #expect(try ada.host.hub.notificationRelaySummary() == ["dropped": 1, "sent": 1])
                try await bob.advanceClock(by: 900)
                #expect(try Self.inbox(bob) == ["test.spaces later space:\(space) title later"])
                await ada.stop()
                await bob.stop()
            }
        }
    }

    @Test("addressing a space needs the spaces permission, sync, and a shared space's id")
    func grantChecked() async throws {
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("ada")
            let space = "6f1c1a52-8d3e-4b7a-9c0d-2e5f7a9b1c3d"
            let noPermission = try await PluginTestHost(manifest: PluginSpacesTests.manifest(), plugin: { SpacesPlugin() },
                                                        grants: ["storage": [:], "sync": [:], "notifications": ["spaces": false]])
            let refused = await PluginSpacesTests.refusal(noPermission, ["action": "notify", "key": "k", "title": "t", "space": .string(space), "at": 0])
            #expect(refused?.code == .notGranted && refused?.field == "recipient", "\(String(describing: refused))")
            let noSync = try await PluginTestHost(manifest: PluginSpacesTests.manifest(sync: false), plugin: { SpacesPlugin() },
                                                  grants: ["storage": [:], "notifications": ["spaces": true]])
            let unsynced = await PluginSpacesTests.refusal(noSync, ["action": "notify", "key": "k", "title": "t", "space": .string(space), "at": 0])
            #expect(unsynced?.code == .notGranted && unsynced?.message.contains("sync") == true)
            let ada = try await PluginSpacesTests.device("ada", hub: hub)
            let malformed = await PluginSpacesTests.refusal(ada, ["action": "notify", "key": "k", "title": "t", "space": "Ema", "at": 0])
            #expect(malformed?.code == .invalidInput && malformed?.field == "recipient")
            for host in [noPermission, noSync, ada] { await host.stop() }
        }
    }
}

/// The hub's routes for notifications to a space's members, on `hub.sqlite` and on PostgreSQL.
@Suite("The hub's notification relay", .hangWatchdog)
struct HubNotificationRelayTests {
    static let space = "0b8f3c2e-5a6d-4e7f-8a9b-1c2d3e4f5a6b"

    static func relay(_ hub: HubTestServer, token: String, key: String, space: String = space, plugin: String = "test.spaces",
                      others: Bool = false) async throws -> HubResponse {
        try await hub.request("POST", "/v1/hub/notifications", token: token, json: """
            {"key": "\(key)", "notificationKey": "n-\(key)", "plugin": "\(plugin)", "space": "\(space)", "excludingSender": \(others),
             "title": "T \(key)", "body": "B", "payload": {"screen": "visit"}, "dueAtMillis": 1772438400000, "late": false}
            """)
    }

    static func fetch(_ hub: HubTestServer, token: String, after: Int64) async throws -> (keys: [String], cursor: Int64) {
        let response = try await hub.request("GET", "/v1/hub/notifications?after=\(after)", token: token)
        guard response.status == 200, let json = response.json else { throw Failure("fetch: \(response.status) \(response.text)") }
        return (json["notifications"]?.arrayValue?.compactMap { $0["notificationKey"]?.stringValue } ?? [], json["cursor"]?.integerValue ?? -1)
    }

    @Test("filed once per key for every member; kept until each of a person's devices has fetched past it; refused outside the space",
          arguments: HubBackend.available)
    func relayed(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            for name in ["ada", "bob", "cy"] { try await hub.addPerson(name) }
            let ada = try await hub.login("ada", device: "phone"), bobPhone = try await hub.login("bob", device: "phone")
            let bobLaptop = try await hub.login("bob", device: "laptop"), cy = try await hub.login("cy", device: "phone")
            #expect(try await hub.request("PUT", "/v1/hub/spaces/\(Self.space)?plugin=test.spaces", token: ada, json: #"{"name":"Ema"}"#).status == 201)
            try await hub.share(Self.space, owner: ada, with: bobPhone, role: "viewer")

            let first = try await Self.relay(hub, token: bobPhone, key: "k1")  // a viewer may send
            #expect(first.status == 201 && first.json?["recipients"] == 2)
            let again = try await Self.relay(hub, token: bobPhone, key: "k1")
            #expect(again.status == 200 && again.json?["stored"] == false)
            #expect(try await Self.relay(hub, token: ada, key: "k2", others: true).json?["recipients"] == 1)
            // Refusals: not a member, another plugin's space, not a shared space, a missing field.
            #expect(try await Self.relay(hub, token: cy, key: "k3").errorCode == "space_not_found")
            #expect(try await Self.relay(hub, token: ada, key: "k4", plugin: "test.other").errorCode == "space_not_found")
            #expect(try await Self.relay(hub, token: ada, key: "k5", space: "personal").errorCode == "personal_space")
            let missing = try await hub.request("POST", "/v1/hub/notifications", token: ada, json: #"{"key": "k6"}"#)
            #expect(missing.status == 400 && missing.json?["error"]?["field"] == "$.notificationKey")

            #expect(try await Self.fetch(hub, token: ada, after: 0).keys == ["n-k1"])
            let phone = try await Self.fetch(hub, token: bobPhone, after: 0)
            #expect(phone.keys == ["n-k1", "n-k2"])
            #expect(try await Self.fetch(hub, token: cy, after: 0).keys.isEmpty)
            // The phone acknowledges; the laptop has not fetched: bob's copies stay.
            _ = try await Self.fetch(hub, token: bobPhone, after: phone.cursor)
            let laptop = try await Self.fetch(hub, token: bobLaptop, after: 0)
            #expect(laptop.keys == ["n-k1", "n-k2"])
            _ = try await Self.fetch(hub, token: bobLaptop, after: laptop.cursor)
            #expect(try await Self.fetch(hub, token: bobPhone, after: 0).keys.isEmpty)  // both devices past them: gone
        }
    }
}
