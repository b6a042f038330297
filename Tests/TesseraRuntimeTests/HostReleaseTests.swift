import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// A host that was stopped and dropped is freed, with its databases: a host kept alive by a
/// reference cycle holds about a dozen file descriptors for good (its SQLite files), and a test
/// process that reaches ~1,300 of them trips a Foundation bug in `Process.run()`
/// (swift-corelibs-foundation #5472, fixed after Swift 6.3.1).
///
/// Freed is not enough: until 2026-12-02 the host went but its stores stayed, nine descriptors of
/// each host a process made (`host`, `notifications` and `events`, each with its WAL and shared
/// memory, and the plugin's database when it may emit events): what the host scheduled held its
/// timers, a plugin's handlers held its context, and a plugin's database held the relay of its
/// events, which held the database and the event bus, which held the plugins' slots. The test
/// suite's process held about ten thousand of them at once.
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

    /// Keeps a note: its handler reaches the storage through the context it captured.
    final class Keeper: Plugin {
        func start(context: PluginContext) async throws {
            context.onOperation("hello") { _ in
                _ = try context.capability(.storage)
                return .object([:])
            }
        }
    }

    /// The files under `folder` this process has open.
    static func openFiles(under folder: String) -> [String] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
            .filter { $0.hasPrefix(folder + "/") }.sorted()
    }

    /// Stopped first, or let go running (a test's host that nobody stopped).
    @Test(arguments: [true, false])
    func aHostThatIsLetGoLeavesNoFileOfItsDataDirectoryOpen(stoppedFirst: Bool) async throws {
        let ws = FixtureWorkspace("host-release")
        // Granted events it may emit with its records: the host then hands the storage a relay
        // from the plugin's outbox to its event log, kept across generations.
        ws.addManifest(id: "test.keeper", library: ws.root + "/no-such-library.so") { m in
            m["requires"] = [["capability": "storage", "version": "^1.0"], ["capability": "events", "version": "^1.0"]]
            m["events"] = ["emits": [["name": "kept"]]]
        }
        ws.writeDeployment(plugins: [entry("test.keeper", grants: ["storage": [:] as [String: Any], "events": [:] as [String: Any]])])
        let data = URL(fileURLWithPath: ws.dataDirectory).resolvingSymlinksInPath().path
        weak var released: PluginHost?
        do {
            let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(
                dataDirectory: ws.dataDirectory, inProcessPlugins: ["test.keeper": PluginFactory { Keeper() }]))
            released = host
            await host.start()
            #expect(host.status(of: "test.keeper")?.state == .active)
            _ = try await host.call("test.keeper", "hello", input: [:], as: user)
            #expect(Self.openFiles(under: data).contains { $0.hasSuffix("/host.sqlite") })
            if stoppedFirst { await host.stop() }
        }
        #expect(released == nil)
        // The last references to the stores may go with work of the stop that ends a moment after
        // `stop()` returned (seen once in a few runs): the files are waited for, up to 5 s, a
        // bound on a leak rather than a measurement. With the leak they stay open for good.
        for _ in 0..<500 {
            if Self.openFiles(under: data).isEmpty { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(Self.openFiles(under: data) == [])
    }
}
