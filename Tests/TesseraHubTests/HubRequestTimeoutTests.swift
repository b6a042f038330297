import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSyncClient
import TesseraHubFixtures
import TesseraTestFixtures
import TesseraTesting

/// `providers.sync.timeout`: how long one request to the hub waits for an answer. Read from the
/// deployment, carried by the connections the host makes, and a hub that reads the request and
/// never answers fails a login saying so. How long that took
/// is not asserted: under the whole suite's load a 1 s timeout was seen to take 22 s.
@Suite(.hangWatchdog) struct HubRequestTimeoutTests {
    static func deployment(_ ws: FixtureWorkspace, hub: String, timeout: String?) {
        var sync: [String: Any] = ["hub": hub]
        if let timeout { sync["timeout"] = timeout }
        ws.writeDeployment(plugins: [], extra: ["providers": ["storage": ["kind": "sqlite"], "sync": sync,
                                                              "clock": ["kind": "virtual", "start": "2026-03-02T08:00:00Z"]]])
    }

    @Test func theDeploymentSetsHowLongAHubRequestWaits() throws {
        let ws = FixtureWorkspace("hub-timeout-read")
        for (timeout, seconds) in [(nil, 30.0), ("45s", 45), ("2m", 120)] as [(String?, Double)] {
            Self.deployment(ws, hub: "http://127.0.0.1:8430", timeout: timeout)
            #expect(try DeploymentReader.read(file: ws.deploymentFile).sync?.timeoutSeconds == seconds)
        }
        Self.deployment(ws, hub: "http://127.0.0.1:8430", timeout: "soon")
        #expect(throws: ManifestError.self) { try DeploymentReader.read(file: ws.deploymentFile) }
    }

    /// The connection a logged-in device makes carries the deployment's timeout (with the
    /// runtime's 30 s put back, tried, this fails).
    @Test func theLoggedInDevicesConnectionWaitsAsTheDeploymentSays() async throws {
        try await HubTestServer.start().use { hub in
            _ = try await hub.addPerson("ada")
            let ws = FixtureWorkspace("hub-timeout-login")
            Self.deployment(ws, hub: "http://127.0.0.1:\(hub.port)", timeout: "90s")
            let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(dataDirectory: ws.dataDirectory))
            await host.start()
            try await withCleanup({ await host.stop() }) {
                try await host.syncLogin(name: "ada", password: "correct horse battery", device: "laptop")
                #expect(try host.loggedInHubConnection().timeout == 90)
            }
        }
    }

    @Test func aHubThatNeverAnswersFailsALoginSayingSo() async throws {
        let silent = try LoopbackHTTPServer(.hang)
        defer { silent.close() }
        let ws = FixtureWorkspace("hub-timeout")
        Self.deployment(ws, hub: "http://127.0.0.1:\(silent.port)", timeout: "1s")
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(dataDirectory: ws.dataDirectory))
        await host.start()
        try await withCleanup({ await host.stop() }) {
            let error = await #expect(throws: SyncClientError.self) {
                try await host.syncLogin(name: "ada", password: "correct horse battery", device: "laptop")
            }
            #expect(error?.code == "unavailable")
            #expect(error?.message.contains("it did not answer in time") == true, "\(String(describing: error))")
            #expect(!host.isLoggedInToHub)
        }
    }
}
