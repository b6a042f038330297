import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// `HostOptions.inProcessPlugins`: a plugin linked into the host's process skips the library gates
/// and nothing else; a library-loaded plugin beside it is checked and loaded as always.
@Suite struct InProcessPluginTests {
    /// Answers `hello` with a greeting; its manifest points at a library that does not exist.
    final class Greeter: Plugin {
        func start(context: PluginContext) async throws {
            context.onOperation("hello") { call in .object(["greeting": .string("hello, \(call.input["name"]?.stringValue ?? "you")")]) }
        }
    }

    @Test func anInProcessPluginServesBesideALibraryLoadedOne() async throws {
        let ws = FixtureWorkspace("inproc")
        ws.addExampleManifest()
        ws.addManifest(id: "test.greeter", library: ws.root + "/no-such-library.so")
        let storageAndClock: [String: Any] = ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]
        ws.writeDeployment(plugins: [entry("test.greeter", grants: [:]), entry("dev.tessera.example", grants: storageAndClock)])
        let deployment = try DeploymentReader.read(file: ws.deploymentFile)
        let host = try PluginHost(deployment: deployment, options: HostOptions(
            dataDirectory: ws.dataDirectory, inProcessPlugins: ["test.greeter": PluginFactory { Greeter() }]))
        await host.start()

        let greeter = try #require(host.status(of: "test.greeter"))
        #expect(greeter.state == .active, "\(greeter.history)")
        #expect(greeter.history.contains("validated: in-process: no library gates"))
        #expect(!greeter.history.contains { $0.contains("gate 1 passed") || $0.hasPrefix("loaded:") })
        #expect(greeter.libraryPath == nil)
        let reply = try await host.call("test.greeter", "hello", input: ["name": "Ada"], as: user)
        #expect(reply["greeting"] == "hello, Ada")
        // Dispatch is unchanged: the operation's schema still guards the in-process plugin.
        let refused = await callError(host, "test.greeter", "hello", ["name": .string(String(repeating: "x", count: 21))])
        #expect(refused?.code == .invalidInput)
        #expect(refused?.field == "$.name")

        let example = try #require(host.status(of: "dev.tessera.example"))
        #expect(example.state == .active, "\(example.history)")
        #expect(example.history.contains { $0.hasPrefix("validated: gate 1 passed") })
        #expect(example.history.contains { $0.hasPrefix("loaded: gates 2 and 3 passed") })
        #expect(!example.history.contains { $0.contains("no library gates") })
        _ = try await host.call("dev.tessera.example", "add-note", input: ["text": "loaded"], as: user)
        await host.stop()
    }

    @Test func withoutTheFactoryTheSamePluginMeetsTheGates() async throws {
        let ws = FixtureWorkspace("inproc-absent")
        let library = ws.root + "/no-such-library.so"
        ws.addManifest(id: "test.greeter", library: library)
        ws.writeDeployment(plugins: [entry("test.greeter", grants: [:])])
        let host = try await startHost(ws)
        let status = try #require(host.status(of: "test.greeter"))
        #expect(status.state == .rejected)
        #expect(status.reason?.contains("\(library) does not exist") == true)
    }
}
