import Foundation
import Testing
@testable import TesseraManifest
@testable import TesseraRuntime
import TesseraTestFixtures

/// The catalog finds every manifest by its id and reads one only when its plugin is asked for.
@Suite struct ManifestCatalogTests {
    @Test func aManifestIsReadOnlyWhenItsPluginIsAskedFor() throws {
        let ws = FixtureWorkspace("catalog")
        ws.addManifest(id: "dev.test.asked", library: "/nowhere/libAsked.so")
        let other = ws.addManifest(id: "dev.test.other", library: "/nowhere/libOther.so")
        let catalog = ManifestCatalog(directories: [ws.root])
        #expect(catalog.ids == ["dev.test.asked", "dev.test.other"])
        guard case .valid(let asked) = catalog.entry(for: "dev.test.asked") else {
            Issue.record("the asked-for manifest is not valid")
            return
        }
        #expect(asked.id == "dev.test.asked")
        // The other file was never checked and compiled: the reader's cache has no manifest of it.
        // (Its path is this test's own, so no test running alongside can have read it.)
        let content = try #require(FileManager.default.contents(atPath: other))
        #expect(ManifestCache.manifest(file: other, content: content) == nil)
        guard case .valid = catalog.entry(for: "dev.test.other") else {
            Issue.record("the other manifest is not valid once asked for")
            return
        }
        #expect(ManifestCache.manifest(file: other, content: content) != nil)
    }

    @Test func anInvalidManifestIsAttributedToItsIdAndAFileWithoutOneIsReportedApart() throws {
        let ws = FixtureWorkspace("catalog")
        ws.addManifest(id: "dev.test.broken", library: "/nowhere/libBroken.so") { $0["version"] = "not a version" }
        Fixtures.write("{\"name\": \"no id here\"}", to: ws.root + "/anonymous.json")
        Fixtures.write("not JSON", to: ws.root + "/garbage.json")
        let catalog = ManifestCatalog(directories: [ws.root])
        #expect(catalog.ids == ["dev.test.broken"])
        guard case .invalid(let file, let error) = catalog.entry(for: "dev.test.broken") else {
            Issue.record("a manifest with a bad version was taken")
            return
        }
        #expect(file.hasSuffix("dev.test.broken.json") && error.path == "$.version")
        #expect(catalog.unattributed.count == 2)
        #expect(catalog.entry(for: "dev.test.missing") == nil)
    }

    @Test func aSecondValidManifestWithTheSameIdIsRefused() throws {
        let ws = FixtureWorkspace("catalog")
        let first = ws.addManifest(id: "dev.test.twice", library: "/nowhere/libA.so", file: "a.json")
        ws.addManifest(id: "dev.test.twice", library: "/nowhere/libB.so", file: "b.json")
        let catalog = ManifestCatalog(directories: [ws.root])
        guard case .invalid(let file, let error) = catalog.entry(for: "dev.test.twice") else {
            Issue.record("two manifests with one id were both taken")
            return
        }
        #expect(file.hasSuffix("/b.json") && error.path == "$.id" && error.description.contains(first))
    }
}

extension ManifestCatalogTests {
    /// A file whose bytes passed before is not parsed for its id: its record names it. (A record
    /// planted with another id shows which was used; the folder is the host's own.)
    @Test func aRecordedFileIsListedUnderTheIDItsRecordNames() throws {
        let ws = FixtureWorkspace("catalog-recorded")
        let file = ws.addManifest(id: "dev.test.parsed", library: "/nowhere/libParsed.so")
        let checked = try #require(CheckedManifests(folder: ws.root + "/checked"))
        #expect(ManifestCatalog(directories: [ws.root], checked: checked).ids == ["dev.test.parsed"])
        let content = try #require(FileManager.default.contents(atPath: file))
        #expect(checked.recordedID(of: content) == nil)  // listing alone reads nothing in full

        guard case .valid = ManifestCatalog(directories: [ws.root], checked: checked).entry(for: "dev.test.parsed") else {
            Issue.record("the manifest is valid")
            return
        }
        #expect(checked.recordedID(of: content) == "dev.test.parsed")
        #expect(ManifestCatalog(directories: [ws.root], checked: checked).ids == ["dev.test.parsed"])

        checked.record(content, id: "dev.test.recorded")
        #expect(ManifestCatalog(directories: [ws.root], checked: checked).ids == ["dev.test.recorded"])
        #expect(ManifestCatalog(directories: [ws.root]).ids == ["dev.test.parsed"])
    }

    /// The record a file's id came from also says its bytes passed: reading the manifest then does
    /// not hash the file again to look for it. (The record taken away after the listing shows it:
    /// a read that looked would find none, check the file in full and write the record anew.)
    @Test func aManifestListedFromItsRecordIsReadWithoutLookingForTheRecordAgain() throws {
        let ws = FixtureWorkspace("catalog-recorded-once")
        let file = ws.addManifest(id: "dev.test.once", library: "/nowhere/libOnce.so")
        let checked = try #require(CheckedManifests(folder: ws.root + "/checked"))
        let content = try #require(FileManager.default.contents(atPath: file))
        checked.record(content, id: "dev.test.once")
        let catalog = ManifestCatalog(directories: [ws.root], checked: checked)
        #expect(unlink(checked.path(for: content)) == 0)

        guard case .valid(let manifest) = catalog.entry(for: "dev.test.once") else {
            Issue.record("the recorded manifest is valid")
            return
        }
        #expect(manifest.id == "dev.test.once")
        #expect(checked.recordedID(of: content) == nil)

        // Listed by parsing (no record): checked in full, and recorded. (The same bytes in another
        // folder: the reader's in-memory cache knows a file by its path too.)
        let again = FixtureWorkspace("catalog-recorded-once-again")
        try content.write(to: URL(fileURLWithPath: again.root + "/dev.test.once.json"))
        guard case .valid = ManifestCatalog(directories: [again.root], checked: checked).entry(for: "dev.test.once") else {
            Issue.record("the parsed manifest is valid")
            return
        }
        #expect(checked.recordedID(of: content) == "dev.test.once")
    }

    @Test func onlyJSONFilesDirectlyInTheFolderAreListedInOrder() throws {
        let ws = FixtureWorkspace("catalog-names")
        for name in ["b.json", "a.json", "notes.txt", "c.json.bak"] { Fixtures.write("{}", to: ws.root + "/" + name) }
        try FileManager.default.createDirectory(atPath: ws.root + "/deeper", withIntermediateDirectories: true)
        Fixtures.write("{}", to: ws.root + "/deeper/d.json")
        let names = ManifestCatalog.jsonFileNames(in: ws.root)
        #expect(names.filter { ["a.json", "b.json", "c.json.bak", "d.json", "notes.txt"].contains($0) } == ["a.json", "b.json"])
        #expect(names == names.sorted())
        #expect(ManifestCatalog.jsonFileNames(in: ws.root + "/missing").isEmpty)
    }
}

/// A host records the manifests that passed beside its staged builds, and a restart reads them
/// from there (`CheckedManifests`): what the plugin accepts and refuses is the same.
@Suite struct CheckedManifestsHostTests {
    let example = "dev.tessera.example"

    @Test func aRestartReadsTheRecordedManifestAndRefusesTheSameInputs() async throws {
        let ws = ClockAndStorageTests.workspace()
        let first = try await startHost(ws)
        _ = try await first.call(example, "add-note", input: ["text": "kept"], as: user)
        let refusedBefore = await callError(first, example, "add-note", ["text": ""], as: user)
        await first.stop()

        let manifest = ws.root + "/example.json"
        let bytes = try #require(FileManager.default.contents(atPath: manifest))
        let checked = try #require(CheckedManifests(folder: ws.dataDirectory + "/generations/.checked-manifests"))
        #expect(checked.passed(bytes))

        // The same bytes under another name: the in-memory cache (path and bytes) does not know
        // them, as in a new process; the record does.
        #expect(rename(manifest, ws.root + "/example-again.json") == 0)
        let second = try await startHost(ws)
        #expect(second.status(of: example)?.state == .active)
        let notes = try await second.call(example, "list-notes", input: [:], as: user)
        #expect(notes["notes"]?.arrayValue?.count == 1)
        let refusedAfter = await callError(second, example, "add-note", ["text": ""], as: user)
        #expect(refusedAfter != nil && refusedAfter?.description == refusedBefore?.description)
        await second.stop()
    }
}
