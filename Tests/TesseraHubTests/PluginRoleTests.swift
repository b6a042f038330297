import Foundation
import Testing
import TesseraHTTP
import TesseraSDK
import TesseraRuntime
import TesseraSync
import TesseraSyncClient
import TesseraHubFixtures
import TesseraTestFixtures
import TesseraTesting

/// Per-plugin roles per table (docs/sync.md, "Per-plugin roles"): a baby-diary-like plugin whose
/// `guardian` may not touch `children` and changes only the `records` it created. Three device
/// hosts (ada the owner, bob a guardian, cy a parent) with ``SpacesPlugin`` and a real hub; the
/// device refuses offline what the hub would, and the hub refuses a hand-made push.
@Suite("Per-plugin roles per table, at the hub and on the device", .hangWatchdog)
struct PluginRoleTests {
    static let roles = #"""
    "roles": {
      "parent": {"hubRole": "editor"},
      "guardian": {"hubRole": "editor", "tables": {"children": "none", "records": "own"}}
    }
    """#

    /// ``PluginSpacesTests/manifest(id:sync:)`` with three synced tables and the two roles.
    static func manifest() -> String {
        let dir = Fixtures.temporaryDirectory("roles-manifest")
        Fixtures.write("""
        {
          "id": "test.roles", "name": "Roles", "version": "1.0.0",
          "sdk": {"abi": "1.10", "toolchain": "6.3.1"}, "library": {"name": "Spaces"},
          "requires": [{"capability": "storage", "version": "^1.0"}, {"capability": "sync", "version": "^1.0"},
                       {"capability": "notifications", "version": "^1.0"}],
          "permissions": {"notifications": {"spaces": true}},
          "sync": {"tables": {"entries": {}, "children": {}, "records": {}}, \(roles)},
          "operations": [{"name": "do", "input": {"type": "object"}, "output": {}}]
        }
        """, to: dir + "/roles.json")
        return dir + "/roles.json"
    }

    static func device(_ person: String, hub: HubTestServer) async throws -> PluginTestHost {
        let host = try await PluginTestHost(manifest: manifest(), plugin: { SpacesPlugin() },
                                            grants: ["storage": [:], "sync": [:], "notifications": ["spaces": true]],
                                            syncHub: "http://127.0.0.1:\(hub.port)")
        try await host.host.syncLogin(name: person, password: "correct horse battery", device: "\(person)'s phone")
        return host
    }

    static func notes(_ host: PluginTestHost, _ table: String) async throws -> [String] {
        try await host.query("SELECT id, note FROM \(table) ORDER BY id").map { "\($0["id"].text ?? ""): \($0["note"].text ?? "")" }
    }

    /// `times` steps in which every device, in order, moves 900 s on and runs its rounds. The
    /// clocks move in lockstep: a device more than 5 minutes ahead of another would have its
    /// changes refused there as clock drift. Two steps bring every change to every member.
    static func rounds(_ hosts: [PluginTestHost], times: Int = 2) async throws {
        for _ in 0..<times {
            for host in hosts { _ = try await host.advanceClock(by: 900) }
        }
    }

    @Test("a guardian writes and edits its own records, is refused another's record and the children table on the device and at the hub; a role change; revoke drops the space on its device only",
          arguments: HubBackend.available)
    func guardian(backend: HubBackend) async throws {
        try await HubTestServer.start(backend).use { hub in
            for name in ["ada", "bob", "cy"] { try await hub.addPerson(name) }
            let ada = try await Self.device("ada", hub: hub), bob = try await Self.device("bob", hub: hub), cy = try await Self.device("cy", hub: hub)
            let all = [ada, bob, cy]
            let space = try #require(try await ada.call("do", ["action": "create", "name": "Ema"])["id"])
            _ = try await ada.call("do", ["action": "write", "space": space, "table": "children", "id": "ema", "note": "born 2026-03-02"])
            _ = try await ada.call("do", ["action": "write", "space": space, "table": "records", "id": "r-ada", "note": "fed at 7"])

            // A plugin role must exist in the space's rules and stand on the hub role given.
            let unknown = await PluginSpacesTests.refusal(ada, ["action": "invite", "space": space, "role": "editor", "pluginRole": "nanny", "person": "bob"])
            #expect(unknown?.code == .invalidInput && unknown?.field == "$.pluginRole")
            let mismatch = await PluginSpacesTests.refusal(ada, ["action": "invite", "space": space, "role": "viewer", "pluginRole": "guardian", "person": "bob"])
            #expect(mismatch?.code == .invalidInput && mismatch?.field == "$.role")

            let toBob = try await ada.call("do", ["action": "invite", "space": space, "role": "editor", "pluginRole": "guardian", "person": "bob"])
            let toCy = try await ada.call("do", ["action": "invite", "space": space, "role": "editor", "pluginRole": "parent", "person": "cy"])
            #expect(try await bob.call("do", ["action": "invitations"]).arrayValue?.count == 1)
            let joined = try await bob.call("do", ["action": "accept", "invitation": toBob["id"]!])
            #expect(joined["pluginRole"] == "guardian" && joined["role"] == "editor")
            _ = try await cy.call("do", ["action": "accept", "invitation": toCy["id"]!])
            let members = try await ada.call("do", ["action": "members", "space": space])["members"]?.arrayValue ?? []
            #expect(members.map { "\($0["name"]!.stringValue!): \($0["pluginRole"]?.stringValue ?? "-")" } == ["ada: -", "bob: guardian", "cy: parent"])
            try await Self.rounds(all)
            #expect(try await Self.notes(bob, "records") == ["r-ada: fed at 7"])

            // Offline (the hub is down): bob's own record is written and edited; another's record
            // and the children table are refused by name, and nothing of those batches is written.
            await hub.server.stop()
            _ = try await bob.call("do", ["action": "write", "space": space, "table": "records", "id": "r-bob", "note": "slept 2 h"])
            _ = try await bob.call("do", ["action": "patch", "space": space, "table": "records", "id": "r-bob", "note": "slept 3 h"])
            let notMine = await PluginSpacesTests.refusal(bob, ["action": "patch", "space": space, "table": "records", "id": "r-ada", "note": "fed at 8"])
            #expect(notMine?.code == .notRowCreator)
            #expect(await PluginSpacesTests.refusal(bob, ["action": "remove", "space": space, "table": "records", "id": "r-ada"])?.code == .notRowCreator)
            let readOnly = await PluginSpacesTests.refusal(bob, ["action": "write", "space": space, "table": "children", "id": "ema", "note": "renamed"])
            #expect(readOnly?.code == .tableReadOnly)
            #expect(await PluginSpacesTests.refusal(bob, ["action": "write", "space": space, "table": "children", "id": "twin", "note": "new"])?.code == .tableReadOnly)
            #expect(try await Self.notes(bob, "records") == ["r-ada: fed at 7", "r-bob: slept 3 h"])
            #expect(try await Self.notes(bob, "children") == ["ema: born 2026-03-02"])
            let back = try await hub.restartServer()
            try await withCleanup({ await back.stop() }) {
                try await Self.rounds(all)
                #expect(try await Self.notes(ada, "records") == ["r-ada: fed at 7", "r-bob: slept 3 h"])
                #expect(try await Self.notes(cy, "records") == ["r-ada: fed at 7", "r-bob: slept 3 h"])

                // The hub is the authority: a hand-made push (no device check) is refused change by change.
                let bobToken = try await hub.login("bob", device: "bob's script")
                let connection = hub.connection(bobToken)
                // At the devices' time (they are months behind the hub's clock): later than every write so far.
                let at = try HLCTimestamp(millis: Int64(bob.now.timeIntervalSince1970 * 1000), counter: 0, node: HLCNode(0xB0B))
                let spaceID = try #require(space.stringValue)
                let pushed = try await connection.push(plugin: "test.roles", changes: [
                    SyncChange(space: spaceID, table: "children", row: "twin", causalLength: 1, timestamp: at, kind: .existence),
                    SyncChange(space: spaceID, table: "records", row: "r-ada", causalLength: 1, timestamp: at,
                               kind: .cell(column: "note", value: .text("fed at 9"), supersedes: [])),
                    SyncChange(space: spaceID, table: "records", row: "r-bob", causalLength: 1, timestamp: at,
                               kind: .cell(column: "note", value: .text("slept 4 h"), supersedes: [])),
                ])
                #expect(pushed.rejected.map { "\($0.table)/\($0.row): \($0.reason)" } == ["children/twin: table_read_only", "records/r-ada: not_row_creator"])
                #expect(pushed.accepted == 1)
                try await Self.rounds(all)
                #expect(try await Self.notes(ada, "records") == ["r-ada: fed at 7", "r-bob: slept 4 h"])
                #expect(try await Self.notes(ada, "children") == ["ema: born 2026-03-02"])

                // A parent writes every table.
                _ = try await cy.call("do", ["action": "patch", "space": space, "table": "records", "id": "r-bob", "note": "slept 4 h, then fed"])
                _ = try await cy.call("do", ["action": "write", "space": space, "table": "children", "id": "ema", "note": "Ema, born 2026-03-02"])

                // A role change: bob becomes a parent, and after his next round edits ada's record too.
                let bobID = try #require(members.first { $0["name"] == "bob" }?["person"])
                _ = try await ada.call("do", ["action": "set-role", "space": space, "person": bobID, "role": "editor", "pluginRole": "parent"])
                try await Self.rounds(all)
                #expect(try await bob.call("do", ["action": "list"]).arrayValue?.first?["pluginRole"] == "parent")
                _ = try await bob.call("do", ["action": "patch", "space": space, "table": "records", "id": "r-ada", "note": "fed at 8 (bob)"])
                try await Self.rounds(all)
                #expect(try await Self.notes(ada, "records") == ["r-ada: fed at 8 (bob)", "r-bob: slept 4 h, then fed"])
                #expect(try await Self.notes(ada, "children") == ["ema: Ema, born 2026-03-02"])

                // Revoked: bob's device drops the child's data; what he wrote stays with the others.
                _ = try await ada.call("do", ["action": "revoke", "space": space, "person": bobID])
                try await Self.rounds(all)
                #expect(try await Self.notes(bob, "records").isEmpty)
                #expect(try await Self.notes(bob, "children").isEmpty)
                #expect(try await Self.notes(ada, "records") == ["r-ada: fed at 8 (bob)", "r-bob: slept 4 h, then fed"])
                #expect(try await Self.notes(cy, "records") == ["r-ada: fed at 8 (bob)", "r-bob: slept 4 h, then fed"])
                let adaToken = try await hub.login("ada", device: "ada's script")
                let fresh = try await hub.connection(adaToken)
                    .pull(plugin: "test.roles", after: 0, space: spaceID)
                #expect(fresh.changes.contains { $0.row == "r-bob" && $0.kind == .existence })
                for host in [ada, bob, cy] { await host.stop() }
            }
        }
    }
}
