import Foundation
import Testing
import TesseraHTTP
import TesseraSDK
import TesseraRuntime
import TesseraSyncClient
import TesseraHubFixtures
import TesseraTestFixtures
import TesseraTesting

/// A plugin manages its shared spaces through `context.capability(.sync).spaces`: two device
/// hosts (ada's and bob's) with ``SpacesPlugin``, a real hub on loopback, rounds on the virtual clock.
@Suite("A plugin's spaces over the hub", .hangWatchdog)
struct PluginSpacesTests {
    /// A manifest for ``SpacesPlugin``.
    static func manifest(id: String = "test.spaces", sync: Bool = true) -> String {
        let dir = Fixtures.temporaryDirectory("spaces-manifest")
        Fixtures.write("""
        {
          "id": "\(id)", "name": "Spaces", "version": "1.0.0",
          "sdk": {"abi": "1.10", "toolchain": "6.3.1"}, "library": {"name": "Spaces"},
          "requires": [{"capability": "storage", "version": "^1.0"}, \(sync ? #"{"capability": "sync", "version": "^1.0"},"# : "")
                       {"capability": "notifications", "version": "^1.0"}],
          "permissions": {"notifications": {"spaces": true}},
          \(sync ? #""sync": {"tables": {"entries": {}}},"# : "")
          "operations": [{"name": "do", "input": {"type": "object"}, "output": {}}]
        }
        """, to: dir + "/spaces.json")
        return dir + "/spaces.json"
    }

    /// A device host of `person` with the plugin, logged in to `hub`.
    static func device(_ person: String, hub: HubTestServer, id: String = "test.spaces") async throws -> PluginTestHost {
        let host = try await PluginTestHost(manifest: manifest(id: id), plugin: { SpacesPlugin() },
                                            grants: ["storage": [:], "sync": [:], "notifications": ["spaces": true]],
                                            syncHub: "http://127.0.0.1:\(hub.port)")
        try await host.host.syncLogin(name: person, password: "correct horse battery", device: "\(person)'s phone")
        return host
    }

    /// The plugin error a call ends with (its code), or `nil` if it succeeded.
    static func refusal(_ host: PluginTestHost, _ input: JSONValue) async -> PluginError? {
        do { _ = try await host.call("do", input); return nil } catch let error as PluginError { return error } catch { return nil }
    }

    @Test("create, invite by name and by code, list members and invitations, cancel, accept, roles, revoke, leave, delete")
    func wholeFlow() async throws {
        try await HubTestServer.start().use { hub in
            for name in ["ada", "bob", "cy"] { try await hub.addPerson(name) }
            let ada = try await Self.device("ada", hub: hub), bob = try await Self.device("bob", hub: hub), cy = try await Self.device("cy", hub: hub)

            let created = try await ada.call("do", ["action": "create", "name": "Ema"])
            let space = try #require(created["id"]?.stringValue)
            #expect(created["registered"] == true && created["role"] == "owner" && created["name"] == "Ema")
            #expect(try await ada.call("do", ["action": "list"]) == [["id": .string(space), "name": "Ema", "role": "owner", "registered": true]])

            // By name: bob finds it addressed to him. By code: for anyone who holds it.
            let toBob = try await ada.call("do", ["action": "invite", "space": .string(space), "role": "editor", "person": "bob"])
            #expect(toBob["invitee"] == "bob" && toBob["code"]?.stringValue?.count == 24)
            let byCode = try await ada.call("do", ["action": "invite", "space": .string(space), "role": "viewer"])
            #expect(byCode["invitee"] == .null)
            #expect(await Self.refusal(ada, ["action": "invite", "space": .string(space), "role": "editor", "person": "nobody"])?.code == .personNotFound)
            var members = try await ada.call("do", ["action": "members", "space": .string(space)])
            #expect(members["members"]?.arrayValue?.map { $0["name"] } == ["ada"])
            #expect(members["invitations"]?.arrayValue?.count == 2)

            // Cancelled, its code no longer works.
            _ = try await ada.call("do", ["action": "cancel", "space": .string(space), "invitation": byCode["id"]!])
            members = try await ada.call("do", ["action": "members", "space": .string(space)])
            #expect(members["invitations"]?.arrayValue?.map { $0["invitee"] } == ["bob"])
            #expect(await Self.refusal(cy, ["action": "accept-code", "code": byCode["code"]!])?.code == .invitationNotFound)
            // An invitation addressed to bob: cy cannot take it, even with its code.
            #expect(await Self.refusal(cy, ["action": "accept-code", "code": toBob["code"]!])?.code == .notInvitee)

            let forBob = try await bob.call("do", ["action": "invitations"])
            #expect(forBob.arrayValue?.map { "\($0["spaceName"]!.stringValue!) from \($0["inviter"]!.stringValue!)" } == ["Ema from ada"])
            #expect(try await cy.call("do", ["action": "invitations"]) == [])
            let joined = try await bob.call("do", ["action": "accept", "invitation": toBob["id"]!])
            #expect(joined == ["id": .string(space), "name": "Ema", "role": "editor", "registered": true])

            // Records follow membership: ada writes, bob's round brings it.
            _ = try await ada.call("do", ["action": "write", "space": .string(space), "id": "e1", "note": "first tooth"])
            try await ada.advanceClock(by: 3)
            try await bob.advanceClock(by: 3)
            #expect(try await bob.query("SELECT note FROM entries").map { $0["note"].text } == ["first tooth"])

            // The hub's refusals, by name.
            let people = try await ada.call("do", ["action": "members", "space": .string(space)])["members"]?.arrayValue ?? []
            let adaID = try #require(people.first { $0["name"] == "ada" }?["person"]), bobID = try #require(people.first { $0["name"] == "bob" }?["person"])
            #expect(await Self.refusal(bob, ["action": "set-role", "space": .string(space), "person": adaID, "role": "viewer"])?.code == .notOwner)
            #expect(await Self.refusal(ada, ["action": "leave", "space": .string(space)])?.code == .lastOwner)
            #expect(await Self.refusal(ada, ["action": "set-role", "space": .string(space), "person": adaID, "role": "editor"])?.code == .lastOwner)
            #expect(await Self.refusal(ada, ["action": "invite", "space": .string(space), "role": "boss"])?.code == .invalidInput)
            #expect(await Self.refusal(ada, ["action": "members", "space": "6f1c1a52-8d3e-4b7a-9c0d-2e5f7a9b1c3d"])?.code == .spaceNotFound)
            _ = try await ada.call("do", ["action": "set-role", "space": .string(space), "person": bobID, "role": "viewer"])
            #expect(try await bob.call("do", ["action": "list"]).arrayValue?.first?["role"] == "viewer")
            #expect(try await bob.call("do", ["action": "members", "space": .string(space)])["invitations"] == [])

            // Another plugin of the same people never sees or manages this space.
            let other = hub.connection(try await hub.login("ada", device: "laptop"))
            #expect(try await other.spaces(plugin: "test.other").spaces.isEmpty)
            await #expect(throws: SyncClientError(status: 404, code: "space_not_found", message: "no space \(space) that you are a member of")) {
                try await other.deleteSpace(space, plugin: "test.other")
            }

            // Revoked: bob's devices drop the space's records at their next round.
            _ = try await ada.call("do", ["action": "revoke", "space": .string(space), "person": bobID])
            try await bob.advanceClock(by: 900)
            #expect(try await bob.query("SELECT id FROM entries").isEmpty)
            #expect(try await bob.call("do", ["action": "list"]) == [])

            // cy joins by a code, leaves; then ada deletes the space.
            let forCy = try await ada.call("do", ["action": "invite", "space": .string(space), "role": "editor"])
            #expect(try await cy.call("do", ["action": "accept-code", "code": forCy["code"]!])["role"] == "editor")
            _ = try await cy.call("do", ["action": "leave", "space": .string(space)])
            #expect(try await cy.call("do", ["action": "list"]) == [])
            let forBobAgain = try await ada.call("do", ["action": "invite", "space": .string(space), "role": "editor", "person": "bob"])
            _ = try await bob.call("do", ["action": "decline", "invitation": forBobAgain["id"]!])
            #expect(try await bob.call("do", ["action": "invitations"]) == [])
            #expect(await Self.refusal(bob, ["action": "accept-code", "code": forBobAgain["code"]!])?.code == .invitationNotFound)
            _ = try await ada.call("do", ["action": "delete", "space": .string(space)])
            #expect(try await ada.call("do", ["action": "list"]) == [])
            #expect(await Self.refusal(ada, ["action": "invite", "space": .string(space), "role": "editor"])?.code == .spaceDeleted)
            for host in [ada, bob, cy] { await host.stop() }
        }
    }

    @Test("a space created offline is the device's at once and registered, with its name, at the next round; membership changes need the hub")
    func offline() async throws {
        try await HubTestServer.start().use { hub in
            try await hub.addPerson("ada")
            let ada = try await Self.device("ada", hub: hub)
            await hub.server.stop()  // the hub is out of reach from here on

            let created = try await ada.call("do", ["action": "create", "name": "Ema"])
            let space = try #require(created["id"]?.stringValue)
            #expect(created["registered"] == false && created["role"] == "owner")
            _ = try await ada.call("do", ["action": "write", "space": .string(space), "id": "e1", "note": "first tooth"])
            let unreachable = await Self.refusal(ada, ["action": "invite", "space": .string(space), "role": "editor"])
            #expect(unreachable?.code == .hubUnreachable)
            #expect(unreachable?.message.contains("cannot be reached") == true)
            #expect(await Self.refusal(ada, ["action": "list"])?.code == .hubUnreachable)

            let back = try await hub.restartServer()
            try await withCleanup({ await back.stop() }) {
                try await ada.advanceClock(by: 120)  // the round after the failed one registers the space and pushes its record
                let token = try await hub.login("ada", device: "laptop")
                let listed = try await hub.request("GET", "/v1/hub/spaces?plugin=test.spaces", token: token)
                let shared = listed.json?["spaces"]?.arrayValue?.filter { $0["kind"] == "shared" }
                #expect(shared?.map { $0["name"] } == ["Ema"] && shared?.first?["id"]?.stringValue == space)
                #expect(try await ada.call("do", ["action": "list"]) == [["id": .string(space), "name": "Ema", "role": "owner", "registered": true]])
                await ada.stop()
            }
        }
    }

    @Test("without a hub in the deployment a plugin's space calls say so")
    func noHub() async throws {
        let host = try await PluginTestHost(manifest: Self.manifest(), plugin: { SpacesPlugin() },
                                            grants: ["storage": [:], "sync": [:], "notifications": ["spaces": true]])
        #expect(await Self.refusal(host, ["action": "create", "name": "Ema"])?.code == .notLoggedIn)
        await host.stop()
    }
}

extension HubTestServer {
    /// Serves the same hub again on the same port after `server.stop()` (the hub came back); stop
    /// what it returns.
    ///
    /// While the hub was down, its port (from the ephemeral range, as port 0 gave it) may have
    /// become the local port of some other test's outgoing connection; binding is tried again until
    /// that connection ends (up to 30 s), as a restarted server would wait for its port.
    func restartServer() async throws -> HTTPServer {
        var attempt = 0
        while true {
            let again = HTTPServer(host: host, tokens: TokenStore(dataDirectory: dataDirectory),
                                   configuration: HTTPConfiguration(host: "127.0.0.1", port: port, rateLimit: nil), hub: hub)
            do {
                _ = try await again.start()
                again.markReady()
                return again
            } catch let error as HTTPServerError where "\(error)".contains("Address already in use") && attempt < 150 {
                attempt += 1
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}

/// A plugin whose one operation, `do`, runs one ``PluginSpaces`` call (`action`) or writes an entry
/// in a space, and answers with what it got.
final class SpacesPlugin: Plugin {
    struct Args: Decodable, Sendable {
        let action: String
        let name: String?, space: String?, role: String?, person: String?, code: String?, invitation: String?
        let id: String?, note: String?, title: String?, key: String?, at: Double?
        let table: String?, pluginRole: String?
        let priority: String?, messageKey: String?
    }

    var migrations: [StorageMigration] {
        [StorageMigration(version: 1, sql: """
            CREATE TABLE entries (id TEXT PRIMARY KEY, note TEXT NOT NULL DEFAULT '');
            CREATE TABLE children (id TEXT PRIMARY KEY, note TEXT NOT NULL DEFAULT '');
            CREATE TABLE records (id TEXT PRIMARY KEY, note TEXT NOT NULL DEFAULT '');
            """)]
    }

    static func json(_ space: SyncSpace) -> JSONValue {
        var json: JSONValue = ["id": .string(space.id), "name": .string(space.name), "role": .string(space.role.rawValue),
                               "registered": .bool(space.registered)]
        if let pluginRole = space.pluginRole { json = json.setting("pluginRole", .string(pluginRole)) }
        return json
    }

    static func json(_ i: SpaceInvitation) -> JSONValue {
        ["id": .string(i.id), "space": .string(i.space), "spaceName": .string(i.spaceName), "role": .string(i.role.rawValue),
         "invitee": i.invitee.map(JSONValue.string) ?? .null, "inviter": .string(i.inviter), "code": i.code.map(JSONValue.string) ?? .null]
    }

    func start(context: PluginContext) async throws {
        let storage = try context.capability(.storage)
        let spaces: any PluginSpaces = context.isGranted(.sync) ? try context.capability(.sync).spaces : UnsyncedSpaces()
        let notifications = try context.capability(.notifications)
        context.onOperation("do") { call in
            let a: Args
            do { a = try call.input.decode(as: Args.self) } catch { throw PluginError.invalidInput(decoding: error) }
            let space = a.space ?? "", role = SpaceMemberRole(rawValue: a.role ?? "")
            switch a.action {
            case "create": return Self.json(try await spaces.create(name: a.name ?? ""))
            case "list": return .array(try await spaces.list().map(Self.json))
            case "me": return try await spaces.currentPerson().map { ["id": .string($0.id), "name": .string($0.name)] } ?? .null
            case "invite":
                if let pluginRole = a.pluginRole {
                    return Self.json(try await spaces.invite(to: space, role: role, pluginRole: pluginRole, person: a.person, expiresIn: nil))
                        .setting("pluginRole", .string(pluginRole))
                }
                return Self.json(try await spaces.invite(to: space, role: role, person: a.person, expiresIn: nil))
            case "members":
                let m = try await spaces.members(of: space)
                return ["members": .array(m.members.map {
                            ["person": .string($0.person), "name": .string($0.name), "role": .string($0.role.rawValue),
                             "pluginRole": $0.pluginRole.map(JSONValue.string) ?? .null]
                        }),
                        "invitations": .array(m.invitations.map(Self.json))]
            case "cancel": try await spaces.cancelInvitation(a.invitation ?? "", in: space)
            case "invitations": return .array(try await spaces.invitationsForMe().map(Self.json))
            case "accept": return Self.json(try await spaces.accept(invitationID: a.invitation ?? ""))
            case "accept-code": return Self.json(try await spaces.accept(code: a.code ?? ""))
            case "decline": try await spaces.decline(invitationID: a.invitation ?? "")
            case "set-role":
                if a.pluginRole != nil {
                    try await spaces.setRole(role, pluginRole: a.pluginRole, of: a.person ?? "", in: space)
                } else {
                    try await spaces.setRole(role, of: a.person ?? "", in: space)
                }
            case "revoke": try await spaces.revoke(a.person ?? "", from: space)
            case "leave": try await spaces.leave(space)
            case "delete": try await spaces.delete(space)
            case "notify":
                let recipient: NotificationRecipient = a.person == "others" ? .spaceOthers(space) : .space(space)
                let at = Date(timeIntervalSince1970: a.at ?? 0)
                try await notifications.schedule(NotificationRequest(
                    key: a.key ?? "", title: a.title ?? "", body: a.note ?? "",
                    message: a.messageKey.map { NotificationMessage($0, ["at": .instant(at), "far": .meters(1250), "who": .text("ada")]) },
                    priority: a.priority.flatMap(NotificationPriority.init(rawValue:)) ?? .normal,
                    recipient: recipient, schedule: .at(at)))
            case "write":
                try await storage.write { batch in
                    batch.inSpace(space)
                    batch.put(a.table ?? "entries", id: a.id ?? "", ["note": .text(a.note ?? "")])
                }
            case "patch":
                try await storage.write { batch in
                    batch.inSpace(space)
                    batch.patch(a.table ?? "entries", id: a.id ?? "", ["note": .text(a.note ?? "")])
                }
            case "remove":
                try await storage.write { batch in
                    batch.inSpace(space)
                    batch.delete(a.table ?? "entries", id: a.id ?? "")
                }
            default: throw PluginError(.invalidInput, "unknown action '\(a.action)'", field: "$.action")
            }
            return [:]
        }
    }
}

/// What ``SpacesPlugin`` uses where sync is not granted (it still starts, to show the refusals).
struct UnsyncedSpaces: PluginSpaces {
    private var refusal: PluginError { PluginError(.notGranted, "sync is not granted") }
    func create(name: String) async throws -> SyncSpace { throw refusal }
    func list() async throws -> [SyncSpace] { throw refusal }
    func invite(to space: String, role: SpaceMemberRole, person: String?, expiresIn: Int?) async throws -> SpaceInvitation { throw refusal }
    func members(of space: String) async throws -> SpaceMembership { throw refusal }
    func cancelInvitation(_ invitationID: String, in space: String) async throws { throw refusal }
    func invitationsForMe() async throws -> [SpaceInvitation] { throw refusal }
    func accept(invitationID: String) async throws -> SyncSpace { throw refusal }
    func accept(code: String) async throws -> SyncSpace { throw refusal }
    func decline(invitationID: String) async throws { throw refusal }
    func setRole(_ role: SpaceMemberRole, of person: String, in space: String) async throws { throw refusal }
    func revoke(_ person: String, from space: String) async throws { throw refusal }
    func leave(_ space: String) async throws { throw refusal }
    func delete(_ space: String) async throws { throw refusal }
}

extension JSONValue {
    /// This object with `key` set to `value` (anything else unchanged).
    func setting(_ key: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var members) = self else { return self }
        members[key] = value
        return .object(members)
    }
}
