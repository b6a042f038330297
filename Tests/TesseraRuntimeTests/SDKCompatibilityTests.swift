import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// The SDK changes by additions only, so a plugin built against an earlier SDK keeps working:
/// a library built before the host-only context members moved to SPI (Fixtures/sdk-1.3) passes the
/// three gates, starts, and serves through the host's new dispatch path — on a host whose SDK is
/// several minor versions ahead (1.10), as the version rule allows.
@Suite struct SDKCompatibilityTests {
    @Test func aLibraryBuiltBeforeTheHostOnlyMembersMovedStillLoadsAndServes() async throws {
        let ws = FixtureWorkspace("sdk-1.3-hello")
        let library = Fixtures.repositoryRoot + "/Tests/TesseraRuntimeTests/Fixtures/sdk-1.3/libTesseraHello.so"
        let manifest = try String(contentsOfFile: Fixtures.repositoryRoot + "/Plugins/Hello/manifest.json", encoding: .utf8)
            .replacingOccurrences(of: #""library": { "name": "TesseraHello" }"#, with: #""library": { "path": "\#(library)" }"#)
            .replacingOccurrences(of: #""abi": "\#(SDKVersion.loadedMajor).\#(SDKVersion.loadedMinor)""#, with: #""abi": "1.3""#)
        #expect(manifest.contains(library) && manifest.contains(#""abi": "1.3""#), "the manifest describes the 1.3 build")
        Fixtures.write(manifest, to: ws.root + "/hello.json")
        ws.writeDeployment(plugins: [entry("dev.tessera.hello")])
        let host = try await startHost(ws)
        let status = try #require(host.status(of: "dev.tessera.hello"))
        #expect(status.state == .active, "\(status.reason ?? "")")
        #expect(status.stampedABI == "1.3")
        #expect(try await host.call("dev.tessera.hello", "greet", input: ["name": "Ada"], as: user) == ["greeting": "Hello, Ada!", "count": 1])
        await host.stop()
    }
}
