import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The smallest plugin (Plugins/Hello), loaded for real — staged, checked, `dlopen`ed — by the
/// `tessera` executable, as the load benchmark loads it.
@Suite struct HelloPluginTests {
    @Test func greetingsAreCountedAcrossProcesses() throws {
        let ws = FixtureWorkspace("cli-hello")
        let manifest = Fixtures.repositoryRoot + "/Plugins/Hello/manifest.json"
        Fixtures.write(try String(contentsOfFile: manifest, encoding: .utf8), to: ws.root + "/hello.json")
        ws.writeDeployment(plugins: [["id": "dev.tessera.hello", "grants": ["storage": [:] as [String: Any]]]])
        func greet(_ name: String) throws -> JSONValue {
            let result = try run(Fixtures.tesseraExecutable, ["call", "dev.tessera.hello", "greet", #"{"name": "\#(name)"}"#,
                                                               "--deployment", ws.deploymentFile, "--data", ws.dataDirectory])
            #expect(result.status == 0, "\(result.stderr)")
            return try JSONValue(parsing: result.stdout)
        }
        #expect(try greet("Ada") == ["greeting": "Hello, Ada!", "count": 1])
        #expect(try greet("Ada")["count"] == 2)
        #expect(try greet("Grace")["count"] == 1)
    }
}
