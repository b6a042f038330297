import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraTestFixtures

/// A host that was stopped and dropped is freed, with its databases: a host kept alive by a
/// reference cycle holds about a dozen file descriptors for good (its SQLite files), and a test
/// process that reaches ~1,300 of them trips a Foundation bug in `Process.run()`
/// (swift-corelibs-foundation #5472, fixed after Swift 6.3.1).
@Suite struct HostReleaseTests {
    @Test func aStoppedHostIsReleasedWithOrWithoutPlugins() async throws {
        let ws = FixtureWorkspace("release")
        ws.writeDeployment(plugins: [])
        weak var weakHost: PluginHost?
        do {
            let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(dataDirectory: ws.dataDirectory))
            weakHost = host
            await host.start()
            await host.stop()
        }
        #expect(weakHost == nil, "a host without plugins")
        let withPlugin = FixtureWorkspace("release-plugin")
        withPlugin.addExampleManifest()
        withPlugin.writeDeployment(plugins: [["id": "dev.tessera.example",
                                              "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "notifications": [:] as [String: Any]]]])
        do {
            let host = try PluginHost(deployment: DeploymentReader.read(file: withPlugin.deploymentFile), options: HostOptions(dataDirectory: withPlugin.dataDirectory))
            weakHost = host
            await host.start()
            #expect(host.status(of: "dev.tessera.example")?.state == .active)
            await host.stop()
        }
        #expect(weakHost == nil, "a host that ran the example plugin")
    }
}
