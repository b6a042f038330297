import Foundation
import Testing
import TesseraPluginTesting
import TesseraSDK
import TesseraTestFixtures

/// The SDK's `HostedPlugin`, the harness `tessera new-plugin` wires into a plugin's tests: this
/// build's `tessera` runs the example plugin's built library, in either tier, on a virtual clock of
/// the test's own. (The generated package's own tests run on it in `NewPluginTests` and
/// `SDKExportTests`.)
@Suite struct HostedPluginTests {
    static let manifest = Fixtures.repositoryRoot + "/manifests/example.json"

    func host(_ tier: String, grants: [String: JSONValue]? = nil) async throws -> HostedPlugin {
        try await HostedPlugin(manifest: Self.manifest, grants: grants, library: Fixtures.buildDirectory,
                               isolation: tier, tessera: Fixtures.tesseraExecutable)
    }

    @Test(arguments: ["inProcess", "process"])
    func aReminderIsDeliveredOnceTheVirtualClockReachesIt(tier: String) async throws {
        let host = try await host(tier)
        // The tier asked for is the one the host runs it in (a child process has a pid).
        let listed = try await runDetached(Fixtures.tesseraExecutable, ["plugins", "list", "--start", "--json", "--deployment",
                                                                        host.directory + "/deployment.json", "--data", host.directory + "/data"])
        let isolation = try JSONValue(parsing: listed.stdout).arrayValue?.first?["isolation"]
        #expect((isolation?["pid"] != nil) == (tier == "process"), "\(listed.stdout)")
        let reminder = try await host.call("remind", ["text": "stretch", "in": "2h"])
        #expect(reminder["at"] == "2026-01-01T02:00:00Z", "\(reminder)")
        try await host.advanceClock(by: "1h")
        #expect(try await host.deliveredNotifications().isEmpty)
        try await host.advanceClock(bySeconds: 3600)
        let delivered = try await host.deliveredNotifications()
        #expect(delivered.map { $0["title"] } == ["stretch"], "\(delivered)")
        // Each test's data is its own: a second host starts empty, at the same time.
        let other = try await self.host(tier)
        #expect(try await other.call("list-reminders")["reminders"]?.arrayValue?.isEmpty == true)
        #expect(try await other.deliveredNotifications().isEmpty)
        other.stop()
        host.stop()
        #expect(!FileManager.default.fileExists(atPath: host.directory), "stop removes the deployment and the data")
    }

    @Test func aRefusalIsTheHostsPluginError() async throws {
        let host = try await host("inProcess")
        let refusal = await #expect(throws: PluginError.self) { try await host.call("add-note", ["text": ""]) }
        #expect(refusal?.code == .invalidInput && refusal?.field == "$.text", "\(String(describing: refusal))")
        let unknown = await #expect(throws: PluginError.self) { try await host.call("no-such-operation") }
        #expect(unknown?.code == .notFound, "\(String(describing: unknown))")
        host.stop()
    }

    @Test func aPluginThatDoesNotBecomeActiveSaysWhy() async throws {
        // A grant the manifest does not ask for: the host rejects the deployment's entry.
        let error = await #expect(throws: HostedPluginError.self) {
            _ = try await host("inProcess", grants: ["storage": [:], "clock": [:], "location": [:]])
        }
        #expect(error?.description.contains("did not become active: it is rejected: grant exceeds the manifest") == true,
                "\(String(describing: error))")
        let missing = await #expect(throws: HostedPluginError.self) {
            _ = try await HostedPlugin(manifest: Self.manifest, library: Fixtures.buildDirectory, tessera: "/nonexistent/tessera")
        }
        #expect(missing?.description.contains("cannot run /nonexistent/tessera") == true, "\(String(describing: missing))")
    }
}
