import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// A refused plugin's reason is one an operator can act on: it names the file they wrote and what
/// is wrong with it, never an internal copy.
@Suite struct RefusalReasonTests {
    @Test func aManifestThatIsNotJSONShowsItsParseErrorForThePluginItNamed() async throws {
        let ws = FixtureWorkspace("refusal-not-json")
        Fixtures.write(#"{"id": "test.broken", "name": "Broken", "version": "1.0.0",,}"#, to: ws.root + "/broken.json")
        ws.writeDeployment(plugins: [entry("test.broken")])
        let host = try await startHost(ws, depth: .validated)
        let status = try #require(host.status(of: "test.broken"))
        #expect(status.state == .rejected)
        let reason = status.reason ?? ""
        #expect(reason.contains("broken.json"), "\(reason)")
        #expect(reason.contains("JSON"), "the parse error is shown: \(reason)")
        #expect(status.json["reason"]?.stringValue == reason, "GET /v1/plugins and plugins list/why show the same reason")
    }

    @Test func aGateRefusalNamesTheOperatorsLibraryNotItsStagedCopy() async throws {
        let ws = FixtureWorkspace("refusal-gate-path")
        let library = ws.root + "/libBroken.so"
        Fixtures.write("not a shared library", to: library)
        ws.addManifest(id: "test.gate", library: library)
        ws.writeDeployment(plugins: [entry("test.gate")])
        let host = try await startHost(ws)  // all the way: the library is staged before the gates
        let status = try #require(host.status(of: "test.gate"))
        #expect(status.state == .rejected)
        let reason = status.reason ?? ""
        #expect(reason.contains("gate 1"), "\(reason)")
        #expect(reason.contains(library), "names the operator's file: \(reason)")
        #expect(!reason.contains("/generations/"), "not the staged copy: \(reason)")
        await host.stop()
    }
}
