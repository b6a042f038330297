import Foundation
import Testing
import TesseraManifest
import TesseraSDK
import TesseraSchema
import TesseraTestFixtures

@Suite struct ManifestTests {
    static func valid() throws -> JSONValue {
        try JSONValue(parsing: String(contentsOfFile: Fixtures.exampleManifest, encoding: .utf8))
    }

    static let required = ["id", "name", "version", "sdk", "library", "requires", "permissions", "operations"]

    @Test func theShippedManifestsAndDeploymentsAreValid() throws {
        let manifest = try ManifestReader.read(file: Fixtures.exampleManifest)
        #expect(manifest.id == "dev.tessera.example")
        #expect(manifest.operations.map(\.name).contains("add-note"))
        #expect(manifest.jobs.map(\.name) == ["daily-summary"])
        #expect(manifest.jobs.map(\.everySeconds) == [86_400])
        let deployment = try DeploymentReader.read(file: Fixtures.repositoryRoot + "/manifests/deployments/default.json")
        #expect(deployment.plugins.map(\.id).contains("dev.tessera.example"))
        #expect(deployment.httpHost == "127.0.0.1")
    }

    @Test("a hub's store: SQLite unless the deployment names PostgreSQL; its password only by variable name")
    func hubStoreProvider() throws {
        let embedded = try DeploymentReader.read(file: Fixtures.repositoryRoot + "/manifests/deployments/hub.json")
        #expect(embedded.hubStore == .sqlite)
        let shared = try DeploymentReader.read(file: Fixtures.repositoryRoot + "/manifests/deployments/hub-postgresql.json")
        guard case .postgresql(let settings) = shared.hubStore else { Issue.record("not PostgreSQL"); return }
        #expect(settings.database == "tessera_hub" && settings.port == 5432 && settings.passwordEnv == "TESSERA_HUB_DB_PASSWORD")
        // A password written into the file is refused (no such field), as is an unknown kind.
        let ws = FixtureWorkspace("hub-store")
        for store in [["kind": "postgresql", "password": "hunter22"], ["kind": "mysql"]] {
            ws.writeDeployment(plugins: [], extra: ["role": "hub", "providers": ["clock": ["kind": "system"], "hubStore": store]])
            #expect(throws: ManifestError.self) { try DeploymentReader.read(file: ws.deploymentFile) }
        }
    }

    /// Issue 43: several missing fields are named in one error, not one per run.
    @Test func everyMissingFieldIsNamedAtOnce() throws {
        guard case .object(var doc) = try Self.valid() else { Issue.record("the valid manifest is an object"); return }
        doc["version"] = nil
        doc["library"] = nil
        doc["operations"] = nil
        let error = try #require(throws: ManifestError.self) { try ManifestReader.decode(.object(doc), file: "m.json") }
        for field in ["$.version", "$.library", "$.operations"] {
            #expect(error.description.contains(field), "\(error.description) should name \(field)")
        }
        #expect(error.more.count == 2)
    }

    @Test(arguments: required)
    func missingRequiredFieldIsNamed(_ field: String) throws {
        guard case .object(var doc) = try Self.valid() else { return }
        doc[field] = nil
        let error = try #require(throws: ManifestError.self) { try ManifestReader.decode(.object(doc), file: "m.json") }
        #expect(error.file == "m.json")
        #expect(error.path == "$.\(field)")
        #expect(error.found == "missing")
        #expect(error.description.hasPrefix("m.json: $.\(field): expected"))
    }

    static let mistyped: [(String, JSONValue)] = [
        ("id", 5), ("name", ["x"]), ("version", "1.0"), ("sdk", "1.0"), ("library", [:]), ("requires", [:]),
        ("permissions", []), ("operations", "add-note"),
    ]

    @Test(arguments: mistyped.map(\.0))
    func mistypedFieldIsNamedWithWhatWasFound(_ field: String) throws {
        guard case .object(var doc) = try Self.valid() else { return }
        let bad = Self.mistyped.first { $0.0 == field }!.1
        doc[field] = bad
        let error = try #require(throws: ManifestError.self) { try ManifestReader.decode(.object(doc), file: "m.json") }
        #expect(error.path.hasPrefix("$.\(field)"))
        #expect(!error.expected.isEmpty)
        #expect(error.found != "missing")
    }

    @Test func rulesBeyondTheSchema() throws {
        guard case .object(let base) = try Self.valid() else { return }
        func error(_ edit: (inout [String: JSONValue]) -> Void) throws -> ManifestError {
            var doc = base
            edit(&doc)
            return try #require(throws: ManifestError.self) { try ManifestReader.decode(.object(doc), file: "m.json") }
        }
        let range = try error { $0["requires"] = [["capability": "storage", "version": "^^1"]] }
        #expect(range.path == "$.requires[0].version")
        let permission = try error { $0["permissions"] = ["network": ["hosts": ["x"]], "storage": [:], "clock": [:]] }
        #expect(permission.path == "$.permissions.network")
        let duplicate = try error {
            let op = $0["operations"]!.arrayValue![0]
            $0["operations"] = [op, op]
        }
        #expect(duplicate.path == "$.operations[1].name")
        let schema = try error {
            $0["operations"] = [["name": "x", "input": ["type": "object", "frobnicate": true], "output": [:]]]
        }
        #expect(schema.path == "$.operations[0].input")
        #expect(schema.found.contains("frobnicate"))
        let job = try error { $0["jobs"] = [["name": "j", "every": "0s"]] }
        #expect(job.path == "$.jobs[0].every")
    }

    /// An operation open to capability links takes only the link's token (docs/http.md, "Capability links").
    @Test func aLinkOperationTakesOnlyTheToken() throws {
        guard case .object(let base) = try Self.valid() else { return }
        let token: JSONValue = ["type": "object", "additionalProperties": false, "required": ["token"],
                                "properties": ["token": ["type": "string", "pattern": "^[A-Za-z0-9_-]{32}$"]]]
        func decode(_ input: JSONValue, file: JSONValue? = nil) throws -> PluginManifest {
            var doc = base
            var op: [String: JSONValue] = ["name": "view", "roles": ["link"], "input": input, "output": ["type": "object"]]
            if let file { op["file"] = file }
            doc["operations"] = [.object(op)]
            return try ManifestReader.decode(.object(doc), file: "m.json")
        }
        #expect(try decode(token).operation(named: "view")?.roles == [.link])
        var more = token
        if case .object(var members) = token { members["properties"] = ["token": ["type": "string"], "page": ["type": "integer"]]; more = .object(members) }
        let refused: [(input: JSONValue, file: JSONValue?)] = [(more, nil), (["type": "object"], nil), (token, "download")]
        for (input, file) in refused {
            let error = try #require(throws: ManifestError.self) { try decode(input, file: file) }
            #expect(error.path == "$.operations[0]" && error.expected.contains("only a required string 'token'"), "\(error.path): \(error.expected)")
        }
    }

    @Test func notJSONNamesTheFile() throws {
        let ws = FixtureWorkspace("notjson")
        Fixtures.write("{ not json", to: ws.root + "/broken.json")
        let error = try #require(throws: ManifestError.self) { try ManifestReader.read(file: ws.root + "/broken.json") }
        #expect(error.file.hasSuffix("broken.json"))
        #expect(error.expected == "JSON")
        let missing = try #require(throws: ManifestError.self) { try ManifestReader.read(file: ws.root + "/absent.json") }
        #expect(missing.found == "no such file")
    }

    @Test func embeddedSchemasMatchTheCheckedInFiles() throws {
        let manifest = try String(contentsOfFile: Fixtures.repositoryRoot + "/manifests/schema/plugin-manifest.schema.json", encoding: .utf8)
        let deployment = try String(contentsOfFile: Fixtures.repositoryRoot + "/manifests/schema/deployment.schema.json", encoding: .utf8)
        #expect(EmbeddedSchemas.pluginManifest == manifest.trimmingCharacters(in: .newlines), "run scripts/embed-schemas.sh")
        #expect(EmbeddedSchemas.deployment == deployment.trimmingCharacters(in: .newlines), "run scripts/embed-schemas.sh")
    }

    /// The host's own schemas compile their patterns when first used (`JSONDocument.compile`),
    /// which would stop the host on one that does not compile: here every one is compiled.
    @Test func everyPatternOfTheHostsOwnSchemasCompiles() throws {
        _ = try JSONSchema(parsing: EmbeddedSchemas.pluginManifest, patterns: .whenCompiled)
        _ = try JSONSchema(parsing: EmbeddedSchemas.deployment, patterns: .whenCompiled)
    }

    @Test func versionRanges() throws {
        func admits(_ range: String, _ version: String) -> Bool {
            VersionRange(range)!.contains(SemanticVersion(version)!)
        }
        #expect(admits("^1.2.0", "1.9.3"))
        #expect(!admits("^1.2.0", "2.0.0"))
        #expect(!admits("^1.2.0", "1.1.9"))
        #expect(admits("~1.2.3", "1.2.9"))
        #expect(!admits("~1.2.3", "1.3.0"))
        #expect(admits(">=1.0 <2.0", "1.5.0"))
        #expect(admits("1.x", "1.7.0"))
        #expect(!admits("1.x", "2.0.0"))
        #expect(admits("*", "0.0.1"))
        #expect(admits("^0.2", "0.2.5"))
        #expect(!admits("^0.2", "0.3.0"))
        #expect(SemanticVersion("1.0.0-rc.1")! < SemanticVersion("1.0.0")!)
        #expect(VersionRange("^^1") == nil)
        #expect(DurationText.seconds("2h30m") == 9000)
        #expect(DurationText.seconds("6d") == 518_400)
        #expect(DurationText.seconds("h") == nil)
        #expect(DurationText.seconds("5") == nil)
    }
}

/// Random damage to a valid manifest never crashes the reader: it decodes or names a problem.
@Suite struct ManifestFuzzTests {
    static let replacements: [JSONValue] = [.null, true, 0, -1, 1.5, "", "x", "1.0.0", [], [:], ["a": 1], [[:]], .string(String(repeating: "é", count: 300))]

    /// Replaces, removes or adds one member somewhere in `value`.
    static func mutate(_ value: JSONValue, _ rng: inout SplitMix64, depth: Int = 0) -> JSONValue {
        switch value {
        case .object(var members) where !members.isEmpty && depth < 6:
            let key = members.keys.sorted()[Int(rng.next() % UInt64(members.count))]
            switch rng.next() % 4 {
            case 0: members[key] = nil
            case 1: members[key] = replacements[Int(rng.next() % UInt64(replacements.count))]
            case 2: members["extra\(rng.next() % 3)"] = 1
            default: members[key] = mutate(members[key]!, &rng, depth: depth + 1)
            }
            return .object(members)
        case .array(var elements) where !elements.isEmpty && depth < 6:
            let i = Int(rng.next() % UInt64(elements.count))
            if rng.next() % 3 == 0 { elements.remove(at: i) } else { elements[i] = mutate(elements[i], &rng, depth: depth + 1) }
            return .array(elements)
        default:
            return replacements[Int(rng.next() % UInt64(replacements.count))]
        }
    }

    @Test func fiveHundredMutationsEachDecodeOrNameTheirFault() throws {
        let valid = try ManifestTests.valid()
        var rng = SplitMix64(seed: 42)
        var refused = 0
        for _ in 0..<500 {
            var doc = valid
            for _ in 0..<(1 + Int(rng.next() % 3)) { doc = Self.mutate(doc, &rng) }
            do {
                _ = try ManifestReader.decode(doc, file: "fuzz.json")
            } catch {
                refused += 1
                #expect(error.path.hasPrefix("$"))
                #expect(!error.expected.isEmpty && !error.found.isEmpty)
            }
        }
        #expect(refused > 250)  // most mutations break something, and each was named
    }
}
