import TesseraHubFixtures
import TesseraTestFixtures
import Foundation
import Testing
import TesseraHub
import TesseraSDK
import TesseraSync

@Suite("Hub spaces, roles and invitations", .hangWatchdog)
struct HubMembershipTests {
    static let space = "0b8f3c2e-5a6d-4e7f-8a9b-1c2d3e4f5a6b"

    /// Bob owns a shared space (registered by his first push) holding one note; Ada is a person
    /// with a device but no membership yet.
    struct World: Sendable {
        let hub: HubTestServer
        let bob: DeviceReplica
        let ada: DeviceReplica
        let bobID: String
        let adaID: String

        static func make(_ backend: HubBackend) async throws -> World {
            let hub = try await HubTestServer.start(backend)
            let bobID = try await hub.addPerson("bob")
            let adaID = try await hub.addPerson("ada")
            let bob = try DeviceReplica(hub: hub, token: try await hub.login("bob", device: "bob-phone"), node: 0xB0B, clock: hub.clock.now)
            let ada = try DeviceReplica(hub: hub, token: try await hub.login("ada", device: "ada-phone"), node: 0xADA, clock: hub.clock.now)
            try bob.put("child", title: "Ema", in: HubMembershipTests.space)
            let push = try await bob.pushAll([HubMembershipTests.space])
            #expect(push.json?["createdSpaces"]?.arrayValue?.first?.stringValue == HubMembershipTests.space)
            return World(hub: hub, bob: bob, ada: ada, bobID: bobID, adaID: adaID)
        }

        /// An invitation code from Bob.
        func invite(_ role: String, expires: Int? = nil) async throws -> String {
            let extra = expires.map { #","expiresInSeconds":\#($0)"# } ?? ""
            let response = try await hub.request("POST", "/v1/hub/spaces/\(HubMembershipTests.space)/invitations", token: bob.token,
                                                 json: #"{"role":"\#(role)"\#(extra)}"#)
            guard response.status == 201, let code = response.json?["code"]?.stringValue else { throw Failure("invite: \(response.status)") }
            return code
        }

        func accept(_ code: String, by device: DeviceReplica) async throws -> HubResponse {
            try await hub.request("POST", "/v1/hub/invitations/accept", token: device.token, json: #"{"code":"\#(code)"}"#)
        }

        func setRole(_ person: String, _ role: String, by device: DeviceReplica) async throws -> HubResponse {
            try await hub.request("PUT", "/v1/hub/spaces/\(HubMembershipTests.space)/members/\(person)", token: device.token, json: #"{"role":"\#(role)"}"#)
        }
    }

    @Test("a non-member sees nothing of a space and cannot write to it", arguments: HubBackend.available)
    func nonMember(backend: HubBackend) async throws {
        let world = try await World.make(backend)
        try await withCleanup({ await world.hub.stop() }) {
            let pulled = try await world.hub.pull(token: world.ada.token, after: 0)
            #expect(pulled.response.status == 200 && pulled.changes.isEmpty)
            let direct = try await world.hub.pull(token: world.ada.token, after: 0, space: Self.space)
            #expect(direct.response.status == 404 && direct.response.errorCode == "space_not_found")
            try world.ada.put("x", title: "intruder", in: Self.space)
            let push = try await world.ada.pushAll([Self.space])
            #expect(push.status == 200)
            let rejected = try #require(push.json?["rejected"]?.arrayValue)
            #expect(!rejected.isEmpty && rejected.allSatisfy { $0["reason"]?.stringValue == "not_a_member" })
            #expect(rejected.first?["row"]?.stringValue == "x" && rejected.first?["table"]?.stringValue == "notes")
            let spaces = try await world.hub.request("GET", "/v1/hub/spaces", token: world.ada.token)
            #expect(spaces.json?["spaces"]?.arrayValue?.count == 1)  // her personal space only
            let check = try await world.hub.request("POST", "/v1/hub/sync/\(DeviceReplica.plugin)/check", token: world.ada.token,
                                                    json: #"{"spaces":{"\#(Self.space)":{"root":1}}}"#)
            #expect(check.json?["spaces"]?[Self.space]?["status"]?.stringValue == "not_a_member")
            #expect(try await world.hub.request("POST", "/v1/hub/spaces/\(Self.space)/invitations", token: world.ada.token,
                                                json: #"{"role":"owner"}"#).status == 404)
            // Bob's data holds no trace of Ada's change.
            try await world.bob.pullAll()
            #expect(try world.bob.notes().map { $0[0] } == [.text("child")])
        }
    }

    @Test("a viewer reads the space; each change it pushes is rejected with a reason", arguments: HubBackend.available)
    func viewer(backend: HubBackend) async throws {
        let world = try await World.make(backend)
        try await withCleanup({ await world.hub.stop() }) {
            let accepted = try await world.accept(try await world.invite("viewer"), by: world.ada)
            #expect(accepted.status == 200 && accepted.json?["role"]?.stringValue == "viewer")
            try await world.ada.pullAll()
            #expect(try world.ada.notes() == world.bob.notes())
            try world.ada.put("child", title: "Emma (viewer's edit)", in: Self.space)
            let mine = try world.ada.store.changes(in: Self.space).filter { $0.timestamp.node == world.ada.store.node }
            let push = try await world.ada.pushAll([Self.space])
            let rejected = try #require(push.json?["rejected"]?.arrayValue)
            #expect(rejected.count == mine.count)
            #expect(rejected.allSatisfy { $0["reason"]?.stringValue == "read_only" })
            #expect(Set(rejected.compactMap { $0["timestamp"]?.stringValue }) == Set(mine.map(\.timestamp.text)))
            // Bob's changes that Ada echoed back are duplicates, not rejections.
            #expect(push.json?["duplicates"]?.integerValue == Int64(try world.bob.store.changes(in: Self.space).count))
            try await world.bob.pullAll()
            #expect(try world.bob.notes().first?[1] == .text("Ema"))
        }
    }

    @Test("invite, accept, change a role, revoke and delete; the last owner is protected", arguments: HubBackend.available)
    func membershipFlow(backend: HubBackend) async throws {
        let world = try await World.make(backend)
        try await withCleanup({ await world.hub.stop() }) {
            let hub = world.hub
            // Ada accepts an editor invitation, once.
            let code = try await world.invite("editor")
            #expect(try await world.accept(code.lowercased(), by: world.ada).status == 200)
            let reused = try await world.accept(code, by: world.ada)
            #expect(reused.status == 409 && reused.errorCode == "invitation_used")
            let unknown = try await world.accept("AAAA-BBBB-CCCC-DDDD-EEEE", by: world.ada)
            #expect(unknown.status == 404 && unknown.errorCode == "invitation_not_found")
            let members = try await hub.request("GET", "/v1/hub/spaces", token: world.bob.token)
            let shared = members.json?["spaces"]?.arrayValue?.first { $0["id"]?.stringValue == Self.space }
            #expect(shared?["members"]?.arrayValue?.count == 2)
            // An editor writes, but does not manage members.
            try world.ada.put("feed-1", title: "bottle 120 ml", in: Self.space)
            #expect(try await world.ada.pushAll([Self.space]).json?["rejected"]?.arrayValue?.isEmpty == true)
            let byEditor = try await hub.request("POST", "/v1/hub/spaces/\(Self.space)/invitations", token: world.ada.token, json: #"{"role":"viewer"}"#)
            #expect(byEditor.status == 403 && byEditor.errorCode == "not_owner")
            // An expired invitation.
            let late = try await world.invite("viewer", expires: 3600)
            hub.clock.advance(3601)
            let carol = try DeviceReplica(hub: hub, token: try await { try await hub.addPerson("carol"); return try await hub.login("carol", device: "tab") }(),
                                          node: 0xCA, clock: hub.clock.now)
            let expired = try await world.accept(late, by: carol)
            #expect(expired.status == 410 && expired.errorCode == "invitation_expired")
            // The last owner can neither be demoted nor leave.
            let demote = try await world.setRole(world.bobID, "editor", by: world.bob)
            #expect(demote.status == 409 && demote.errorCode == "last_owner")
            let leave = try await hub.request("DELETE", "/v1/hub/spaces/\(Self.space)/members/\(world.bobID)", token: world.bob.token)
            #expect(leave.status == 409 && leave.errorCode == "last_owner")
            // Ada becomes a viewer: her next write is rejected.
            #expect(try await world.setRole(world.adaID, "viewer", by: world.bob).status == 200)
            try world.ada.put("feed-2", title: "bottle 90 ml", in: Self.space)
            let asViewer = try await world.ada.pushAll([Self.space])
            #expect(asViewer.json?["rejected"]?.arrayValue?.allSatisfy { $0["reason"]?.stringValue == "read_only" } == true)
            #expect(asViewer.json?["rejected"]?.arrayValue?.isEmpty == false)
            // Revoked: Ada gets no more changes of the space, and learns she was removed.
            try await world.ada.pullAll()
            #expect(try await hub.request("DELETE", "/v1/hub/spaces/\(Self.space)/members/\(world.adaID)", token: world.bob.token).status == 204)
            try world.bob.put("feed-3", title: "after revocation", in: Self.space)
            _ = try await world.bob.pushAll([Self.space])
            let after = try await hub.pull(token: world.ada.token, after: world.ada.cursor)
            #expect(after.changes.isEmpty)
            let adaSpaces = try await hub.request("GET", "/v1/hub/spaces", token: world.ada.token)
            #expect(adaSpaces.json?["departures"]?.arrayValue?.first?["id"]?.stringValue == Self.space)
            #expect(adaSpaces.json?["departures"]?.arrayValue?.first?["reason"]?.stringValue == "revoked")
            #expect(adaSpaces.json?["spaces"]?.arrayValue?.count == 1)
            // Deleted: pushes and pulls of the space are refused with 410, for everyone.
            #expect(try await hub.request("DELETE", "/v1/hub/spaces/\(Self.space)", token: world.bob.token).status == 204)
            try world.bob.put("feed-4", title: "after deletion", in: Self.space)
            let pushDeleted = try await world.bob.pushAll([Self.space])
            #expect(pushDeleted.status == 410 && pushDeleted.errorCode == "space_deleted")
            let pullDeleted = try await hub.pull(token: world.bob.token, after: 0, space: Self.space)
            #expect(pullDeleted.response.status == 410 && pullDeleted.response.errorCode == "space_deleted")
            #expect(try await hub.pull(token: world.bob.token, after: 0).changes.isEmpty)
            let deletedCheck = try await hub.request("POST", "/v1/hub/sync/\(DeviceReplica.plugin)/check", token: world.bob.token,
                                                     json: #"{"spaces":{"\#(Self.space)":{"root":0}}}"#)
            #expect(deletedCheck.json?["spaces"]?[Self.space]?["status"]?.stringValue == "deleted")
            let strangerCheck = try await hub.request("POST", "/v1/hub/sync/\(DeviceReplica.plugin)/check", token: carol.token,
                                                      json: #"{"spaces":{"\#(Self.space)":{"root":0}}}"#)
            #expect(strangerCheck.json?["spaces"]?[Self.space]?["status"]?.stringValue == "not_a_member")
            let bobSpaces = try await hub.request("GET", "/v1/hub/spaces", token: world.bob.token)
            #expect(bobSpaces.json?["departures"]?.arrayValue?.first?["reason"]?.stringValue == "deleted")
            #expect(try await hub.request("POST", "/v1/hub/spaces/\(Self.space)/invitations", token: world.bob.token,
                                          json: #"{"role":"viewer"}"#).status == 410)
            // A personal space has no members to manage.
            let personal = try await hub.request("POST", "/v1/hub/spaces/personal/invitations", token: world.bob.token, json: #"{"role":"viewer"}"#)
            #expect(personal.status == 409 && personal.errorCode == "personal_space")
        }
    }

    @Test("a person's personal space is theirs alone", arguments: HubBackend.available)
    func personalSpaces(backend: HubBackend) async throws {
        let world = try await World.make(backend)
        try await withCleanup({ await world.hub.stop() }) {
            try world.bob.put("diary", title: "bob's own", in: "personal")
            try world.ada.put("diary2", title: "ada's own", in: "personal")
            _ = try await world.bob.pushAll(["personal"])
            _ = try await world.ada.pushAll(["personal"])
            try await world.ada.pullAll()
            #expect(try world.ada.notes().map { $0[0] } == [.text("diary2")])
            let stored = try await world.hub.pull(token: world.bob.token, after: 0, space: "personal")
            #expect(stored.changes.allSatisfy { $0.space == "personal" && $0.row == "diary" })
            // An explicit personal id of another person is not a space a device may name.
            var forged = try world.bob.store.changes(in: "personal")
            for i in forged.indices { forged[i].space = "personal:\(world.adaID)" }
            let push = try await world.hub.push(forged, token: world.bob.token)
            #expect(push.json?["rejected"]?.arrayValue?.allSatisfy { $0["reason"]?.stringValue == "invalid_space" } == true)
        }
    }

    @Test("a space joined later is caught up by a per-space pull from 0; PUT registers and renames", arguments: HubBackend.available)
    func joinLater(backend: HubBackend) async throws {
        let world = try await World.make(backend)
        try await withCleanup({ await world.hub.stop() }) {
            let hub = world.hub
            // Ada syncs her own notes first: her cursor moves past Bob's older changes.
            try world.ada.put("mine", title: "ada's", in: "personal")
            _ = try await world.ada.pushAll(["personal"])
            try await world.ada.pullAll()
            #expect(world.ada.cursor > 0)
            #expect(try await world.accept(try await world.invite("editor"), by: world.ada).status == 200)
            // Her main cursor does not bring the space's older changes...
            let main = try await hub.pull(token: world.ada.token, after: world.ada.cursor)
            #expect(main.changes.isEmpty)
            // ...a per-space pull from 0 does.
            let catchUp = try await hub.pull(token: world.ada.token, after: 0, space: Self.space)
            #expect(Set(catchUp.changes.map(\.id)) == Set(try world.bob.store.changes(in: Self.space).map(\.id)))
            try world.ada.store.applyRemote(catchUp.changes)
            #expect(try world.ada.store.merkle(for: Self.space) == world.bob.store.merkle(for: Self.space))
            // Registering a new space, renaming it, and the renamed name in the listing.
            let other = "1d2e3f4a-5b6c-4d7e-8f90-a1b2c3d4e5f6"
            let created = try await hub.request("PUT", "/v1/hub/spaces/\(other)", token: world.ada.token, json: #"{"name":"Trip"}"#)
            #expect(created.status == 201 && created.json?["created"] == .bool(true))
            let renamed = try await hub.request("PUT", "/v1/hub/spaces/\(other)", token: world.ada.token, json: #"{"name":"Trip to Brno"}"#)
            #expect(renamed.status == 200)
            let byOther = try await hub.request("PUT", "/v1/hub/spaces/\(other)", token: world.bob.token, json: #"{"name":"Mine now"}"#)
            #expect(byOther.status == 404)
            let listing = try await hub.request("GET", "/v1/hub/spaces", token: world.ada.token)
            #expect(listing.json?["spaces"]?.arrayValue?.first { $0["id"]?.stringValue == other }?["name"]?.stringValue == "Trip to Brno")
            let upper = try await hub.request("PUT", "/v1/hub/spaces/\(other.uppercased())", token: world.ada.token, json: #"{"name":"x"}"#)
            #expect(upper.status == 400 && upper.errorCode == "invalid_space")
            let badRole = try await hub.request("POST", "/v1/hub/spaces/\(other)/invitations", token: world.ada.token, json: #"{"role":"admin"}"#)
            #expect(badRole.status == 400 && badRole.json?["error"]?["field"]?.stringValue == "$.role")
        }
    }
}
