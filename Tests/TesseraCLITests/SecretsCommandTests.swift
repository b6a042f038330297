import Foundation
import Testing
import TesseraSDK
import TesseraSecrets
import TesseraTestFixtures

/// `tessera secrets list|remove` against a data directory whose store a plugin filled.
@Suite struct SecretsCommandTests {
    let ws: FixtureWorkspace

    init() {
        ws = FixtureWorkspace("cli-secrets")
        ws.addExampleManifest()
        ws.writeDeployment(plugins: [["id": "dev.tessera.example", "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any]]]])
    }

    func tessera(_ arguments: String...) async throws -> ProcessResult {
        try await runDetached(Fixtures.tesseraExecutable, arguments + ["--deployment", ws.deploymentFile, "--data", ws.dataDirectory])
    }

    @Test func namesAreListedAndValuesNeverShown() async throws {
        try FileManager.default.createDirectory(atPath: ws.dataDirectory, withIntermediateDirectories: true)
        let store = try SecretStore(path: ws.dataDirectory + "/secrets.sqlite")
        try store.set(plugin: "cz.tessera.finance", name: "fio-token", value: "VALUE-123", at: Date(timeIntervalSince1970: 1_767_225_600))
        try store.set(plugin: "cz.tessera.stag", name: "ticket", value: "VALUE-456", at: Date(timeIntervalSince1970: 1_767_225_600))
        let listed = try await tessera("secrets", "list")
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("cz.tessera.finance fio-token"))
        #expect(listed.stdout.contains("cz.tessera.stag ticket"))
        #expect(!listed.stdout.contains("VALUE-"))
        let json = try await tessera("secrets", "list", "cz.tessera.stag", "--json")
        #expect(try JSONValue(parsing: json.stdout).arrayValue?.compactMap { $0["name"]?.stringValue } == ["ticket"])
        #expect(!json.stdout.contains("VALUE-"))

        let removed = try await tessera("secrets", "remove", "cz.tessera.stag", "ticket")
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(try store.value(plugin: "cz.tessera.stag", name: "ticket") == nil)
        let again = try await tessera("secrets", "remove", "cz.tessera.stag", "ticket")
        #expect(again.status == 3)
        #expect(again.stderr.contains("has no secret named 'ticket'"))
    }
}
