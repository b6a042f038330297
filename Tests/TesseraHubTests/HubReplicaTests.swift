import TesseraHubFixtures
import TesseraTestFixtures
import Foundation
import Synchronization
import Testing
import TesseraHub
import TesseraSDK
import TesseraSync

/// Several hub replicas over one PostgreSQL database (DESIGN.md §7): each is a whole hub (host,
/// HTTP edge, its own connection pool), and a device may reach any of them.
@Suite("Hub replicas over one PostgreSQL database", .hangWatchdog, .needs("initdb", "pg_ctl"))
struct HubReplicaTests {
    static let space = "5d0c7a4e-2b1f-4c3d-9e8f-a1b2c3d4e5f6"
    static let writerSpaces = (0..<4).map { "5d0c7a4e-2b1f-4c3d-9e8f-00000000000\($0)" }

    @Test("accounts, spaces, invitations and changes made through one replica are served by the other")
    func replicasShareEverything() async throws {
        try await HubTestServer.start(.postgresql).use { first in
            try await first.replica().use { second in
                // A person made on the first logs in on the second; either replica knows the token.
                try await first.addPerson("bob")
                try await first.addPerson("ada")
                let bob = try DeviceReplica(hub: first, token: try await second.login("bob", device: "phone"), node: 0xB0B, clock: first.clock.now)
                #expect(try await first.request("GET", "/v1/hub/me", token: bob.token).status == 200)
                // Bob's space made by a push through the first; Ada invited there and accepting on the second.
                try bob.put("n1", title: "bottle 120 ml", in: Self.space)
                #expect(try await bob.pushAll([Self.space]).status == 200)
                let adaOnSecond = try DeviceReplica(hub: second, token: try await second.login("ada", device: "tablet"), node: 0xADA, clock: first.clock.now)
                try await first.share(Self.space, owner: bob.token, with: adaOnSecond.token, role: "editor")
                try await adaOnSecond.pullAll()
                #expect(try adaOnSecond.notes().map { $0[1] } == [.text("bottle 120 ml")])
                // Ada's edit through the second reaches Bob through the first; both tries agree.
                first.clock.advance(1)
                try adaOnSecond.put("n1", title: "bottle 150 ml", in: Self.space)
                #expect(try await adaOnSecond.pushAll([Self.space]).status == 200)
                try await bob.pullAll()
                #expect(try bob.notes().map { $0[1] } == [.text("bottle 150 ml")])
                let root = try bob.store.merkle(for: Self.space).rootHash
                let check = try await second.request("POST", "/v1/hub/sync/\(DeviceReplica.plugin)/check", token: adaOnSecond.token,
                                                     json: #"{"spaces":{"\#(Self.space)":{"root":\#(root)}}}"#)
                #expect(check.json?["spaces"]?[Self.space]?["status"]?.stringValue == "in_sync")
                // A device waiting at the second hears of a push through the first (the replica looks again every 2 s).
                try await adaOnSecond.pullAll()
                let waiting = Task { [cursor = adaOnSecond.cursor, token = adaOnSecond.token] in
                    try await second.request("GET", "/v1/hub/sync/\(DeviceReplica.plugin)/wait?after=\(cursor)&seconds=30", token: token)
                }
                first.clock.advance(1)
                try bob.put("n3", title: "nap 40 min", in: Self.space)
                #expect(try await bob.pushAll([Self.space]).status == 200)
                #expect(try await waiting.value.json?["changes"] == true)
                // Revoking on the second is seen by the first at once.
                let adaID = try #require(try await first.request("GET", "/v1/hub/me", token: adaOnSecond.token).json?["person"]?.stringValue)
                #expect(try await second.request("DELETE", "/v1/hub/spaces/\(Self.space)/members/\(adaID)", token: bob.token).status == 204)
                let refused = try await first.push(try adaOnSecond.put("n2", title: "after", in: Self.space), token: adaOnSecond.token)
                #expect(refused.json?["rejected"]?.arrayValue?.first?["reason"]?.stringValue == "not_a_member")
            }
        }
    }

    @Test("pushes racing through two replicas: a reader's cursor never skips a change that committed late")
    func cursorsNeverSkipUnderConcurrentPushes() async throws {
        try await HubTestServer.start(.postgresql).use { first in
            try await first.replica().use { second in
                try await first.addPerson("ada")
                let writers = 4, batches = 12, notesPerBatch = 5
                var devices: [DeviceReplica] = []
                for index in 0..<writers {
                    let hub = index.isMultiple(of: 2) ? first : second
                    devices.append(try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "writer-\(index)"),
                                                     node: UInt64(0x100 + index), clock: first.clock.now))
                }
                let reader = try DeviceReplica(hub: second, token: try await second.login("ada", device: "reader"), node: 0x999, clock: first.clock.now)
                // The writers push their batches at once, half through each replica, while the reader
                // pulls small pages with its cursor as fast as it can; when the last push has been
                // answered (committed), it pulls once more from where its cursor stands.
                let writing = Flag()
                let reading = Task { () async throws -> (seen: Set<ChangeID>, pages: Int) in
                    var seen = Set<ChangeID>(), cursor: Int64 = 0, pages = 0
                    var finalSweep = false
                    while true {
                        finalSweep = !writing.isSet
                        let page = try await reader.hub.pull(token: reader.token, after: cursor, limit: 7)
                        guard page.response.status == 200 else { throw Failure("pull: \(page.response.status)") }
                        seen.formUnion(page.changes.map(\.id))
                        cursor = page.cursor
                        pages += 1
                        if finalSweep && !page.more { return (seen, pages) }
                    }
                }
                writing.set()
                let pushed = try await withThrowingTaskGroup(of: Set<ChangeID>.self) { group in
                    for (index, device) in devices.enumerated() {
                        group.addTask {
                            var ids = Set<ChangeID>()
                            for batch in 0..<batches {
                                var changes: [SyncChange] = []
                                for note in 0..<notesPerBatch {
                                    // A space per writer: their pushes share no rows, so nothing but the
                                    // hub's lock orders them.
                                    changes += try device.put("w\(index)-b\(batch)-n\(note)", title: "t", in: Self.writerSpaces[index])
                                }
                                let answer = try await device.hub.push(changes, token: device.token)
                                guard answer.status == 200, answer.json?["stored"]?.integerValue == Int64(changes.count) else {
                                    throw Failure("push: \(answer.status) \(answer.text)")
                                }
                                ids.formUnion(changes.map(\.id))
                            }
                            return ids
                        }
                    }
                    var all = Set<ChangeID>()
                    for try await ids in group { all.formUnion(ids) }
                    return all
                }
                writing.clear()
                let (seen, pages) = try await reading.value
                #expect(pushed.count >= writers * batches * notesPerBatch)
                #expect(pages > 1)
                let missed = pushed.subtracting(seen)
                #expect(missed.isEmpty, "the reader's cursor passed over \(missed.count) changes")
            }
        }
    }
}

/// A flag one task sets and others read.
final class Flag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
    func clear() { value.withLock { $0 = false } }
}
