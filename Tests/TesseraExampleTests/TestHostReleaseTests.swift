import Foundation
import Testing
@testable import TesseraExample
import TesseraTesting

/// A plugin test host that was stopped is freed, with its host and their open files.
@Suite struct TestHostReleaseTests {
    @Test func aStoppedTestHostIsReleased() async throws {
        weak var weakHost: AnyObject?
        weak var weakTestHost: PluginTestHost?
        do {
            let host = try await PluginTestHost(manifest: ExamplePluginTests.manifest, plugin: { ExamplePlugin() })
            weakTestHost = host
            weakHost = host.host
            _ = try await host.call("add-note", ["text": "x"])
            await host.stop()
        }
        #expect(weakTestHost == nil, "PluginTestHost")
        #expect(weakHost == nil, "its PluginHost")
    }
}
