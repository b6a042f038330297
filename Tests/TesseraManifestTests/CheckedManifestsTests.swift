import Foundation
import Testing
@testable import TesseraManifest
import TesseraLoader
import TesseraSDK
import TesseraSchema
import TesseraTestFixtures

/// The record of manifests that passed (`CheckedManifests`): a new process of the same build
/// reads the same bytes without checking them against the manifest schema again, and compiles
/// their schemas when first used; other bytes, or another build, are checked in full.
///
/// Each read uses a file of its own path, so the in-memory cache (`ManifestCache`, keyed by path
/// and bytes) never answers: a new path here is what a new process is.
@Suite struct CheckedManifestsTests {
    /// Inputs every operation's schema is asked about; their answers must not depend on when it
    /// was compiled.
    static let inputs: [JSONValue] = [
        [:], ["text": ""], ["text": "x"], ["date": "not a date", "kind": 7], ["amount": -1, "note": .null],
        ["from": "2026-01-01", "to": "2026-13-40"], ["id": "01J000000000000000000000000"], .array([]), "text",
    ]

    @Test("a manifest that passed is recorded, and read again without its check, answers every input as before")
    func aManifestThatPassedIsReadAgainWithoutItsCheck() throws {
        let ws = FixtureWorkspace("checked-manifests-again")
        let checked = try #require(CheckedManifests(folder: ws.root + "/checked"), "the test binary has a build ID")
        let text = try String(contentsOfFile: Fixtures.repositoryRoot + "/manifests/baby.json", encoding: .utf8)
        Fixtures.write(text, to: ws.root + "/first.json")
        Fixtures.write(text, to: ws.root + "/again.json")

        let first = try ManifestReader.read(file: ws.root + "/first.json", checked: checked)
        #expect(try records(in: checked).count == 1)
        #expect(checked.passed(Data(text.utf8)))
        #expect(checked.recordedID(of: Data(text.utf8)) == "cz.tessera.baby")
        let again = try ManifestReader.read(file: ws.root + "/again.json", checked: checked)
        #expect(try records(in: checked).count == 1)

        #expect(again.id == first.id && again.version == first.version)
        #expect(again.operations.map(\.name) == first.operations.map(\.name))
        #expect(first.operations.count > 10)
        for (a, b) in zip(first.operations, again.operations) {
            for input in Self.inputs {
                #expect(a.inputSchema.validate(input).map(\.message) == b.inputSchema.validate(input).map(\.message), "\(a.name), \(input)")
            }
        }
        let config = try #require(first.configSchema)
        for input in Self.inputs {
            #expect(config.validate(input).map(\.message) == again.configSchema?.validate(input).map(\.message))
        }
    }

    @Test("a schema compiled on first use answers the same when many calls use it first at once")
    func aDeferredSchemaUsedFirstByManyTasksAtOnce() async throws {
        let ws = FixtureWorkspace("checked-manifests-concurrent")
        let checked = try #require(CheckedManifests(folder: ws.root + "/checked"))
        let text = try String(contentsOfFile: Fixtures.exampleManifest, encoding: .utf8)
        Fixtures.write(text, to: ws.root + "/first.json")
        Fixtures.write(text, to: ws.root + "/again.json")
        let compiled = try ManifestReader.read(file: ws.root + "/first.json", checked: checked)
        let deferred = try ManifestReader.read(file: ws.root + "/again.json", checked: checked)
        let operation = try #require(deferred.operation(named: "add-note"))
        let expected = try #require(compiled.operation(named: "add-note")).inputSchema.validate(["text": 5]).map(\.message)
        #expect(!expected.isEmpty)
        let answers = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<16 { group.addTask { operation.inputSchema.validate(["text": 5]).map(\.message) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 16 && answers.allSatisfy { $0 == expected })
    }

    @Test("a record counts only for the same bytes under the same build; a failed manifest is not recorded")
    func aRecordCountsOnlyForTheSameBytesAndBuild() throws {
        let ws = FixtureWorkspace("checked-manifests-bytes")
        let checked = try #require(CheckedManifests(folder: ws.root + "/checked"))
        // An operation whose input pattern is not a regular expression: the full check refuses it.
        var document = try JSONValue(parsing: Data(try String(contentsOfFile: Fixtures.exampleManifest, encoding: .utf8).utf8))
        guard case .object(var manifest) = document, case .array(var operations) = manifest["operations"],
              case .object(var first) = operations[0] else { Issue.record("the example manifest has operations"); return }
        first["input"] = ["type": "object", "properties": ["text": ["type": "string", "pattern": "(unclosed"]]]
        operations[0] = .object(first)
        manifest["operations"] = .array(operations)
        document = .object(manifest)
        let bytes = document.serialized()
        Fixtures.write(bytes, to: ws.root + "/bad.json")

        #expect(throws: ManifestError.self) { try ManifestReader.read(file: ws.root + "/bad.json", checked: checked) }
        #expect(try records(in: checked).isEmpty)

        // A record of exactly these bytes is trusted (the folder is the host's own, like the
        // libraries it loads): the read is not checked, and the schema that cannot compile
        // refuses every input rather than letting any through.
        checked.record(Data(bytes.utf8), id: "dev.tessera.example")
        Fixtures.write(bytes, to: ws.root + "/recorded.json")
        let trusted = try ManifestReader.read(file: ws.root + "/recorded.json", checked: checked)
        #expect(!trusted.operations[0].inputSchema.validate(["text": "fine"]).isEmpty)

        // Another build's records, or one byte more: checked in full, refused.
        let otherBuild = CheckedManifests(folder: checked.folder, build: [0xAB, 0xCD])
        Fixtures.write(bytes, to: ws.root + "/other-build.json")
        #expect(throws: ManifestError.self) { try ManifestReader.read(file: ws.root + "/other-build.json", checked: otherBuild) }
        Fixtures.write(bytes + " ", to: ws.root + "/one-byte-more.json")
        #expect(throws: ManifestError.self) { try ManifestReader.read(file: ws.root + "/one-byte-more.json", checked: checked) }
    }

    @Test("records are keyed by the running executable's build ID, as its file says")
    func theRunningBuildIsTheExecutablesBuildID() throws {
        let build = try #require(CheckedManifests.runningBuild)
        let elf = try ELFFile(path: "/proc/self/exe")
        #expect(SHA256.hex(build) == elf.gnuBuildID)
    }

    @Test("the folder keeps at most its capacity of records, then starts over")
    func theFolderStartsOverAtItsCapacity() throws {
        let ws = FixtureWorkspace("checked-manifests-capacity")
        let checked = try #require(CheckedManifests(folder: ws.root + "/checked"))
        for i in 0..<CheckedManifests.capacity { checked.record(Data("manifest \(i)".utf8), id: "dev.test.m\(i)") }
        #expect(try records(in: checked).count == CheckedManifests.capacity)
        checked.record(Data("one more".utf8), id: "dev.test.more")
        #expect(try records(in: checked).count == 1)
        #expect(checked.passed(Data("one more".utf8)) && !checked.passed(Data("manifest 0".utf8)))
    }

    @Test("a record a crash left empty still says the bytes passed, but names no id")
    func anEmptyRecordNamesNoID() throws {
        let ws = FixtureWorkspace("checked-manifests-empty")
        let checked = try #require(CheckedManifests(folder: ws.root + "/checked"))
        let content = Data("{}".utf8)
        checked.record(content, id: "dev.test.whole")
        #expect(checked.recordedID(of: content) == "dev.test.whole")
        // What a power loss may leave of a file renamed into place before its data reached the disk.
        let record = checked.path(for: content)
        #expect(truncate(record, 0) == 0)
        #expect(checked.passed(content))
        #expect(checked.recordedID(of: content) == nil)
        // Cut short: no newline at its end.
        Fixtures.write("dev.test.wh", to: record)
        #expect(checked.recordedID(of: content) == nil)
        #expect(try records(in: checked) == [String(record.split(separator: "/").last!)])
    }

    private func records(in checked: CheckedManifests) throws -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: checked.folder)) ?? []
    }
}

/// A manifest read for the first time (checked in full) holds what a restart does: each input
/// schema compiled by the first call that uses it, not at the read. The compiled form of every
/// operation's schema was 1.4 MB of `tessera serve`'s heap on a first start (docs/benchmarks.md).
@Suite struct FirstReadHoldsNoCompiledSchemaTests {
    @Test("a manifest checked in full holds no input schema compiled until one is used, and then answers as a compiled one")
    func aCheckedManifestCompilesEachInputSchemaOnFirstUse() throws {
        let ws = FixtureWorkspace("first-read-no-compiled-schema")
        let text = try String(contentsOfFile: Fixtures.repositoryRoot + "/manifests/baby.json", encoding: .utf8)
        Fixtures.write(text, to: ws.root + "/baby.json")
        let manifest = try ManifestReader.read(file: ws.root + "/baby.json")
        #expect(manifest.operations.count > 10)
        #expect(manifest.operations.allSatisfy { !$0.inputSchemaOnFirstUse.isCompiled })

        let used = manifest.operations[0]
        let reference = try JSONSchema(used.inputSchemaDocument)
        for input in CheckedManifestsTests.inputs {
            #expect(used.inputSchema.validate(input).map(\.message) == reference.validate(input).map(\.message), "\(input)")
        }
        #expect(used.inputSchemaOnFirstUse.isCompiled)
        #expect(manifest.operations.dropFirst().allSatisfy { !$0.inputSchemaOnFirstUse.isCompiled })
    }

    @Test("sixteen first uses of one schema at once all answer as the schema compiled apart, and leave it compiled")
    func firstUsesAtOnceAgree() async throws {
        let ws = FixtureWorkspace("first-uses-at-once")
        let text = try String(contentsOfFile: Fixtures.repositoryRoot + "/manifests/baby.json", encoding: .utf8)
        Fixtures.write(text, to: ws.root + "/baby.json")
        let manifest = try ManifestReader.read(file: ws.root + "/baby.json")
        // Each task may be the one that compiles it or find it kept (SchemaOnFirstUse.keep).
        let used = manifest.operations[0]
        #expect(!used.inputSchemaOnFirstUse.isCompiled)
        let reference = try JSONSchema(used.inputSchemaDocument)
        let expected = CheckedManifestsTests.inputs.map { reference.validate($0).map(\.message) }
        let answers = await withTaskGroup(of: [[String]].self) { group in
            for _ in 0..<16 {
                group.addTask { CheckedManifestsTests.inputs.map { used.inputSchema.validate($0).map(\.message) } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 16)
        #expect(answers.allSatisfy { $0 == expected })
        #expect(used.inputSchemaOnFirstUse.isCompiled)
    }

    @Test("a manifest checked in full is still refused for an input or output pattern that does not compile")
    func anInvalidPatternStillRefusesTheManifest() throws {
        let ws = FixtureWorkspace("first-read-invalid-pattern")
        for member in ["input", "output"] {
            var document = try JSONValue(parsing: Data(try String(contentsOfFile: Fixtures.exampleManifest, encoding: .utf8).utf8))
            guard case .object(var manifest) = document, case .array(var operations) = manifest["operations"],
                  case .object(var first) = operations[0] else { Issue.record("the example manifest has operations"); return }
            first[member] = ["type": "object", "properties": ["text": ["type": "string", "pattern": "(unclosed"]]]
            operations[0] = .object(first)
            manifest["operations"] = .array(operations)
            document = .object(manifest)
            Fixtures.write(document.serialized(), to: ws.root + "/\(member).json")
            #expect {
                _ = try ManifestReader.read(file: ws.root + "/\(member).json")
            } throws: { error in
                (error as? ManifestError)?.path == "$.operations[0].\(member)"
            }
        }
    }
}
