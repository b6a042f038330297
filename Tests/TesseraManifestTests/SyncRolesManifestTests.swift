import Foundation
import Testing
import TesseraManifest
import TesseraSDK
import TesseraTestFixtures

/// `sync.roles` in a manifest (docs/sync.md, "Per-plugin roles") and the hub's `providers.mail`
/// and `hub.registration` in a deployment: read, and refused by the member at fault.
@Suite struct SyncRolesManifestTests {
    /// The example manifest with three synced tables and `roles` as given.
    static func manifest(roles: JSONValue) throws -> JSONValue {
        guard case .object(var doc) = try ManifestTests.valid() else { throw NotAnObject() }
        doc["requires"] = .array((doc["requires"]?.arrayValue ?? []) + [["capability": "sync", "version": "^1.0"]])
        doc["sync"] = ["tables": ["children": [:], "records": ["keepConflicts": ["note"]], "photos": [:]], "roles": roles]
        return .object(doc)
    }

    struct NotAnObject: Error {}

    static let guardian: JSONValue = ["hubRole": "editor", "tables": ["children": "none", "records": "own"]]

    @Test("roles are read: the hub role each stands on, and the access per table")
    func read() throws {
        let manifest = try ManifestReader.decode(try Self.manifest(roles: ["parent": ["hubRole": "editor"], "guardian": Self.guardian]), file: "m.json")
        #expect(manifest.syncRoles["parent"] == SyncRoleDeclaration(hubRole: "editor", tables: [:]))
        #expect(manifest.syncRoles["guardian"] == SyncRoleDeclaration(hubRole: "editor", tables: ["children": "none", "records": "own"]))
        #expect(SyncRoleDeclaration.json(manifest.syncRoles)["guardian"]?["tables"]?["records"] == "own")
    }

    @Test("refused by the member at fault: a table that does not sync, an unknown access, a hub role that is not one, a bad role name",
          arguments: [
            (["guardian": ["hubRole": "editor", "tables": ["diary": "own"]]] as JSONValue, "$.sync.roles.guardian.tables.diary"),
            (["guardian": ["hubRole": "editor", "tables": ["records": "maybe"]]] as JSONValue, "$.sync.roles.guardian.tables.records"),
            (["guardian": ["hubRole": "admin"]] as JSONValue, "$.sync.roles.guardian.hubRole"),
            (["Guardian": ["hubRole": "editor"]] as JSONValue, "$.sync.roles"),
            (["guardian": ["tables": ["records": "own"]]] as JSONValue, "$.sync.roles.guardian.hubRole"),
          ])
    func refused(roles: JSONValue, path: String) throws {
        let error = try #require(throws: ManifestError.self) { try ManifestReader.decode(try Self.manifest(roles: roles), file: "m.json") }
        #expect(error.path.hasPrefix(path), "\(error)")
    }

    @Test("a hub's mail server and open registration; a password in the file, or no sender, is refused")
    func hubMailAndRegistration() throws {
        let ws = FixtureWorkspace("hub-mail")
        let mail: [String: Any] = ["kind": "smtp", "host": "127.0.0.1", "port": 2525, "from": "hub@example.org", "passwordEnv": "SMTP_PASSWORD"]
        ws.writeDeployment(plugins: [], extra: ["role": "hub", "hub": ["registration": "open"],
                                                "providers": ["clock": ["kind": "system"], "mail": mail]])
        let deployment = try DeploymentReader.read(file: ws.deploymentFile)
        #expect(deployment.mail?.host == "127.0.0.1" && deployment.mail?.port == 2525 && deployment.mail?.from == "hub@example.org")
        #expect(deployment.mail?.passwordEnv == "SMTP_PASSWORD" && deployment.mail?.usernameEnv == nil)
        #expect(deployment.hubRegistrationOpen)
        for bad in [mail.merging(["password": "hunter22"]) { $1 }, mail.filter { $0.key != "from" }] {
            ws.writeDeployment(plugins: [], extra: ["role": "hub", "providers": ["clock": ["kind": "system"], "mail": bad]])
            #expect(throws: ManifestError.self) { try DeploymentReader.read(file: ws.deploymentFile) }
        }
        let closed = try DeploymentReader.read(file: Fixtures.repositoryRoot + "/manifests/deployments/hub.json")
        #expect(!closed.hubRegistrationOpen && closed.mail == nil)
    }
}
