import Foundation
import Testing
import TesseraManifest
import TesseraTestFixtures

/// The cache of checked manifests (`ManifestCache`): an unchanged file is read once, and a file
/// changed in any byte is read anew, even with its size and modification time unchanged.
@Suite struct ManifestCacheTests {
    @Test("an unchanged manifest is handed out again, not read again")
    func unchangedManifestIsServedFromTheCache() throws {
        let ws = FixtureWorkspace("manifest-cache-same")
        let file = ws.root + "/example.json"
        Fixtures.write(try String(contentsOfFile: Fixtures.exampleManifest, encoding: .utf8), to: file)
        let first = try ManifestReader.read(file: file)
        let again = try ManifestReader.read(file: file)
        #expect(first === again)
    }

    @Test("a manifest changed in place, same size and modification time, is never served from the cache")
    func changedManifestIsReadAnew() throws {
        let ws = FixtureWorkspace("manifest-cache-changed")
        let file = ws.root + "/example.json"
        let text = try String(contentsOfFile: Fixtures.exampleManifest, encoding: .utf8)
        Fixtures.write(text, to: file)
        let first = try ManifestReader.read(file: file)
        let written = try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date

        // One operation renamed to a name of the same length: same size; the write time put back.
        let renamed = text.replacingOccurrences(of: "\"add-note\"", with: "\"add-memo\"")
        #expect(renamed != text && renamed.utf8.count == text.utf8.count)
        Fixtures.write(renamed, to: file)
        if let written { try FileManager.default.setAttributes([.modificationDate: written], ofItemAtPath: file) }

        let second = try ManifestReader.read(file: file)
        #expect(second !== first)
        #expect(second.operations.map(\.name).contains("add-memo"))
        #expect(!second.operations.map(\.name).contains("add-note"))

        // Broken in place: refused, not answered with the last good read.
        Fixtures.write(String(renamed.dropLast(2)), to: file)
        #expect(throws: ManifestError.self) { try ManifestReader.read(file: file) }
    }

    @Test("the same bytes under another path are another manifest (the path is part of it)")
    func samePathOnly() throws {
        let ws = FixtureWorkspace("manifest-cache-paths")
        let text = try String(contentsOfFile: Fixtures.exampleManifest, encoding: .utf8)
        Fixtures.write(text, to: ws.root + "/a.json")
        Fixtures.write(text, to: ws.root + "/b.json")
        let a = try ManifestReader.read(file: ws.root + "/a.json")
        let b = try ManifestReader.read(file: ws.root + "/b.json")
        #expect(a !== b)
        #expect(a.file.hasSuffix("/a.json") && b.file.hasSuffix("/b.json"))
    }
}
