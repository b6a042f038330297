import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraHubFixtures
import TesseraTestFixtures

/// Sync across the process tier's boundary (docs/isolation.md): a plugin in a child process on
/// two devices of one person, through a real hub. Its spaces calls are answered by the host's sync
/// capability, and the changes another device made reach its `onRemoteChanges` handler in the child.
@Suite(.hangWatchdog) struct ProcessTierSyncTests {
    func device(_ name: String, hub: Int) async throws -> PluginHost {
        let ws = FixtureWorkspace("process-sync-\(name)")
        let anyOp: [String: Any] = ["type": "object"]
        ws.addManifest(id: "fixture.isolated", library: try await PluginBuilder.library(.isolated)) { m in
            m["requires"] = ["storage", "sync"].map { ["capability": $0, "version": "^1.0"] }
            m["sync"] = ["tables": ["shared": [:] as [String: Any]]]
            m["operations"] = ["notes", "share", "sync-calls"].map { ["name": $0, "input": anyOp, "output": [:] as [String: Any]] }
        }
        ws.writeDeployment(plugins: [["id": "fixture.isolated", "isolation": "process",
                                      "grants": ["storage": [:] as [String: Any], "sync": [:] as [String: Any]]]],
                           extra: ["providers": ["storage": ["kind": "sqlite"], "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"],
                                                 "sync": ["hub": "http://127.0.0.1:\(hub)"]]])
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(dataDirectory: ws.dataDirectory))
        await host.start()
        #expect(host.status(of: "fixture.isolated")?.state == .active, "\(host.status(of: "fixture.isolated")?.history ?? [])")
        try await host.syncLogin(name: "ada", password: "correct horse battery", device: name)
        return host
    }

    @Test func spacesAndRemoteChangesCrossTheBoundary() async throws {
        try await HubTestServer.start().use { hub in
            _ = try await hub.addPerson("ada")
            let phone = try await device("phone", hub: hub.port)
            let laptop = try await device("laptop", hub: hub.port)
            let ada = Principal(id: "ada", role: .user)
            #expect(try #require(phone.isolatedProcessID("fixture.isolated")) != getpid())
            // Spaces: answered by the host's sync capability, logged in to the hub.
            let calls = try await phone.call("fixture.isolated", "sync-calls", input: [:], as: ada)
            #expect(calls["conflicts"] == 0 && calls["spaces"]?.arrayValue != nil, "\(calls)")
            // A row written on the phone reaches the laptop's table and its handler in the child.
            _ = try await phone.call("fixture.isolated", "share", input: ["id": "s1", "text": "first tooth"], as: ada)
            _ = try await phone.syncNow("fixture.isolated")
            _ = try await laptop.syncNow("fixture.isolated")
            let notes = try await laptop.call("fixture.isolated", "notes", input: [:], as: ada)
            let told = (notes.arrayValue ?? []).filter { $0["id"]?.stringValue?.hasPrefix("remote:") == true }.compactMap { $0["text"]?.stringValue }
            #expect(told == ["shared/s1"], "\(notes)")
            await phone.stop()
            await laptop.stop()
        }
    }
}
