import TesseraHubFixtures
import TesseraTestFixtures
import Foundation
import Testing
import TesseraHub
import TesseraSDK
import TesseraSync

@Suite("Hub push, pull and check", .hangWatchdog)
struct HubSyncTests {
    static let shared = "6f1c1a52-8d3e-4b7a-9c0d-2e5f7a9b1c3d"

    @Test("two devices' offline edits converge through the hub: equal tables and merkle roots", arguments: HubBackend.available)
    func twoDevicesConverge(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            let phone = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "phone"), node: 0xA1, clock: hub.clock.now)
            let laptop = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "laptop"), node: 0xB2, clock: hub.clock.now)
            // Both offline: edits in the personal space and in a shared space created on the phone.
            try phone.put("n1", title: "phone's note", in: "personal")
            try phone.put("s1", title: "shared from phone", in: Self.shared)
            hub.clock.advance(1)
            try laptop.put("n2", title: "laptop's note", in: "personal")
            try laptop.put("n1", title: "laptop edits n1 later", stars: 3, in: "personal")
            hub.clock.advance(1)
            // Sync in either order.
            let first = try await laptop.pushAll(["personal"])
            #expect(first.status == 200)
            let second = try await phone.pushAll(["personal", Self.shared])
            #expect(second.json?["createdSpaces"]?.arrayValue?.first?.stringValue == Self.shared)
            #expect(second.json?["rejected"]?.arrayValue?.isEmpty == true)
            try await phone.pullAll()
            try await laptop.pullAll()
            #expect(try phone.notes() == laptop.notes())
            #expect(try phone.notes().count == 3)
            #expect(try phone.notes().first?[1] == .text("laptop edits n1 later"))
            for space in ["personal", Self.shared] {
                let a = try phone.store.merkle(for: space), b = try laptop.store.merkle(for: space)
                #expect(a.rootHash != 0 && a.rootHash == b.rootHash)
                let person = try #require(try await hub.hub.device(forToken: phone.token)).person
                #expect(try await hub.hub.merkle(plugin: DeviceReplica.plugin, space: space, person: person).rootHash == a.rootHash)
            }
            // The check agrees, with the whole trie and with the root alone.
            let trie = try phone.store.merkle(for: "personal").nodes.map { #""\#($0.key)":\#($0.value)"# }.joined(separator: ",")
            let root = try phone.store.merkle(for: Self.shared).rootHash
            let check = try await hub.request("POST", "/v1/hub/sync/\(DeviceReplica.plugin)/check", token: phone.token,
                                              json: #"{"spaces":{"personal":{"trie":{\#(trie)}},"\#(Self.shared)":{"root":\#(root)}}}"#)
            #expect(check.status == 200)
            #expect(check.json?["spaces"]?["personal"]?["status"]?.stringValue == "in_sync")
            #expect(check.json?["spaces"]?[Self.shared]?["status"]?.stringValue == "in_sync")
        }
    }

    @Test("pushing the same batch twice stores it once and answers the same", arguments: HubBackend.available)
    func duplicatePush(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            let phone = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "phone"), node: 0xA1, clock: hub.clock.now)
            try phone.put("n1", title: "one", in: "personal")
            try phone.put("n2", title: "two", in: "personal")
            let changes = try phone.store.changes(in: "personal")
            let first = try await hub.push(changes, token: phone.token)
            let again = try await hub.push(changes, token: phone.token)
            #expect(first.status == 200 && again.status == 200)
            #expect(first.json?["accepted"]?.integerValue == Int64(changes.count))
            #expect(first.json?["stored"]?.integerValue == Int64(changes.count))
            #expect(again.json?["accepted"] == first.json?["accepted"])
            #expect(again.json?["rejected"] == first.json?["rejected"])
            #expect(again.json?["stored"]?.integerValue == 0)
            #expect(again.json?["duplicates"]?.integerValue == Int64(changes.count))
            // The same change twice within one batch counts once too.
            let doubled = try await hub.push(changes + changes, token: phone.token)
            #expect(doubled.json?["stored"]?.integerValue == 0)
            let page = try await hub.pull(token: phone.token, after: 0)
            #expect(page.changes.count == changes.count)
            #expect(Set(page.changes.map(\.id)) == Set(changes.map(\.id)))
            // The hub's trie counts each change once.
            let person = try #require(try await hub.hub.device(forToken: phone.token)).person
            #expect(try await hub.hub.merkle(plugin: DeviceReplica.plugin, space: "personal", person: person) == phone.store.merkle(for: "personal"))
        }
    }

    @Test("an interrupted pull resumes from the last cursor it saw, and pages never split a record change", arguments: HubBackend.available)
    func interruptedPullResumes(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            let phone = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "phone"), node: 0xA1, clock: hub.clock.now)
            for i in 0..<40 { try phone.put("n\(i)", title: "note \(i)", stars: Int64(i), in: "personal") }
            #expect(try await phone.pushAll(["personal"]).status == 200)
            let laptop = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "laptop"), node: 0xB2, clock: hub.clock.now)
            // Two pages, then the connection "drops": the third page's answer is lost.
            var cursor: Int64 = 0
            for _ in 0..<2 {
                let page = try await hub.pull(token: laptop.token, after: cursor, limit: 7)
                #expect(page.more)
                try laptop.store.applyRemote(page.changes)
                cursor = page.cursor
            }
            let lost = try await hub.pull(token: laptop.token, after: cursor, limit: 7)
            // Resuming repeats the page from the same cursor, byte for byte.
            let repeated = try await hub.pull(token: laptop.token, after: cursor, limit: 7)
            #expect(lost.response.body == repeated.response.body && lost.cursor == repeated.cursor)
            laptop.cursor = cursor
            try await laptop.pullAll(limit: 7)
            #expect(try laptop.notes() == phone.notes())
            #expect(try laptop.notes().count == 40)
            #expect(try laptop.store.merkle(for: "personal") == phone.store.merkle(for: "personal"))
            // Each page ends on a whole record change: a put's existence and cells share a timestamp.
            var after: Int64 = 0
            var seen: Set<HLCTimestamp> = []
            while true {
                let page = try await hub.pull(token: laptop.token, after: after, limit: 5)
                let stamps = Set(page.changes.map(\.timestamp))
                #expect(seen.isDisjoint(with: stamps))
                seen.formUnion(stamps)
                after = page.cursor
                if !page.more { break }
            }
            #expect(seen.count == 40)
            // The cursor past the end answers nothing more.
            let end = try await hub.pull(token: laptop.token, after: after)
            #expect(end.changes.isEmpty && !end.more && end.cursor == after)
        }
    }

    @Test("a pull merges a person's spaces in arrival order, page by page, and never carries another person's changes",
          arguments: HubBackend.available)
    func pullMergesSpacesInArrivalOrder(backend: HubBackend) async throws {
        // Each space is read along its own index range (issue 48); the pages must still be what
        // one walk of the whole log in arrival order gives.
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            try await hub.addPerson("bob")
            let phone = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "phone"), node: 0xA1, clock: hub.clock.now)
            let bob = try DeviceReplica(hub: hub, token: try await hub.login("bob", device: "phone"), node: 0xB0, clock: hub.clock.now)
            let spaces = ["personal", "5d0c7a4e-2b1f-4c3d-9e8f-0000000000a1", "5d0c7a4e-2b1f-4c3d-9e8f-0000000000a2"]
            var pushed: [String] = []
            for (i, space) in [0, 1, 1, 2, 0, 2, 2, 1, 0, 0, 2, 1].map({ spaces[$0] }).enumerated() {
                hub.clock.advance(1)
                try phone.put("a\(i)", title: "ada \(i)", in: space)
                #expect(try await phone.pushAll([space]).status == 200)
                pushed.append("a\(i)")
                try bob.put("b\(i)", title: "bob \(i)", in: "personal")
                #expect(try await bob.pushAll(["personal"]).status == 200)
            }
            let laptop = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "laptop"), node: 0xA2, clock: hub.clock.now)
            for limit in [1, 4, 1000] {
                var after: Int64 = 0
                var rows: [String] = []
                while true {
                    let page = try await hub.pull(token: laptop.token, after: after, limit: limit)
                    rows += page.changes.filter { $0.kind == .existence }.map(\.row)
                    #expect(page.cursor > after || page.changes.isEmpty)
                    after = page.cursor
                    if !page.more { break }
                }
                #expect(rows == pushed, "pages of \(limit)")
            }
        }
    }

    @Test("a change more than 5 minutes ahead of the hub's clock is rejected with both times", arguments: HubBackend.available)
    func clockAhead(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            let token = try await hub.login("ada", device: "phone")
            let fastClock = TestClock(TestClock.epoch.addingTimeInterval(301))
            let fast = try DeviceReplica(hub: hub, token: token, node: 0xF1, clock: fastClock.now)
            try fast.put("n1", title: "from the future", in: "personal")
            let response = try await fast.pushAll(["personal"])
            #expect(response.status == 200)
            let rejected = try #require(response.json?["rejected"]?.arrayValue)
            #expect(rejected.count == (try fast.store.changes(in: "personal").count))
            #expect(rejected.allSatisfy { $0["reason"]?.stringValue == "clock_ahead" })
            let message = rejected.first?["message"]?.stringValue ?? ""
            #expect(message.contains("2026-03-02T08:05:01.000Z") && message.contains("2026-03-02T08:00:00.000Z"))
            #expect(response.json?["accepted"]?.integerValue == 0)
            // Within 5 minutes is accepted.
            let slightlyFast = TestClock(TestClock.epoch.addingTimeInterval(299))
            let ok = try DeviceReplica(hub: hub, token: token, node: 0xF2, clock: slightlyFast.now)
            try ok.put("n2", title: "nearly now", in: "personal")
            let accepted = try await ok.pushAll(["personal"])
            #expect(accepted.json?["rejected"]?.arrayValue?.isEmpty == true)
            #expect((accepted.json?["stored"]?.integerValue ?? 0) > 0)
        }
    }

    @Test("the check answers in sync, or the earliest differing minute", arguments: HubBackend.available)
    func checkDiffers(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            let phone = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "phone"), node: 0xA1, clock: hub.clock.now)
            let laptop = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "laptop"), node: 0xB2, clock: hub.clock.now)
            try phone.put("n1", title: "early", in: "personal")
            _ = try await phone.pushAll(["personal"])
            try await laptop.pullAll()
            hub.clock.advance(3 * 3600 + 125)  // 11:02:05
            try phone.put("n2", title: "later", in: "personal")
            _ = try await phone.pushAll(["personal"])
            func check(_ device: DeviceReplica) async throws -> JSONValue? {
                let trie = try device.store.merkle(for: "personal").nodes.map { #""\#($0.key)":\#($0.value)"# }.joined(separator: ",")
                return try await hub.request("POST", "/v1/hub/sync/\(DeviceReplica.plugin)/check", token: device.token,
                                             json: #"{"spaces":{"personal":{"trie":{\#(trie)}}}}"#).json?["spaces"]?["personal"]
            }
            #expect(try await check(phone)?["status"]?.stringValue == "in_sync")
            let behind = try await check(laptop)
            #expect(behind?["status"]?.stringValue == "differs")
            // The minute of the later change: 11:02.
            #expect(behind?["sinceMillis"]?.integerValue == Int64(TestClock.epoch.addingTimeInterval(3 * 3600 + 120).timeIntervalSince1970 * 1000))
            #expect(behind?["since"]?.stringValue == "2026-03-02T11:02:00.000Z")
            try await laptop.pullAll()
            #expect(try await check(laptop)?["status"]?.stringValue == "in_sync")
            // A device that asks about nothing still learns of the spaces it holds changes in.
            let empty = try await hub.request("POST", "/v1/hub/sync/\(DeviceReplica.plugin)/check", token: laptop.token, json: #"{"spaces":{}}"#)
            #expect(empty.json?["spaces"]?["personal"]?["status"]?.stringValue == "differs")
            #expect(empty.json?["spaces"]?["personal"]?["since"]?.stringValue == "2026-03-02T08:00:00.000Z")
        }
    }

    @Test("malformed batches are 400, never 500; a wrong media type 415", arguments: HubBackend.available)
    func malformedBatches(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            let phone = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "phone"), node: 0xA1, clock: hub.clock.now)
            try phone.put("n1", title: "one", in: "personal")
            let good = SyncWire.encode(try phone.store.changes(in: "personal"))
            let path = "/v1/hub/sync/\(DeviceReplica.plugin)/push"
            var bodies: [[UInt8]] = [Array("hello".utf8), Array(good.dropLast(3)), [], Array(good.prefix(4)) + [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]]
            var corrupted = good
            corrupted[good.count / 2] ^= 0xFF
            bodies.append(corrupted)
            for body in bodies {
                let response = try await hub.request("POST", path, token: phone.token, body: body, contentType: "application/x-tessera-sync")
                #expect(response.status == 400 || response.status == 200, "body \(body.count) bytes: \(response.status)")
                if response.status == 400 { #expect(response.errorCode == "malformed_batch") }
            }
            let garbage = try await hub.request("POST", path, token: phone.token, body: Array("hello".utf8), contentType: "application/x-tessera-sync")
            #expect(garbage.status == 400 && garbage.errorCode == "malformed_batch")
            let truncated = try await hub.request("POST", path, token: phone.token, body: Array(good.dropLast(3)), contentType: "application/x-tessera-sync")
            #expect(truncated.status == 400 && truncated.errorCode == "malformed_batch")
            let empty = try await hub.request("POST", path, token: phone.token, body: SyncWire.encode([]), contentType: "application/x-tessera-sync")
            #expect(empty.status == 200 && empty.json?["accepted"]?.integerValue == 0)
            let json = try await hub.request("POST", path, token: phone.token, json: "{}")
            #expect(json.status == 415)
            let badPlugin = try await hub.request("POST", "/v1/hub/sync/Not%20A%20Plugin/push", token: phone.token, body: good,
                                                  contentType: "application/x-tessera-sync")
            #expect(badPlugin.status == 400 && badPlugin.errorCode == "invalid_plugin")
            // Nothing of the refused bodies was stored (the one valid push, if a corruption decoded, is all there is).
            let badCursor = try await hub.request("GET", "/v1/hub/sync/\(DeviceReplica.plugin)/pull?after=-1", token: phone.token)
            #expect(badCursor.status == 400)
        }
    }

    @Test("a device waiting at the hub hears of another device's push at once; another person's changes never", arguments: HubBackend.available)
    func waitForChanges(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            try await hub.addPerson("ada")
            try await hub.addPerson("bob")
            let phone = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "phone"), node: 0xA1, clock: hub.clock.now)
            let laptop = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "laptop"), node: 0xA2, clock: hub.clock.now)
            let bob = try DeviceReplica(hub: hub, token: try await hub.login("bob", device: "phone"), node: 0xB1, clock: hub.clock.now)
            func wait(_ device: DeviceReplica, seconds: Int) async throws -> HubResponse {
                try await hub.request("GET", "/v1/hub/sync/\(DeviceReplica.plugin)/wait?after=\(device.cursor)&seconds=\(seconds)", token: device.token)
            }
            try phone.put("n1", title: "bottle", in: "personal")
            _ = try await phone.pushAll(["personal"])
            #expect(try await wait(laptop, seconds: 0).json?["changes"] == true)  // already there
            try await laptop.pullAll()
            #expect(try await wait(laptop, seconds: 0).json?["changes"] == false)  // caught up
            // A wait in progress answers when the phone's next push lands.
            let waiting = Task { try await wait(laptop, seconds: 30) }
            hub.clock.advance(1)
            try phone.put("n2", title: "nap", in: "personal")
            _ = try await phone.pushAll(["personal"])
            #expect(try await waiting.value.json?["changes"] == true)
            try await laptop.pullAll()
            // Bob's changes are not Ada's business.
            try bob.put("b1", title: "bob's", in: "personal")
            _ = try await bob.pushAll(["personal"])
            #expect(try await wait(laptop, seconds: 0).json?["changes"] == false)
            #expect(try await wait(laptop, seconds: 61).status == 400)
        }
    }
}
