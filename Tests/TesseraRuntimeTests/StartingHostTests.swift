import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// Issue 43: between the edge's listen and the host's start, a plugin the deployment enables is
/// "starting" (503, which the edge sends with Retry-After), not "no such plugin" (404).
@Suite struct StartingHostTests {
    @Test func aConfiguredPluginIsStartingUntilTheHostHasStartedIt() async throws {
        let ws = FixtureWorkspace("starting-host")
        ws.addManifest(id: "fixture.good", library: try await PluginBuilder.library(.good))
        ws.writeDeployment(plugins: [entry("fixture.good")])
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(dataDirectory: ws.dataDirectory))
        let early = await callError(host, "fixture.good", "hello", ["name": "ada"])
        #expect(early?.code == .unavailable)
        #expect(early?.message.hasSuffix(PluginError.startingMessageEnding) == true, "\(early?.message ?? "")")
        #expect(await callError(host, "fixture.nobody", "hello", [:])?.code == .notFound)
        await host.start()
        #expect(try await host.call("fixture.good", "hello", input: ["name": "ada"], as: admin)["hello"] == "ada")
        await host.stop()
    }
}
