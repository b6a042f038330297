import Foundation
import Testing
import TesseraSDK
@testable import TesseraLoader
import TesseraTestFixtures

/// Staging: a build copied to its content address, hashed from the copy, mapped for gate 1.
@Suite struct StagingTests {
    func build(_ bytes: [UInt8], in folder: String, name: String = "libPlugin.so") throws -> String {
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func theCopyIsNamedByTheHashOfItsBytesAndMappedAsTheyAre() throws {
        let folder = Fixtures.temporaryDirectory("staging")
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }
        let source = try build(bytes, in: folder)
        let staged = try GenerationStore(root: folder + "/generations").stage(source)
        #expect(staged.sha256 == SHA256.hex(of: bytes))
        #expect(staged.path == folder + "/generations/\(staged.sha256)-libPlugin.so")
        #expect(try Data(contentsOf: URL(fileURLWithPath: staged.path)) == Data(bytes))
        let contents = try #require(staged.contents)
        #expect(contents.count == bytes.count)
        #expect(contents.withUnsafeBytes { Array($0) } == bytes)
        #expect(contents.copy(1000..<1010) == Array(bytes[1000..<1010]))
    }

    @Test func aBuildChangedAfterStagingLeavesTheCopyAlone() throws {
        let folder = Fixtures.temporaryDirectory("staging")
        let source = try build(Array(repeating: 1, count: 10_000), in: folder)
        let staged = try GenerationStore(root: folder + "/generations").stage(source)
        // Rewritten in place (as `cp` does), not replaced: the copy and its mapping keep the old bytes.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
        try handle.write(contentsOf: Data(repeating: 2, count: 10_000))
        try handle.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: staged.path)) == Data(repeating: 1, count: 10_000))
        #expect(try #require(staged.contents).withUnsafeBytes { $0.allSatisfy { $0 == 1 } })
        let again = try GenerationStore(root: folder + "/generations").stage(source)
        #expect(again.path != staged.path)
    }

    @Test func stagingTheSameBuildTwiceGivesOnePathAndLeavesNoPartialFiles() throws {
        let folder = Fixtures.temporaryDirectory("staging")
        let source = try build(Array("same build".utf8), in: folder)
        let store = GenerationStore(root: folder + "/generations")
        let first = try store.stage(source)
        let second = try store.stage(source)
        #expect(first.path == second.path)
        #expect(try #require(first.contents).withUnsafeBytes { Array($0) } == Array("same build".utf8))  // still mapped
        let files = try FileManager.default.contentsOfDirectory(atPath: store.root).filter { $0 != ".index" }
        #expect(files == [(first.path as NSString).lastPathComponent])
    }

    // MARK: The index: a build staged before is not copied and hashed again

    /// The inode of a file: a staged copy written again (renamed over) gets a new one.
    func inode(_ path: String) -> UInt64? { BuildStamp(path: path)?.inode }

    /// A copy of the example plugin's build, and a stage whose index trusts a build at once (a
    /// settle time of zero: the copy was just written).
    func exampleBuildAndIndexedStore() throws -> (source: String, store: GenerationStore) {
        let folder = Fixtures.temporaryDirectory("staging")
        let source = folder + "/libTesseraExample.so"
        try FileManager.default.copyItem(atPath: Fixtures.exampleLibrary, toPath: source)
        return (source, GenerationStore(root: folder + "/generations", settleTime: .zero))
    }

    @Test func anUnchangedBuildIsTakenFromTheIndexWithoutACopy() throws {
        let (source, store) = try exampleBuildAndIndexedStore()
        let first = try store.stage(source)
        let copied = try #require(inode(first.path))
        let second = try store.stage(source)
        #expect(second.path == first.path && second.sha256 == first.sha256)
        #expect(inode(second.path) == copied, "the copy was not written again")
        #expect(second.contents == nil, "the copy was not opened")
        #expect(try SHA256.hash(file: second.path) == first.sha256)
        // A new store on the same folder (a restarted host) finds it too.
        #expect(inode(try GenerationStore(root: store.root, settleTime: .zero).stage(source).path) == copied)
    }

    @Test func aBuildWhoseNameHoldsSpacesIsTakenFromTheIndex() throws {
        let (example, store) = try exampleBuildAndIndexedStore()
        let source = (example as NSString).deletingLastPathComponent + "/lib Tessera Example.so"
        try FileManager.default.moveItem(atPath: example, toPath: source)
        let copied = try #require(inode(try store.stage(source).path))
        #expect(inode(try store.stage(source).path) == copied)
    }

    @Test func aTornOrForeignIndexEntryOnlyMeansAFullStaging() throws {
        let (source, store) = try exampleBuildAndIndexedStore()
        var previous = try store.stage(source).path
        let stamp = try #require(BuildStamp(path: source))
        let entry = store.root + "/.index/\(stamp.device)-\(stamp.inode)"
        let whole = try #require(FileManager.default.contents(atPath: entry))
        // Cut short (a power loss while it was written), or naming another file: never trusted.
        for bytes in [whole.prefix(whole.count / 2), whole.prefix(40), Data((String(decoding: whole, as: UTF8.self) + "x").utf8), Data()] {
            // Held open, the copy replaced keeps its inode: a new copy cannot be given the same number.
            let held = open(previous, O_RDONLY)
            defer { close(held) }
            let copied = try #require(inode(previous))
            try bytes.write(to: URL(fileURLWithPath: entry))
            let again = try store.stage(source)
            #expect(inode(again.path) != copied, "staged in full again for an entry of \(bytes.count) bytes")
            #expect(try #require(again.contents).withUnsafeBytes { SHA256.hex(of: $0) } == again.sha256)
            previous = again.path
        }
    }

    @Test func aBuildRewrittenInPlaceWithItsSizeAndWriteTimeForgedIsStagedAgain() throws {
        let (source, store) = try exampleBuildAndIndexedStore()
        let first = try store.stage(source)
        let before = try #require(BuildStamp(path: source))
        let idBefore = ((try? ELFFile(path: source))?.gnuBuildID ?? "-")
        let note = try #require(try ELFFile(path: source).sections.first { $0.name == ".note.gnu.build-id" })
        // Another build of the same size: one byte of its build ID differs, written into the same
        // inode, and the write time put back to what it was.
        let handle = try #require(FileHandle(forUpdatingAtPath: source))
        try handle.seek(toOffset: UInt64(note.offset + 16))
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(note.offset + 16))
        try handle.write(contentsOf: [byte ^ 0xFF])
        try handle.close()
        var times = [timespec(tv_sec: Int(before.modified / 1_000_000_000), tv_nsec: Int(before.modified % 1_000_000_000)),
                     timespec(tv_sec: Int(before.modified / 1_000_000_000), tv_nsec: Int(before.modified % 1_000_000_000))]
        #expect(utimensat(AT_FDCWD, source, &times, 0) == 0)
        let after = try #require(BuildStamp(path: source))
        #expect(after.inode == before.inode && after.size == before.size && after.modified == before.modified)
        #expect(((try? ELFFile(path: source))?.gnuBuildID ?? "-") != idBefore && idBefore != "-")
        let again = try store.stage(source)
        #expect(again.sha256 != first.sha256)
        #expect(try #require(again.contents).withUnsafeBytes { SHA256.hex(of: $0) } == again.sha256)
    }

    @Test func aBuildWrittenMomentsAgoIsNeverTakenFromTheIndex() throws {
        let folder = Fixtures.temporaryDirectory("staging")
        let source = try build(Array(repeating: 7, count: 4096), in: folder)
        let store = GenerationStore(root: folder + "/generations")  // the host's settle time
        let first = try store.stage(source)
        let copied = try #require(inode(first.path))
        #expect(inode(try store.stage(source).path) != copied, "staged in full again: its times are too fresh to vouch for it")
    }

    @Test func aStagedCopyThatWentMissingOrShortIsStagedAgain() throws {
        let (source, store) = try exampleBuildAndIndexedStore()
        let first = try store.stage(source)
        #expect(truncate(first.path, 100) == 0)
        let second = try store.stage(source)
        let contents = try #require(second.contents, "staged in full again")
        #expect(contents.count > 100 && contents.withUnsafeBytes { SHA256.hex(of: $0) } == first.sha256)
        #expect(unlink(second.path) == 0)
        let third = try store.stage(source)
        #expect(FileManager.default.fileExists(atPath: third.path) && third.sha256 == first.sha256)
    }

    @Test func aMissingBuildIsAnErrorAndLeavesNothingBehind() throws {
        let folder = Fixtures.temporaryDirectory("staging")
        let store = GenerationStore(root: folder + "/generations")
        #expect(throws: (any Error).self) { try store.stage(folder + "/libMissing.so") }
        #expect((try? FileManager.default.contentsOfDirectory(atPath: store.root))?.isEmpty ?? true)
    }

    @Test func anEmptyBuildIsStagedAndRefusedByGateOne() throws {
        let folder = Fixtures.temporaryDirectory("staging")
        let staged = try GenerationStore(root: folder + "/generations").stage(try build([], in: folder))
        #expect(staged.contents?.count == 0)
        let error = #expect(throws: GateRefusal.self) { try FileGate.verify(staged, manifest: nil, host: .current) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("empty"))
    }

    // MARK: Gate 1's facts, kept by the index

    @Test func aBuildFromTheIndexIsJudgedByTheFactsReadFromItsCopy() throws {
        let (source, store) = try exampleBuildAndIndexedStore()
        let first = try store.stage(source)
        let second = try store.stage(source)
        #expect(second.contents == nil, "taken from the index")
        let read = try LibraryFacts(path: second.path)
        #expect(try first.facts.get() == read)
        #expect(try second.facts.get() == read)
        #expect(read.stampSection != nil && read.linksSharedSDK && read.linksSharedSwiftRuntime && read.buildID != nil)
        #expect(try FileGate.verify(second, manifest: nil, host: .current) == FileGate.verify(path: second.path, manifest: nil, host: .current))
    }

    @Test func aBuildGateOneRefusedIsRefusedAgainWhenTheIndexVouchesForIt() throws {
        let (example, store) = try exampleBuildAndIndexedStore()
        let source = (example as NSString).deletingLastPathComponent + "/libNewerSDK.so"
        try PluginStamp.patched(file: example, to: source, sdkABIMinor: HostIdentity.current.sdkABIMinor + 1)
        let first = try store.stage(source)
        let second = try store.stage(source)
        #expect(first.contents != nil && second.contents == nil && second.path == first.path)
        for staged in [first, second] {
            let refusal = #expect(throws: GateRefusal.self) { try FileGate.verify(staged, manifest: nil, host: .current) }
            #expect(refusal?.field == "sdk.abi.minor")
        }
    }

    @Test func anEntryAnOlderHostWroteOnlyMeansAFullStaging() throws {
        let (source, store) = try exampleBuildAndIndexedStore()
        let first = try store.stage(source)
        let stamp = try #require(BuildStamp(path: source))
        let entry = store.root + "/.index/\(stamp.device)-\(stamp.inode)"
        let id = try #require(try ELFFile.gnuBuildID(path: source))
        // The format before gate 1's facts were kept: size, times, build ID, sha256, name.
        try Data("\(stamp.size) \(stamp.modified) \(stamp.changed) \(id) \(first.sha256) libTesseraExample.so".utf8)
            .write(to: URL(fileURLWithPath: entry))
        let again = try store.stage(source)
        #expect(again.contents != nil, "staged in full again")
        #expect(try String(contentsOfFile: entry, encoding: .utf8).hasPrefix(StageIndex.format + " "), "the entry is written anew")
        #expect(try store.stage(source).contents == nil)
    }
}
