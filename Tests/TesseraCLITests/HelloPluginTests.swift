import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The smallest plugin (Plugins/Hello), loaded for real — staged, checked, `dlopen`ed — by the
/// `tessera` executable, as the load benchmark loads it.
@Suite struct HelloPluginTests {
    @Test func greetingsAreCountedAcrossProcesses() async throws {
        let ws = FixtureWorkspace("cli-hello")
        let manifest = Fixtures.repositoryRoot + "/Plugins/Hello/manifest.json"
        Fixtures.write(try String(contentsOfFile: manifest, encoding: .utf8), to: ws.root + "/hello.json")
        ws.writeDeployment(plugins: [["id": "dev.tessera.hello", "grants": ["storage": [:] as [String: Any]]]])
        func greet(_ name: String) async throws -> JSONValue {
            let result = try await runDetached(Fixtures.tesseraExecutable, ["call", "dev.tessera.hello", "greet", #"{"name": "\#(name)"}"#,
                                                                             "--deployment", ws.deploymentFile, "--data", ws.dataDirectory])
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONValue(parsing: result.stdout)
        }
        #expect(try await greet("Ada") == ["greeting": "Hello, Ada!", "count": 1])
        #expect(try await greet("Ada")["count"] == 2)
        #expect(try await greet("Grace")["count"] == 1)
    }
}
